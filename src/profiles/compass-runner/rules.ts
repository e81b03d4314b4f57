// Rules of the Compass Runner (CR-), judged from manifests alone. They run
// over `render`'s own output and over anyone's manifests in `check`.
import { X509Certificate } from "node:crypto";
import { httpsUrlProblem } from "../../core/common-values.ts";
import { DNS1123_SUBDOMAIN, isLabelKey } from "../../core/names.ts";
import { posix } from "node:path";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { splitPem } from "../../core/pem.ts";
import { closest } from "../../core/values.ts";
import type { K8sObject } from "../../core/objects.ts";
import { flagOrEnv } from "../../core/flag-or-env.ts";
import { dig, hit, type ContainerRef, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { isolationGaps, list, mountHolding, policiesSelecting } from "../../rules/templates.ts";
import {
  ARCH_LABEL,
  FORBIDDEN_SETTINGS,
  HOSTNAME_LABEL,
  MAX_SURGE,
  MAX_UNAVAILABLE,
  OS_LABEL,
  OTHER_RUNNER_VARIABLES,
  RUNNER_AUDIENCE,
  RUNNER_GID,
  RUNNER_READING,
  RUNNER_SETTINGS as S,
  RUNNER_UID,
  settingName,
  TOKEN_MAX_SECONDS,
  TOKEN_MIN_SECONDS,
  TOKEN_PATH,
  VOLUME_ROOT,
} from "./runtime.ts";
import { admissionHits } from "../../admission/judge.ts";
import { hostPathProblem, overlaps } from "./values.ts";
import { serverClusterFiles } from "../compass-server/objects.ts";
import type { ParsedCluster } from "../compass-server/runner-clusters.ts";
import { CR } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";

/** What CR-15 reports of the isolation template (beside admitted ingress): open directions and egress to everywhere. */
const RUNNER_GAPS = new Set(["ingress-not-isolated", "egress-not-isolated", "egress-anywhere", "egress-any-host", "egress-everything-cidr"]);
const RBAC_KINDS = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

/** The Runner's own containers (not init containers) of its DaemonSet or Pod; found once per set, nine rules ask. */
function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.derived(findRunnerContainers);
}

function findRunnerContainers(set: ObjectSet): ContainerRef[] {
  const found = set.containers().filter((c) => (c.object.kind === "DaemonSet" || c.object.kind === "Pod") && c.containerPath.at(-2) === "containers");
  return Object.freeze(found) as ContainerRef[];
}

/** The mount (and its volume) that holds `file`, the deepest first (the shared volume template). */
function mountOf(spec: PodSpec, container: Container, file: string) {
  const held = mountHolding({ spec }, container, file);
  return held && { mount: held.mount, volume: held.volume, index: held.volumeIndex };
}

/** The projected token a Runner container reads as its token file, with the path to it. */
function runnerToken(spec: PodSpec, container: Container, path: PropertyKey[]) {
  const found = flagOrEnv(container, S.tokenFile, RUNNER_READING);
  if (!found) return undefined;
  const at = mountOf(spec, container, found.value ?? TOKEN_PATH);
  const sources = at?.volume?.projected?.sources ?? [];
  const index = sources.findIndex((s) => s.serviceAccountToken);
  if (!at || index < 0) return undefined;
  return { token: sources[index].serviceAccountToken!, where: [...path, "volumes", at.index, "projected", "sources", index, "serviceAccountToken"] };
}

/** A Server cluster entry in the same stream, with the ConfigMap it was read from. */
interface StreamEntry {
  cluster: ParsedCluster;
  file: string;
}

/** Every cluster entry of every Server judged with this Runner (none when it is judged alone). */
function serverEntries(set: ObjectSet): StreamEntry[] {
  return set
    .others("compass-server")
    .flatMap((server) =>
      serverClusterFiles(server).flatMap((f) =>
        f.clusters.map((cluster) => ({ cluster, file: `ConfigMap ${f.cm.metadata.namespace ?? "default"}/${f.cm.metadata.name}` })),
      ),
    );
}

/** The entries that name the pod's namespace and ServiceAccount: the ones whose tokens the Server takes from it. */
function entriesFor(entries: readonly StreamEntry[], object: { metadata: { namespace?: string } }, spec: PodSpec): StreamEntry[] {
  const namespace = object.metadata.namespace ?? "default";
  const account = spec.serviceAccountName ?? "default";
  return entries.filter(({ cluster }) => cluster.namespace === namespace && cluster.serviceAccount === account);
}

