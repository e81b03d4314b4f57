// The shared checks rules are built from, each answering as Kubernetes or the
// program reads manifests; rules decide what an answer means.
import type { Container, Volume, VolumeMount } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule, NetworkPolicyPeer, NetworkPolicySpec } from "kubernetes-types/networking/v1";
import type { K8sObject } from "../k8s/objects.ts";
import type { ObjectSet, PodRef } from "./engine.ts";
import { dig, isRecord, list, selects } from "../k8s/access.ts";
import { cleanPath, sameOrUnder } from "../k8s/clean-path.ts";
import { blockRanges, coversEverything, type IpBlock, isEverywhere } from "../k8s/cidr.ts";

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
    | "egress-everything-cidr" // an ipBlock of a /0 in any spelling, or blocks on the same ports whose union is everywhere
    | "no-dns" // egress is isolated and no rule reaches DNS
    | "dns-only"; // egress is isolated and no rule reaches anything beyond DNS
  object: K8sObject;
  path: PropertyKey[];
  message: string;
}

/** The API server validates ipBlocks with ParseCIDRSloppy (leading zeros allowed): read them alike. */
const SLOPPY = { sloppy: true } as const;

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
        if (isEverywhere(cidr, SLOPPY))
          gaps.push({
            kind: "egress-everything-cidr",
            object: p.object,
            path: ["spec", "egress", index, "to", j, "ipBlock", "cidr"],
            message: `egress to ${cidr} allows every destination`,
          });
      });
    });
  }
  gaps.push(...everywhereTogether(isolating));
  const rules = isolating.flatMap((p) => p.egress);
  const anchor = isolating[0].object;
  if (!rules.some(reachesDns)) gaps.push({ kind: "no-dns", object: anchor, path: ["spec", "egress"], message: "no egress rule reaches DNS (port 53)" });
  if (!rules.some((rule) => !isDnsOnly(rule)))
    gaps.push({ kind: "dns-only", object: anchor, path: ["spec", "egress"], message: "no egress rule reaches anything beyond DNS" });
  return gaps;
}

/** One egress rule's ipBlock peers (a /0 aside). */
interface BlockRule {
  object: K8sObject;
  index: number;
  blocks: IpBlock[];
}

/**
 * ipBlocks whose union is every address of a family on the same ports (`0.0.0.0/1` and
 * `128.0.0.0/1`), across the rules of every isolating policy, as Kubernetes adds them up;
 * a rule for every port adds to each port set. One gap per rule that adds a block.
 */
function everywhereTogether(isolating: readonly { object: K8sObject; egress: NetworkPolicyEgressRule[] }[]): IsolationGap[] {
  const byPorts = new Map<string, BlockRule[]>();
  for (const p of isolating) {
    p.egress.forEach((rule, index) => {
      // A /0 is reported on its own (egress-everything-cidr at its cidr).
      const blocks = list<NetworkPolicyPeer>(rule?.to).flatMap((peer) =>
        typeof peer?.ipBlock?.cidr === "string" && !isEverywhere(peer.ipBlock.cidr, SLOPPY) ? [peer.ipBlock as IpBlock] : [],
      );
      const ports = portsKey(rule);
      if (blocks.length > 0) (byPorts.get(ports) ?? byPorts.set(ports, []).get(ports)!).push({ object: p.object, index, blocks });
    });
  }
  // What the rules for every port leave out, once: each port set need only fill those holes (linear overall).
  const everyPort = (byPorts.get("") ?? []).flatMap((r) => r.blocks);
  const left = { 4: holes(everyPort, 4), 6: holes(everyPort, 6) };
  const gaps: IsolationGap[] = [];
  for (const [ports, group] of byPorts) {
    const own = group.flatMap((r) => r.blocks);
    // Rules for every port that cover a family alone are reported as their own group.
    const family = ([4, 6] as const).find((f) => (ports === "" ? coversEverything(own, f, SLOPPY) : left[f].length > 0 && fills(merged(own, f), left[f])));
    if (family === undefined) continue;
    for (const r of group) {
      gaps.push({
        kind: "egress-everything-cidr",
        object: r.object,
        path: ["spec", "egress", r.index, "to"],
        message: `egress to ${r.blocks.map((b) => b.cidr).join(", ")}, with the other rules on ${ports === "" ? "every port" : "the same ports"}, allows every IPv${family} destination`,
      });
    }
  }
  return gaps;
}

interface Span {
  first: bigint;
  last: bigint;
}

/** The blocks' addresses of one family as sorted, disjoint, non-adjacent spans. */
function merged(blocks: readonly IpBlock[], family: 4 | 6): Span[] {
  const spans = blocks.flatMap((b) => blockRanges(b, family, SLOPPY)).sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const out: Span[] = [];
  for (const s of spans) {
    const last = out.at(-1);
    if (last && s.first <= last.last + 1n) last.last = s.last > last.last ? s.last : last.last;
    else out.push({ ...s });
  }
  return out;
}

