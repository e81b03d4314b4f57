// Runner rules about its node: one node, KVM, user namespace, seccomp, host trees, scheduling, arch (CR-07 to CR-13).
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { minorOf } from "../../k8s/kube-version.ts";
import { isLabelKey } from "../../k8s/names.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { KUBERNETES_DEFAULT_ON, KUBERNETES_FLOOR } from "./admission-notes.ts";
import { CR } from "./requirements.ts";
import { deviceResources, mountOf, runnerContainers, sameQuantity } from "./rules-containers.ts";
import {
  ARCH_LABEL,
  HOSTNAME_LABEL,
  MAX_SURGE,
  MAX_UNAVAILABLE,
  OS_LABEL,
  RUNNER_GID,
  RUNNER_READING,
  RUNNER_SETTINGS as S,
  RUNNER_UID,
  VOLUME_ROOT,
} from "./interface.ts";
import { hostPathProblem, isDevHostPath, overlaps } from "./values.ts";
import { dig } from "../../k8s/access.ts";
import { cleanPath } from "../../k8s/clean-path.ts";
import { parseQuantity } from "../../k8s/quantity.ts";
import { scaledValue } from "../../k8s/int-or-string.ts";
import { mountPoint } from "../../rules/templates.ts";

/** The value a container runs with: its own securityContext, else the pod's. */
function effective<K extends "runAsUser" | "runAsGroup">(spec: PodSpec, container: Container, key: K): number | undefined {
  return container.securityContext?.[key] ?? spec.securityContext?.[key];
}

const requiredTerms = (spec: PodSpec) => spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];

/** Values every required nodeAffinity term agrees on, by one `In` requirement on `key`. */
function requiredIn(spec: PodSpec, key: string, field: "matchExpressions" | "matchFields"): string[] | undefined {
  const terms = requiredTerms(spec);
  if (terms.length === 0) return undefined;
  const values = terms.map((t) => (t[field] ?? []).find((e) => e.key === key && e.operator === "In")?.values);
  if (values.some((v) => v === undefined)) return undefined;
  return [...new Set(values.flat() as string[])];
}

/** Node label values a pod requires: nodeSelector, or every required nodeAffinity term agreeing on one `In` list. */
function requiredLabel(spec: PodSpec, key: string): string[] | undefined {
  const selected = spec.nodeSelector?.[key];
  if (selected !== undefined) return [selected];
  return requiredIn(spec, key, "matchExpressions");
}

/** Whether the pod's node selection names anything beyond arch and os. */
function selectsNodes(spec: PodSpec): boolean {
  const narrowing = (key: string) => key !== ARCH_LABEL && key !== OS_LABEL;
  return (
    Object.keys(spec.nodeSelector ?? {}).some(narrowing) ||
    requiredTerms(spec).some((t) => [...(t.matchExpressions ?? []), ...(t.matchFields ?? [])].some((e) => narrowing(e.key)))
  );
}

/** The Runner's one node: a DaemonSet's percentages are scaled against the nodes it runs on, rounded up (daemonset util). */
function podsOnOneNode(intOrPercent: unknown): number | undefined {
  return scaledValue(intOrPercent, 1, true);
}

/** How a rollout bound is shown: as written, and why it means nothing when the API server refuses it. */
function intOrPercentText(value: unknown): string {
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  return podsOnOneNode(value) === undefined ? `${shown}, which is neither an integer nor a percentage,` : shown;
}

const ONE = parseQuantity("1")!;

/** A hostPath as the node resolves it, or why the API server or the node refuses it. */
function hostTree(path: string): { path: string; problem?: string } {
  // validatePathNoBacksteps: the API server refuses `..` in a hostPath.
  if (path.split("/").includes("..")) return { path, problem: "contains .., which the API server refuses in a hostPath" };
  if (!path.startsWith("/")) return { path, problem: "is not an absolute path" };
  // `//` and `./` name the same directory to the kernel: the cleaned path is judged.
  const cleaned = cleanPath(path);
  const problem = hostPathProblem(cleaned);
  return problem ? { path: cleaned, problem } : { path: cleaned };
}

/** What a /dev hostPath is, by value, and what delivers /dev/kvm instead: the device plugin's resource. */
function devHostPathMessage(path: string, spec: PodSpec): string {
  const cleaned = cleanPath(path);
  const shown = cleaned === path ? path : `${path} (${cleaned})`;
  const limited = (spec.containers ?? []).flatMap((c) => deviceResources(c));
  const instead = limited.length
    ? `remove the volume; the device plugin's ${limited[0]}, which the container limits, injects /dev/kvm`
    : "remove the volume and request and limit 1 of the device plugin's resource (kvmResourceName, such as devices.kubelet.io/kvm), which injects /dev/kvm";
  return `hostPath ${shown} is under /dev: ${instead} with the cgroup device allowance a hostPath lacks`;
}