const describeEntry = ({ cluster, file }: StreamEntry) =>
  `${cluster.name || "(unnamed)"} in ${file}: namespace ${cluster.namespace || "(unset)"}, ServiceAccount ${cluster.serviceAccount || "(unset)"}`;

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

/** strconv.ParseBool's spellings. */
const BOOL = /^(1|0|t|f|T|F|true|false|TRUE|FALSE|True|False)$/;
/** What Go's strconv.Atoi reads on a 64-bit node: an optional sign and decimal digits within int64. */
const GO_INT = /^[+-]?\d+$/;
const INT64_MAX = 9223372036854775807n;
/** The int knobs' complaint about `text`, or undefined when compass-runner parses it. Linear in its length. */
function goIntProblem(text: string): string | undefined {
  if (!GO_INT.test(text)) return "is not an integer";
  // At most 18 digits is below 2^63, so no BigInt is needed.
  if (text.length <= 18) return undefined;
  const digits = text.replace(/^[+-]?0*/, "");
  const negative = text.startsWith("-");
  if (digits.length > 19 || BigInt(digits || "0") > INT64_MAX + (negative ? 1n : 0n)) return "is out of range for a 64-bit integer";
  return undefined;
}
const TRUE = /^(1|t|T|true|TRUE|True)$/;

/** The quota switch: a Go bool flag, read as `flag || ParseBool(env)`, so a true (or unreadable) flag wins. */
function quotaRequired(container: Container): { value: string; at: PropertyKey[]; via: "flag" | "env" } | undefined {
  const found = flagOrEnv(container, S.quotaRequired, { ...RUNNER_READING, precedence: "trueFlag" });
  return found?.value === undefined ? undefined : { value: found.value, at: found.path, via: found.from === "flag" ? "flag" : "env" };
}

/** posix.normalize without one trailing slash (CR-11's comparison of the volume root with its mount). */
function normalizedDir(path: string): string {
  return posix.normalize(path).replace(/\/$/, "");
}

/** A template the CR-06 policies rightly refuse, for a reason another rule reports (CR-09, CR-10, G-05, G-06). */
function breaksInvariant(spec: PodSpec): boolean {
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  return (
    spec.hostUsers !== false ||
    spec.hostNetwork === true ||
    spec.hostPID === true ||
    spec.hostIPC === true ||
    containers.some(
      (c) => c.securityContext?.privileged === true || (c.securityContext?.capabilities?.add ?? []).length > 0 || !/@sha256:[0-9a-f]{64}$/.test(c.image ?? ""),
    ) ||
    (spec.securityContext?.seccompProfile?.type !== "Localhost" && containers.some((c) => c.securityContext?.seccompProfile?.type !== "Localhost"))
  );
}

const KNOWN_VARIABLES: string[] = [
  ...Object.values(S).flatMap((s) => ("env" in s ? [s.env] : [])),
  ...OTHER_RUNNER_VARIABLES,
  ...FORBIDDEN_SETTINGS.map((f) => f.env),
];
/** The same names as a set: CR-20 asks once per variable of every container. */
const KNOWN_VARIABLE_SET: ReadonlySet<string> = new Set(KNOWN_VARIABLES);

