// Runner rules about its node: one node, KVM, user namespace, seccomp, host trees, scheduling, arch (CR-07 to CR-13).
import { posix } from "node:path";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { isLabelKey } from "../../k8s/names.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { CR } from "./requirements.ts";
import { mountOf, runnerContainers } from "./rules-containers.ts";
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
} from "./runtime.ts";
import { hostPathProblem, overlaps } from "./values.ts";
import { dig } from "../../k8s/access.ts";

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

/** posix.normalize without one trailing slash (CR-11's comparison of the volume root with its mount). */
function normalizedDir(path: string): string {
  return posix.normalize(path).replace(/\/$/, "");
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
        if (String(rolling?.maxSurge ?? 0) !== String(MAX_SURGE))
          hits.push(
            hit(ds, ["spec", "updateStrategy", "rollingUpdate", "maxSurge"], `maxSurge is ${rolling?.maxSurge}, not 0: two Runners would hold one node's ID`),
          );
        if (String(rolling?.maxUnavailable ?? 1) !== String(MAX_UNAVAILABLE))
          hits.push(hit(ds, ["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"], `maxUnavailable is ${rolling?.maxUnavailable}, not 1`));
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
          if (p !== undefined && (p === "/dev" || p.startsWith("/dev/")))
            hits.push(hit(object, [...path, "volumes", index, "hostPath", "path"], `hostPath ${p} is under /dev`));
        });
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const requests = (container.resources?.requests ?? {}) as Record<string, unknown>;
        const limits = (container.resources?.limits ?? {}) as Record<string, unknown>;
        const extended = Object.keys(limits).filter((name) => name.includes("/") && !name.startsWith("hugepages-"));
        if (extended.length === 0)
          hits.push(hit(object, [...containerPath, "resources", "limits"], "no device-plugin resource (such as devices.kubevirt.io/kvm) is limited"));
        else if (!extended.some((name) => String(limits[name]) === "1"))
          hits.push(hit(object, [...containerPath, "resources", "limits", extended[0]], `limits ${extended[0]} is ${limits[extended[0]]}, not 1`));
        for (const name of extended) {
          if (requests[name] !== undefined && String(requests[name]) !== String(limits[name]))
            hits.push(hit(object, [...containerPath, "resources", "requests", name], `requests ${name} is ${requests[name]}, but limits is ${limits[name]}`));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-09"], {
    check(set) {
      return set
        .pods()
        .filter(({ spec }) => spec.hostUsers !== false)
        .map(({ object, path }) => hit(object, [...path, "hostUsers"], "hostUsers is not false"));
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
        const trees = (spec.volumes ?? [])
          .map((v, index) => ({ p: v.hostPath?.path, index }))
          .filter((t): t is { p: string; index: number } => t.p !== undefined);
        for (const tree of trees) {
          const problem = hostPathProblem(tree.p);
          if (problem && !tree.p.startsWith("/dev"))
            hits.push(hit(object, [...path, "volumes", tree.index, "hostPath", "path"], `hostPath ${tree.p} ${problem}`));
        }
        trees.forEach((a, i) =>
          trees.slice(i + 1).forEach((b) => {
            if (overlaps(a.p, b.p)) hits.push(hit(object, [...path, "volumes", b.index, "hostPath", "path"], `hostPath ${b.p} overlaps ${a.p}`));
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
        else if (normalizedDir(found.value) === normalizedDir(at.mount.mountPath)) {
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
