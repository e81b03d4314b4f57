// The shared checks rules are built from, each answering as Kubernetes or the
// program reads manifests; rules decide what an answer means.
import type { Container, Volume, VolumeMount } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule, NetworkPolicyPeer, NetworkPolicySpec } from "kubernetes-types/networking/v1";
import type { K8sObject } from "../k8s/objects.ts";
import type { ObjectSet, PodRef } from "./engine.ts";
import { dig, isRecord, list, selects } from "../k8s/access.ts";

// ---------------------------------------------------------------- selectors

/** The labels of a workload's pods: its template's, or a bare Pod's own. */
export function podLabels(object: K8sObject): Record<string, string> {
  const labels = object.kind === "Pod" ? object.metadata?.labels : dig(object, ["spec", "template", "metadata", "labels"]);
  return isRecord(labels) ? (labels as Record<string, string>) : {};
}

/** The NetworkPolicies of the set that select a pod: same namespace, podSelector matching its labels. */
export function policiesSelecting(set: ObjectSet, pod: PodRef): K8sObject[] {
  const labels = podLabels(pod.object);
  return set
    .ofKind("NetworkPolicy")
    .filter(
      (policy) => (policy.metadata.namespace ?? "") === (pod.object.metadata.namespace ?? "") && selects(dig(policy, ["spec", "podSelector"]) ?? {}, labels),
    );
}

// ---------------------------------------------------------- network isolation

/** One thing the NetworkPolicies of a pod allow or lack, with the policy and field path it sits at. */
export interface IsolationGap {
  kind:
    | "ingress-not-isolated" // no policy lists Ingress in policyTypes: ingress is open
    | "egress-not-isolated" // no policy lists Egress in policyTypes: egress is open
    | "ingress-allowed" // an ingress rule admits connections
    | "egress-anywhere" // an egress rule with no `to` and no ports: every destination, every port
    | "egress-any-host" // an egress rule with ports but no `to`: every destination on those ports
    | "egress-everything-cidr" // an ipBlock of 0.0.0.0/0 or ::/0
    | "no-dns" // egress is isolated and no rule reaches DNS
    | "dns-only"; // egress is isolated and no rule reaches anything beyond DNS
  object: K8sObject;
  path: PropertyKey[];
  message: string;
}

const EVERYWHERE = new Set(["0.0.0.0/0", "::/0"]);

/** The directions a policy isolates: its policyTypes, or without them Ingress, and Egress when it has egress rules. */
function policyTypes(spec: NetworkPolicySpec): string[] {
  return Array.isArray(spec.policyTypes) ? spec.policyTypes : ["Ingress", ...(list<unknown>(spec.egress).length > 0 ? ["Egress"] : [])];
}

/** Whether a NetworkPolicy isolates the pods it selects in one direction. */
export function isolates(policy: K8sObject, direction: "Ingress" | "Egress"): boolean {
  return policyTypes((isRecord(policy.spec) ? policy.spec : {}) as unknown as NetworkPolicySpec).includes(direction);
}

/** What the NetworkPolicies selecting one pod leave open, read as Kubernetes adds them up. */
export function isolationGaps(policies: readonly K8sObject[]): IsolationGap[] {
  if (policies.length === 0) return [];
  const gaps: IsolationGap[] = [];
  const specs = policies.map((object) => {
    const spec = (isRecord(object.spec) ? object.spec : {}) as unknown as NetworkPolicySpec;
    const egress = list<NetworkPolicyEgressRule>(spec.egress);
    return { object, spec, egress, types: policyTypes(spec) };
  });
  const first = specs[0].object;
  if (!specs.some((p) => p.types.includes("Ingress")))
    gaps.push({
      kind: "ingress-not-isolated",
      object: first,
      path: ["spec", "policyTypes"],
      message: "no policy lists Ingress in policyTypes, so ingress is not isolated",
    });
  for (const p of specs) {
    const ingress = list<unknown>(p.spec.ingress);
    if (ingress.length > 0 && p.types.includes("Ingress"))
      gaps.push({ kind: "ingress-allowed", object: p.object, path: ["spec", "ingress"], message: `${ingress.length} ingress rule(s) admit connections` });
  }
  const isolating = specs.filter((p) => p.types.includes("Egress"));
  if (isolating.length === 0) {
    gaps.push({
      kind: "egress-not-isolated",
      object: first,
      path: ["spec", "policyTypes"],
      message: "no policy lists Egress in policyTypes, so egress is not restricted",
    });
    return gaps;
  }
  for (const p of isolating) {
    p.egress.forEach((rule, index) => {
      const to = list<NetworkPolicyPeer>(rule?.to);
      const ports = list<unknown>(rule?.ports);
      if (to.length === 0) {
        gaps.push(
          ports.length === 0
            ? {
                kind: "egress-anywhere",
                object: p.object,
                path: ["spec", "egress", index],
                message: "an egress rule without `to` or ports allows every destination on every port",
              }
            : {
                kind: "egress-any-host",
                object: p.object,
                path: ["spec", "egress", index],
                message: "an egress rule without `to` allows every destination on its ports",
              },
        );
      }
      to.forEach((peer, j) => {
        const cidr = peer?.ipBlock?.cidr;
        if (typeof cidr === "string" && EVERYWHERE.has(cidr))
          gaps.push({
            kind: "egress-everything-cidr",
            object: p.object,
            path: ["spec", "egress", index, "to", j, "ipBlock", "cidr"],
            message: `egress to ${cidr} allows every destination`,
          });
      });
    });
  }
  const rules = isolating.flatMap((p) => p.egress);
  const anchor = isolating[0].object;
  if (!rules.some(reachesDns)) gaps.push({ kind: "no-dns", object: anchor, path: ["spec", "egress"], message: "no egress rule reaches DNS (port 53)" });
  if (!rules.some((rule) => !isDnsOnly(rule)))
    gaps.push({ kind: "dns-only", object: anchor, path: ["spec", "egress"], message: "no egress rule reaches anything beyond DNS" });
  return gaps;
}