/** One rule per requirement; each hit says what is wrong at which field. */
export const compassRunnerRules: Rule[] = [
  rule(CR["CR-01"], {
    check(set) {
      const anchor = set.ofKind("DaemonSet")[0] ?? set.objects[0];
      if (!anchor) return [];
      const hits: RuleHit[] = [];
      for (const kind of ["ServiceAccount", "DaemonSet", "NetworkPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]) {
        if (set.ofKind(kind).length === 0) hits.push(hit(anchor, [], `the Runner set has no ${kind}`));
      }
      if (set.ofKind("DaemonSet").length > 1) hits.push(hit(set.ofKind("DaemonSet")[1], [], "more than one Runner DaemonSet"));
      return hits;
    },
  }),
  rule(CR["CR-02"], {
    check(set) {
      return runnerContainers(set).flatMap(({ object, container, containerPath }) => {
        const found = flagOrEnv(container, S.server, RUNNER_READING);
        if (!found) return [hit(object, containerPath, `the Server address is not set (${settingName(S.server)})`)];
        if (found.value === undefined) return [];
        const problem = httpsUrlProblem(found.value);
        return problem ? [hit(object, [...containerPath, ...found.path], `the Server address ${problem}`)] : [];
      });
    },
  }),
  rule(CR["CR-03"], {
    check(set) {
      const hits: RuleHit[] = [];
      const entries = serverEntries(set);
      for (const { object, spec, path, container, containerPath } of runnerContainers(set)) {
        const found = flagOrEnv(container, S.tokenFile, RUNNER_READING);
        if (!found) {
          hits.push(hit(object, containerPath, `no token file is set (${settingName(S.tokenFile)})`));
          continue;
        }
        const file = found.value ?? TOKEN_PATH;
        const at = mountOf(spec, container, file);
        const sources = at?.volume?.projected?.sources ?? [];
        const tokenAt = sources.findIndex((s) => s.serviceAccountToken);
        if (!at || tokenAt < 0) {
          hits.push(hit(object, [...path, "volumes"], `no projected ServiceAccount token is mounted at ${posix.dirname(file)}`));
          continue;
        }
        const token = sources[tokenAt].serviceAccountToken!;
        const where = [...path, "volumes", at.index, "projected", "sources", tokenAt, "serviceAccountToken"];
        if (token.audience !== RUNNER_AUDIENCE)
          hits.push(hit(object, [...where, "audience"], `audience is ${JSON.stringify(token.audience ?? "")}, not ${RUNNER_AUDIENCE}`));
        if (posix.join(at.mount.mountPath, token.path) !== file)
          hits.push(hit(object, [...where, "path"], `the token is at ${posix.join(at.mount.mountPath, token.path)}, not at the token file ${file}`));
        const seconds = token.expirationSeconds;
        if (typeof seconds !== "number" || seconds < TOKEN_MIN_SECONDS || seconds > TOKEN_MAX_SECONDS) {
          hits.push(
            hit(object, [...where, "expirationSeconds"], `expirationSeconds ${seconds ?? "(unset)"} is outside ${TOKEN_MIN_SECONDS}..${TOKEN_MAX_SECONDS}`),
          );
        }
        // With the Server in the same input: no higher than its entry's maxTokenLifetime.
        const mine = entriesFor(entries, object, spec);
        if (typeof seconds === "number" && mine.length > 0 && mine.every((e) => seconds > e.cluster.maxTokenLifetimeSeconds)) {
          const limits = mine.map((e) => `${e.cluster.name} in ${e.file}: ${e.cluster.maxTokenLifetimeSeconds}s`).join("; ");
          hits.push(
            hit(
              object,
              [...where, "expirationSeconds"],
              `expirationSeconds ${seconds} is above the Server cluster entry's maxTokenLifetime (${limits}): the Server refuses the token`,
            ),
          );
        }
        if (at.mount.readOnly !== true) hits.push(hit(object, containerPath, `the token mount at ${at.mount.mountPath} is not readOnly`));
        const ca = flagOrEnv(container, S.ca, RUNNER_READING);
        const caVolume = ca?.value ? mountOf(spec, container, ca.value)?.volume?.name : undefined;
        (spec.volumes ?? []).forEach((volume, i) => {
          if (volume.name === caVolume) return;
          if (volume.secret)
            hits.push(
              hit(object, [...path, "volumes", i, "secret"], `Secret volume ${volume.name} is a second credential (only the Server CA may come from a Secret)`),
            );
          (volume.projected?.sources ?? []).forEach((source, j) => {
            if (source.secret)
              hits.push(
                hit(
                  object,
                  [...path, "volumes", i, "projected", "sources", j, "secret"],
                  `Secret ${source.secret.name ?? ""} projected into volume ${volume.name} is a second credential (only the Server CA may come from a Secret)`,
                ),
              );
          });
        });
      }
      return hits;
    },
  }),
  rule(CR["CR-04"], {
    check(set) {
      const hits: RuleHit[] = [];
      const names = new Set(set.ofKind("ServiceAccount").map((sa) => `${sa.metadata.namespace}/${sa.metadata.name}`));
      for (const { object, spec, path } of set.pods()) {
        if (names.size > 0 && !names.has(`${object.metadata.namespace}/${spec.serviceAccountName ?? "default"}`)) {
          hits.push(
            hit(object, [...path, "serviceAccountName"], `the pod runs as ServiceAccount ${spec.serviceAccountName ?? "default"}, not the Runner's own`),
          );
        }
      }
      // The Server in the same input: its cluster entry must name this Runner.
      const entries = serverEntries(set);
      if (entries.length === 0) return hits;
      for (const { object, spec, path, container } of runnerContainers(set)) {
        const mine = entriesFor(entries, object, spec);
        if (mine.length === 0) {
          const shown = entries.slice(0, 3).map(describeEntry).join("; ") + (entries.length > 3 ? `; and ${entries.length - 3} more` : "");
          hits.push(
            hit(
              object,
              [...path, "serviceAccountName"],
              `no cluster entry of the Server in this input names namespace ${object.metadata.namespace ?? "default"} and ServiceAccount ${spec.serviceAccountName ?? "default"}, so the Server refuses this Runner's token (entries: ${shown})`,
            ),
          );
          continue;
        }
        const token = runnerToken(spec, container, path);
        const audience = token?.token.audience;
        if (audience !== undefined && !mine.some((e) => e.cluster.audience === audience)) {
          const theirs = mine.map((e) => `${e.cluster.name} in ${e.file}: ${e.cluster.audience}`).join("; ");
          hits.push(hit(object, [...token!.where, "audience"], `the token's audience ${audience} is not the Server cluster entry's (${theirs})`));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-05"], {
    check(set) {
      const hits: RuleHit[] = set.objects
        .filter((o) => RBAC_KINDS.includes(o.kind))
        .map((o) => hit(o, ["kind"], `${o.kind} in the Runner set: the Runner needs no API access`));
      for (const sa of set.ofKind("ServiceAccount")) {
        if (sa.automountServiceAccountToken !== false) hits.push(hit(sa, ["automountServiceAccountToken"], "automountServiceAccountToken is not false"));
      }
      for (const { object, spec, path } of set.pods()) {
        if (spec.automountServiceAccountToken !== false)
          hits.push(hit(object, [...path, "automountServiceAccountToken"], "automountServiceAccountToken is not false on the pod"));
      }
      return hits;
    },
  }),
  rule(CR["CR-06"], {
    provenForRendered: "test/profiles/compass-runner-admission*.test.ts evaluate the rendered policies over the request matrix",
    check(set) {
      // Judged by what the policies decide, over a matrix of requests, with the CEL engine.
      const ds = set.ofKind("DaemonSet")[0] ?? set.ofKind("Pod")[0];
      const anchor = ds ?? set.objects[0];
      if (!anchor) return [];
      const spec = ds ? set.pods().find((p) => p.object === ds)?.spec : undefined;
      const namespace = ds?.metadata.namespace ?? set.ofKind("ServiceAccount")[0]?.metadata.namespace ?? "default";
      const serviceAccount = spec?.serviceAccountName ?? set.ofKind("ServiceAccount")[0]?.metadata.name ?? "default";
      // The seed states failurePolicy: Fail: with Ignore, an unreachable or failing policy lets the request through.
      const failOpen = set
        .ofKind("ValidatingAdmissionPolicy")
        .filter((p) => dig(p, ["spec", "failurePolicy"]) === "Ignore")
        .map((p) => hit(p, ["spec", "failurePolicy"], "failurePolicy is Ignore, not Fail: a policy that cannot be evaluated lets the request through"));
      return [
        ...failOpen,
        ...admissionHits(
          set.objects,
          {
            namespace,
            serviceAccount,
            ...(ds?.kind === "DaemonSet" ? { daemonSet: ds } : {}),
            anchor,
            templateBroken: spec ? breaksInvariant(spec) : false,
          },
          set.run,
        ),
      ];
    },
  }),
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
  rule(CR["CR-14"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const cm of set.ofKind("ConfigMap")) {
        const pem = (cm.data as Record<string, string> | undefined)?.["ca.crt"];
        if (pem === undefined) continue;
        const { blocks } = splitPem(pem, "CERTIFICATE");
        const bad = blocks.length === 0 || blocks.some((b) => !parses(b));
        if (bad) hits.push(hit(cm, ["data", "ca.crt"], "ca.crt does not parse as PEM certificates"));
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const found = flagOrEnv(container, S.serverName, RUNNER_READING);
        if (found?.value !== undefined && !DNS1123_SUBDOMAIN.test(found.value))
          hits.push(hit(object, [...containerPath, ...found.path], `--server-name ${JSON.stringify(found.value)} is not a DNS name`));
        if (found)
          hits.push(hit(object, [...containerPath, ...found.path], "--server-name is P9's (designed): the released Runner exits 2 on it", "designed-flag"));
      }
      return hits;
    },
  }),
  rule(CR["CR-15"], {
    check(set) {
      const hits: RuleHit[] = [];
      // The Server's ports are parsed only when an egress gap asks for them.
      // A container that is no mapping still fails here first.
      let serverPorts: Set<number> | undefined;
      const portsOfServer = () =>
        (serverPorts ??= new Set(
          runnerContainers(set).flatMap(({ container }) => {
            const value = flagOrEnv(container, S.server, RUNNER_READING)?.value;
            return value && URL.canParse(value) ? [Number(new URL(value).port || 443)] : [];
          }),
        ));
      if (runnerContainers(set).some(({ container }) => container === null || container === undefined)) portsOfServer();
      // A Server known only by host name: its TLS port to any address is as narrow as a NetworkPolicy can be.
      const serverPortOnly = (policy: K8sObject, index: PropertyKey) => {
        const ports = list<{ port?: unknown; protocol?: string }>(dig(policy, ["spec", "egress", index as number, "ports"]));
        return ports.length > 0 && ports.every((p) => (p?.protocol ?? "TCP") === "TCP" && portsOfServer().has(Number(p?.port)));
      };
      const seen = new Map<K8sObject, Set<string>>();
      for (const pod of set.pods()) {
        for (const gap of isolationGaps(policiesSelecting(set, pod))) {
          // Each gap once, however many pods one policy selects.
          const key = gap.path.join(".");
          const keys = seen.get(gap.object) ?? seen.set(gap.object, new Set()).get(gap.object)!;
          if (keys.has(key)) continue;
          keys.add(key);
          if (gap.path[1] === "egress" && gap.path.length > 2 && serverPortOnly(gap.object, gap.path[2])) continue;
          if (gap.kind === "ingress-allowed") hits.push(hit(gap.object, gap.path, `${gap.message}; the Runner accepts no connections`));
          else if (RUNNER_GAPS.has(gap.kind)) hits.push(hit(gap.object, gap.path, gap.message));
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-16"], {
    check(set) {
      const hits: RuleHit[] = set.ofKind("Service").map((s) => hit(s, ["kind"], "a Service for the Runner, which serves nothing"));
      for (const { object, container, containerPath } of runnerContainers(set)) {
        if ((container.ports ?? []).length > 0) hits.push(hit(object, [...containerPath, "ports"], "the Runner container declares ports"));
      }
      for (const object of set.objects) {
        for (const [where, annotations] of [
          [["metadata", "annotations"], object.metadata.annotations],
          [["spec", "template", "metadata", "annotations"], dig(object, ["spec", "template", "metadata", "annotations"])],
        ] as const) {
          for (const key of Object.keys((annotations as Record<string, string> | undefined) ?? {})) {
            if (key.startsWith("prometheus.io/")) hits.push(hit(object, [...where, key], `scrape annotation ${key}`));
          }
        }
      }
      return hits;
    },
  }),
  rule(CR["CR-17"], {
    check(set) {
      const id = FORBIDDEN_SETTINGS[0];
      return runnerContainers(set).flatMap(({ object, container, containerPath }) => {
        const found = flagOrEnv(container, id, RUNNER_READING);
        return found ? [hit(object, [...containerPath, ...found.path], `${settingName(id)} sets a Runner ID`)] : [];
      });
    },
  }),
  rule(CR["CR-19"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, path, container, containerPath } of runnerContainers(set)) {
        const requests = (container.resources?.requests ?? {}) as Record<string, unknown>;
        const limits = (container.resources?.limits ?? {}) as Record<string, unknown>;
        const at = [...containerPath, "resources"];
        if (requests.memory === undefined || String(requests.memory) !== String(limits.memory))
          hits.push(
            hit(
              object,
              [...at, "requests", "memory"],
              `memory request ${requests.memory ?? "(unset)"} is not the memory limit ${limits.memory ?? "(unset)"}`,
              "memory-request",
            ),
          );
        if (requests.cpu === undefined) hits.push(hit(object, [...at, "requests", "cpu"], "no cpu request", "cpu-request"));
        if (limits.cpu !== undefined) hits.push(hit(object, [...at, "limits", "cpu"], `a cpu limit (${limits.cpu}) throttles the guests' VMMs`, "cpu-limit"));
        const memoryMb = flagOrEnv(container, S.memoryMb, RUNNER_READING)?.value;
        const limitMi = typeof limits.memory === "string" && /^\d+Mi$/.test(limits.memory) ? Number.parseInt(limits.memory, 10) : undefined;
        if (memoryMb && /^\d+$/.test(memoryMb) && limitMi !== undefined && limitMi < Number(memoryMb)) {
          hits.push(
            hit(
              object,
              [...at, "limits", "memory"],
              `the memory limit ${limits.memory} is below one guest's ${memoryMb} MiB: guest RAM is charged to the pod, so the first session OOM-kills the Runner`,
            ),
          );
        }
        if (!spec.priorityClassName)
          hits.push(
            hit(object, [...path, "priorityClassName"], "no priorityClassName: ordinary workloads can preempt the Runner and its sessions", "priority-class"),
          );
        const sc = container.securityContext;
        if (sc?.procMount !== "Unmasked")
          hits.push(hit(object, [...containerPath, "securityContext", "procMount"], `procMount is ${sc?.procMount ?? "Default"}, not Unmasked`));
        const apparmor =
          sc?.appArmorProfile?.type ??
          spec.securityContext?.appArmorProfile?.type ??
          (object.kind === "Pod"
            ? object.metadata.annotations
            : (dig(object, ["spec", "template", "metadata", "annotations"]) as Record<string, string> | undefined))?.[
            `container.apparmor.security.beta.kubernetes.io/${container.name}`
          ];
        if (apparmor !== "Unconfined" && apparmor !== "unconfined")
          hits.push(hit(object, [...containerPath, "securityContext", "appArmorProfile"], `AppArmor is ${apparmor ?? "the runtime default"}, not Unconfined`));
      }
      return hits;
    },
  }),
  rule(CR["CR-20"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath } of runnerContainers(set)) {
        for (const forbidden of FORBIDDEN_SETTINGS.slice(1)) {
          const found = flagOrEnv(container, forbidden, RUNNER_READING);
          if (found) hits.push(hit(object, [...containerPath, ...found.path], `${settingName(forbidden)}: ${forbidden.why}`));
        }
        const runRoot = flagOrEnv(container, S.runRoot, RUNNER_READING);
        if (!runRoot) hits.push(hit(object, containerPath, `no microVM run root (${settingName(S.runRoot)}): the Runner stops at boot`));
        else if (runRoot.value) {
          const at = mountOf(spec, container, runRoot.value);
          const readOnlyRoot = container.securityContext?.readOnlyRootFilesystem === true;
          if ((at === undefined && readOnlyRoot) || at?.mount.readOnly)
            hits.push(hit(object, [...containerPath, ...runRoot.path], `the run root ${runRoot.value} is not on a writable mount`));
        }
        const quota = quotaRequired(container);
        if (quota && !BOOL.test(quota.value))
          hits.push(
            hit(
              object,
              [...containerPath, ...quota.at],
              `${quota.via === "flag" ? S.quotaRequired.flag : S.quotaRequired.env} ${JSON.stringify(quota.value)} is not a boolean`,
            ),
          );
        if (quota && TRUE.test(quota.value) && !flagOrEnv(container, S.volumeRoot, RUNNER_READING))
          hits.push(hit(object, containerPath, `a quota is required but no volume root is set (${settingName(S.volumeRoot)})`));
        for (const setting of [S.memoryMb, S.cpus]) {
          const found = flagOrEnv(container, setting, RUNNER_READING);
          const problem = found?.value === undefined ? undefined : goIntProblem(found.value);
          if (found && problem) hits.push(hit(object, [...containerPath, ...found.path], `${settingName(setting)} ${JSON.stringify(found.value)} ${problem}`));
        }
        (container.env ?? []).forEach((env, index) => {
          if (!env.name.startsWith("COMPASS_") || KNOWN_VARIABLE_SET.has(env.name)) return;
          // A did-you-mean only for names of a plausible length: the edit distance is quadratic.
          const near = env.name.length <= 64 ? closest(env.name, KNOWN_VARIABLES) : undefined;
          hits.push(
            hit(
              object,
              [...containerPath, "env", index, "name"],
              `${env.name} is not a name compass-runner reads${near ? ` (did you mean ${near}?)` : ""}`,
              "unknown-variable",
            ),
          );
        });
      }
      return hits;
    },
  }),
];

function parses(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