export const nodeRules: Rule[] = [
  rule(CR["CR-07"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        // The hostname label, or the node's name itself (matchFields metadata.name, as the DaemonSet controller pins its pods).
        const hosts = requiredLabel(spec, HOSTNAME_LABEL) ?? requiredIn(spec, "metadata.name", "matchFields");
        if (hosts && hosts.length === 1) continue;
        if (hosts && hosts.length > 1)
          hits.push(hit(object, [...path, "affinity"], `the pod may run on ${hosts.length} nodes (${hosts.join(", ")}); the Runner runs on one`));
        else if (selectsNodes(spec)) {
          hits.push(
            hit(
              object,
              [...path, "nodeSelector"],
              `the node selection cannot prove one node; make sure exactly one node matches, or select ${HOSTNAME_LABEL}`,
              "one-node-label",
            ),
          );
        } else if (object.kind === "DaemonSet")
          hits.push(hit(object, [...path, "nodeSelector"], "no node selection: the DaemonSet starts a Runner on every node"));
      }
      for (const ds of set.ofKind("DaemonSet")) {
        const rolling = dig(ds, ["spec", "updateStrategy", "rollingUpdate"]) as { maxSurge?: unknown; maxUnavailable?: unknown } | undefined;
        const type = dig(ds, ["spec", "updateStrategy", "type"]);
        if (type === "OnDelete") continue;
        const at = ["spec", "updateStrategy", "rollingUpdate"];
        const [surge, unavailable] = [rolling?.maxSurge ?? 0, rolling?.maxUnavailable ?? 1];
        if (podsOnOneNode(surge) !== MAX_SURGE)
          hits.push(hit(ds, [...at, "maxSurge"], `maxSurge is ${intOrPercentText(surge)}, not 0: two Runners would hold one node's ID`));
        if (podsOnOneNode(unavailable) !== MAX_UNAVAILABLE)
          hits.push(hit(ds, [...at, "maxUnavailable"], `maxUnavailable is ${intOrPercentText(unavailable)}, not 1`));
      }
      return hits;
    },
  }),
  rule(CR["CR-08"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        (spec.volumes ?? []).forEach((volume, index) => {
          const p = volume.hostPath?.path;
          if (isDevHostPath(p)) hits.push(hit(object, [...path, "volumes", index, "hostPath", "path"], devHostPathMessage(p, spec)));
        });
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const requests = (container.resources?.requests ?? {}) as Record<string, unknown>;
        const limits = (container.resources?.limits ?? {}) as Record<string, unknown>;
        const extended = deviceResources(container);
        if (extended.length === 0)
          hits.push(hit(object, [...containerPath, "resources", "limits"], "no device-plugin resource (such as devices.kubevirt.io/kvm) is limited"));
        else if (!extended.some((name) => sameQuantity(limits[name], ONE)))
          hits.push(hit(object, [...containerPath, "resources", "limits", extended[0]], `limits ${extended[0]} is ${limits[extended[0]]}, not 1`));
        for (const name of extended) {
          if (requests[name] !== undefined && !sameQuantity(requests[name], limits[name]))
            hits.push(hit(object, [...containerPath, "resources", "requests", name], `requests ${name} is ${requests[name]}, but limits is ${limits[name]}`));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-09"], {
    check(set) {
      const below = belowFloor(set.run.kubeVersion);
      return set.pods().flatMap(({ object, spec, path }) => {
        if (spec.hostUsers !== false) return [hit(object, [...path, "hostUsers"], "hostUsers is not false")];
        // An API server without user namespaces drops hostUsers: false, and the pod runs in the host's.
        return below ? [hit(object, [...path, "hostUsers"], below)] : [];
      });
    },
  }),
  rule(CR["CR-10"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath, path } of runnerContainers(set)) {
        const fromContainer = container.securityContext?.seccompProfile;
        const profile = fromContainer ?? spec.securityContext?.seccompProfile;
        const at = fromContainer ? [...containerPath, "securityContext", "seccompProfile"] : [...path, "securityContext", "seccompProfile"];
        if (profile?.type !== "Localhost") {
          hits.push(hit(object, [...at, "type"], `seccomp type is ${profile?.type ?? "unset"}, not Localhost`));
          continue;
        }
        const file = profile.localhostProfile ?? "";
        if (file.startsWith("/") || file.split("/").includes("..") || !file.endsWith(".json")) {
          hits.push(hit(object, [...at, "localhostProfile"], `localhostProfile ${JSON.stringify(file)} is not a relative .json path without ..`));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-11"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        // A hostPath under /dev is CR-08's finding alone: it is neither a host tree nor one too many.
        const trees = (spec.volumes ?? [])
          .map((v, index) => ({ p: v.hostPath?.path, index }))
          .filter((t): t is { p: string; index: number } => t.p !== undefined && !isDevHostPath(t.p));
        const resolved = trees.map((t) => ({ ...t, ...hostTree(t.p) }));
        for (const tree of resolved) {
          if (tree.problem) hits.push(hit(object, [...path, "volumes", tree.index, "hostPath", "path"], `hostPath ${tree.p} ${tree.problem}`));
        }
        resolved.forEach((a, i) =>
          resolved.slice(i + 1).forEach((b) => {
            if (overlaps(a.path, b.path)) hits.push(hit(object, [...path, "volumes", b.index, "hostPath", "path"], `hostPath ${b.p} overlaps ${a.p}`));
          }),
        );
        if (trees.length !== 2)
          hits.push(hit(object, [...path, "volumes"], `${trees.length} hostPath volumes; the Runner mounts exactly two (sessions and runtime)`));
      }
      for (const { object, spec, container, containerPath } of runnerContainers(set)) {
        const uid = effective(spec, container, "runAsUser");
        const gid = effective(spec, container, "runAsGroup");
        if (uid !== RUNNER_UID || gid !== RUNNER_GID)
          hits.push(hit(object, [...containerPath, "securityContext"], `runs as ${uid ?? "?"}:${gid ?? "?"}, not ${RUNNER_UID}:${RUNNER_GID}`));
        const found = flagOrEnv(container, S.volumeRoot, RUNNER_READING);
        if (!found?.value) continue;
        const at = mountOf(spec, container, found.value);
        const where = [...containerPath, ...found.path];
        if (!at?.volume?.hostPath) hits.push(hit(object, where, `the volume root ${found.value} is not on a host tree`));
        else if (cleanPath(found.value) === mountPoint(at.mount.mountPath)) {
          hits.push(hit(object, where, `the volume root ${found.value} is the mount point itself, not a subdirectory such as ${VOLUME_ROOT} (P8)`));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-12"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path } of set.pods()) {
        for (const key of Object.keys(spec.nodeSelector ?? {}))
          if (!isLabelKey(key)) hits.push(hit(object, [...path, "nodeSelector", key], `nodeSelector key ${JSON.stringify(key)} is not a label key`));
        (spec.tolerations ?? []).forEach((t, index) => {
          const at = [...path, "tolerations", index];
          if (t.operator !== undefined && !["Exists", "Equal"].includes(t.operator))
            hits.push(hit(object, [...at, "operator"], `operator ${JSON.stringify(t.operator)} is not Exists or Equal`));
          if (t.effect !== undefined && !["", "NoSchedule", "PreferNoSchedule", "NoExecute"].includes(t.effect))
            hits.push(hit(object, [...at, "effect"], `effect ${JSON.stringify(t.effect)} is not NoSchedule, PreferNoSchedule or NoExecute`));
          if (t.operator === "Exists" && t.value) hits.push(hit(object, [...at, "value"], "value is set with operator Exists"));
          if (t.key !== undefined && t.key !== "" && !isLabelKey(t.key))
            hits.push(hit(object, [...at, "key"], `key ${JSON.stringify(t.key)} is not a taint key`));
        });
      }
      return hits;
    },
  }),
  rule(CR["CR-13"], {
    check(set) {
      return set.pods().flatMap(({ object, spec, path }) => {
        const arch = requiredLabel(spec, ARCH_LABEL);
        if (arch && arch.length === 1 && arch[0] === "amd64") return [];
        const what = arch === undefined ? "unset" : arch.join(", ");
        return [hit(object, [...path, "nodeSelector", ARCH_LABEL], `${ARCH_LABEL} is ${what}, not amd64 alone`)];
      });
    },
  }),
];

/** Why Kubernetes `version` (1.N) is below the Runner's floor, or undefined: 1.33, or 1.32 with the feature gates. */
export function belowFloor(version: string | undefined): string | undefined {
  if (version === undefined || minorOf(version) >= minorOf(KUBERNETES_FLOOR)) return undefined;
  return `Kubernetes ${version} (--kube-version) runs no pod in a user namespace as the Runner needs: it needs ${KUBERNETES_DEFAULT_ON} or newer, or ${KUBERNETES_FLOOR} with the feature gates UserNamespacesSupport=true and ProcMountType=true on the API server and the kubelet`;
}