/** The addresses of one family the blocks leave out, as sorted spans. */
function holes(blocks: readonly IpBlock[], family: 4 | 6): Span[] {
  const end = (1n << BigInt(family === 4 ? 32 : 128)) - 1n;
  const out: Span[] = [];
  let cursor = 0n;
  for (const s of merged(blocks, family)) {
    if (s.first > cursor) out.push({ first: cursor, last: s.first - 1n });
    cursor = s.last + 1n;
  }
  if (cursor <= end) out.push({ first: cursor, last: end });
  return out;
}

/** Whether merged spans fill every hole: each hole lies inside one span (spans are non-adjacent), counted by binary search. */
function fills(spans: readonly Span[], gaps: readonly Span[]): boolean {
  const firstAtOrAfter = (x: bigint) => {
    let lo = 0;
    let hi = gaps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (gaps[mid].first < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let filled = 0;
  for (const s of spans) {
    // The holes starting inside the span; only the last of them may run past its end.
    const from = firstAtOrAfter(s.first);
    const to = firstAtOrAfter(s.last + 1n);
    filled += to - from - (to > from && gaps[to - 1].last > s.last ? 1 : 0);
  }
  return filled === gaps.length;
}

/** A rule's ports as one key: the same key, the same ports; "" for a rule without ports (every port). */
function portsKey(rule: NetworkPolicyEgressRule): string {
  const ports = list<{ protocol?: unknown; port?: unknown; endPort?: unknown }>(rule?.ports);
  return ports
    .map((p) => JSON.stringify([p?.protocol ?? "TCP", p?.port ?? null, p?.endPort ?? null]))
    .sort()
    .join(",");
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

/** The volume mounted exactly at `dir`, both paths cleaned as the kubelet cleans them (`/a//b/` is `/a/b`). */
export function volumeAt(pod: Pick<PodRef, "spec">, container: Container, dir: string): MountedVolume | undefined {
  const mounts = list<VolumeMount>(container.volumeMounts);
  const want = cleanPath(dir);
  const mountIndex = mounts.findIndex((m) => typeof m?.mountPath === "string" && mountPoint(m.mountPath) === want);
  return mountIndex < 0 ? undefined : withVolume(pod, mounts[mountIndex], mountIndex);
}

/** The mount a path lands on: the deepest mountPath that is the path or contains it, both cleaned. */
export function mountHolding(pod: Pick<PodRef, "spec">, container: Container, file: string): MountedVolume | undefined {
  const mounts = list<VolumeMount>(container.volumeMounts);
  let best = -1;
  let bestAt = "";
  let cleaned: string | undefined;
  mounts.forEach((m, i) => {
    if (typeof m?.mountPath !== "string") return;
    const at = mountPoint(m.mountPath);
    if (!sameOrUnder((cleaned ??= cleanPath(file)), at)) return;
    if (best < 0 || at.length > bestAt.length) {
      best = i;
      bestAt = at;
    }
  });
  return best < 0 ? undefined : withVolume(pod, mounts[best], best);
}

/** Where the kubelet mounts a volume: the mountPath made absolute and cleaned (kubelet makeMounts, then path.Clean). */
export function mountPoint(mountPath: string): string {
  return cleanPath(mountPath.startsWith("/") ? mountPath : `/${mountPath}`);
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

/** The projected serviceAccountToken a container reads at `file`, subPath mounts included; paths cleaned. */
export function projectedToken(pod: PodRef, container: Container, file: string): ProjectedToken | undefined {
  const holding = mountHolding(pod, container, file);
  if (!holding?.volume?.projected) return undefined;
  const relative = pathInVolume(holding.mount, file);
  const sources = list<{ serviceAccountToken?: ProjectedToken["token"] }>(holding.volume.projected.sources);
  const index = sources.findIndex((s) => s?.serviceAccountToken !== undefined && cleanPath(s.serviceAccountToken.path ?? "") === relative);
  if (index < 0) return undefined;
  return { ...holding, token: sources[index].serviceAccountToken!, at: ["volumes", holding.volumeIndex, "projected", "sources", index, "serviceAccountToken"] };
}

/** Where `file` lies inside the volume a mount holding it mounts: relative to the volume's root, its subPath included, cleaned. */
export function pathInVolume(mount: VolumeMount, file: string): string {
  const at = mountPoint(mount.mountPath);
  const below = cleanPath(file).slice(at === "/" ? 1 : at.length + 1);
  return cleanPath(mount.subPath ? `${mount.subPath}/${below}` : below);
}