/** A rule reaches DNS when it allows port 53 (or a port named dns), or every port of a peer that may be the cluster DNS. */
function reachesDns(rule: NetworkPolicyEgressRule): boolean {
  const ports = list<{ port?: unknown }>(rule?.ports);
  if (ports.length === 0)
    return (
      list<NetworkPolicyPeer>(rule?.to).length === 0 ||
      list<NetworkPolicyPeer>(rule?.to).some((peer) => peer?.podSelector !== undefined || peer?.namespaceSelector !== undefined)
    );
  return ports.some((p) => isDnsPort(p?.port));
}

function isDnsOnly(rule: NetworkPolicyEgressRule): boolean {
  const ports = list<{ port?: unknown }>(rule?.ports);
  return ports.length > 0 && ports.every((p) => isDnsPort(p?.port));
}

function isDnsPort(port: unknown): boolean {
  return port === 53 || port === "53" || (typeof port === "string" && /^dns(-tcp|-udp)?$/.test(port));
}

// ------------------------------------------------------------------ volumes

export interface MountedVolume {
  mount: VolumeMount;
  /** Index of the mount in the container's volumeMounts. */
  mountIndex: number;
  volume?: Volume;
  /** Index of the volume in the pod's volumes, -1 when no volume has the mount's name. */
  volumeIndex: number;
}

/** The volume mounted exactly at `dir` (a trailing slash aside) in a container. */
export function volumeAt(pod: Pick<PodRef, "spec">, container: Container, dir: string): MountedVolume | undefined {
  const mounts = list<VolumeMount>(container.volumeMounts);
  const want = trimSlash(dir);
  const mountIndex = mounts.findIndex((m) => typeof m?.mountPath === "string" && trimSlash(m.mountPath) === want);
  return mountIndex < 0 ? undefined : withVolume(pod, mounts[mountIndex], mountIndex);
}

/** The mount a path lands on: the longest mountPath that is the path or contains it. */
export function mountHolding(pod: Pick<PodRef, "spec">, container: Container, file: string): MountedVolume | undefined {
  const mounts = list<VolumeMount>(container.volumeMounts);
  let best = -1;
  let trimmed: string | undefined;
  mounts.forEach((m, i) => {
    if (typeof m?.mountPath !== "string") return;
    const at = trimSlash(m.mountPath);
    if ((trimmed ??= trimSlash(file)) !== at && !file.startsWith(at === "/" ? "/" : `${at}/`)) return;
    if (best < 0 || m.mountPath.length > mounts[best].mountPath.length) best = i;
  });
  return best < 0 ? undefined : withVolume(pod, mounts[best], best);
}

function withVolume(pod: Pick<PodRef, "spec">, mount: VolumeMount, mountIndex: number): MountedVolume {
  const volumes = list<Volume>(pod.spec.volumes);
  const volumeIndex = volumes.findIndex((v) => v?.name === mount.name);
  return { mount, mountIndex, volumeIndex, ...(volumeIndex < 0 ? {} : { volume: volumes[volumeIndex] }) };
}

/** A projected ServiceAccount token that a container reads at a file path. */
export interface ProjectedToken extends MountedVolume {
  token: { audience?: string; expirationSeconds?: number; path?: string };
  /** Path of the serviceAccountToken source inside the pod spec, from the spec (`["volumes", i, "projected", "sources", j, "serviceAccountToken"]`). */
  at: PropertyKey[];
}

/** The projected serviceAccountToken a container reads at `file`, subPath mounts included. */
export function projectedToken(pod: PodRef, container: Container, file: string): ProjectedToken | undefined {
  const holding = mountHolding(pod, container, file);
  if (!holding?.volume?.projected) return undefined;
  const below = file.slice(trimSlash(holding.mount.mountPath).length + 1);
  const relative = holding.mount.subPath ? `${trimSlash(holding.mount.subPath)}/${below}` : below;
  const sources = list<{ serviceAccountToken?: ProjectedToken["token"] }>(holding.volume.projected.sources);
  const index = sources.findIndex((s) => s?.serviceAccountToken !== undefined && trimSlash(s.serviceAccountToken.path ?? "") === relative);
  if (index < 0) return undefined;
  return { ...holding, token: sources[index].serviceAccountToken!, at: ["volumes", holding.volumeIndex, "projected", "sources", index, "serviceAccountToken"] };
}

// -------------------------------------------------------------------- helpers

function trimSlash(path: string): string {
  // Most paths end without a slash: answered without the regex.
  if (path.length <= 1 || path.charCodeAt(path.length - 1) !== 47) return path;
  return path.replace(/\/+$/, "");
}
