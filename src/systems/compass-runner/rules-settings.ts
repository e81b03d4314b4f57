// Runner rules about what compass-runner reads and how it runs: no Runner ID, resources, no probe, forbidden and unknown settings (CR-17, CR-19, CR-20).
import type { Container } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../k8s/objects.ts";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { closest } from "../../values/values.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { CR } from "./requirements.ts";
import { mountOf, runnerContainers, sameQuantity } from "./rules-containers.ts";
import { FORBIDDEN_SETTINGS, OTHER_RUNNER_VARIABLES, RUNNER_READING, RUNNER_SETTINGS as S, settingName } from "./interface.ts";
import { dig } from "../../k8s/access.ts";
import { compareQuantity, parseQuantity, type Quantity } from "../../k8s/quantity.ts";

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

/** A guest size in MiB (an integer compass-runner reads) as a quantity of bytes. */
function mebibytes(text: string): Quantity {
  return { mantissa: BigInt(text) * 1048576n, exponent: 0, format: "BinarySI", form: "dec" };
}

/** The quota switch: a Go bool flag, read as `flag || ParseBool(env)`, so a true (or unreadable) flag wins. */
function quotaRequired(container: Container): { value: string; at: PropertyKey[]; via: "flag" | "env" } | undefined {
  const found = flagOrEnv(container, S.quotaRequired, { ...RUNNER_READING, precedence: "trueFlag" });
  return found?.value === undefined ? undefined : { value: found.value, at: found.path, via: found.from === "flag" ? "flag" : "env" };
}

/** A forbidden name the container surely sets: an `envFrom` source outside the input only might. */
function given(container: Container, names: { flag?: string; env?: string }) {
  const found = flagOrEnv(container, names, RUNNER_READING);
  return found?.from === "envFrom" ? undefined : found;
}

const KNOWN_VARIABLES: string[] = [
  ...Object.values(S).flatMap((s) => ("env" in s ? [s.env] : [])),
  ...OTHER_RUNNER_VARIABLES,
  ...FORBIDDEN_SETTINGS.map((f) => f.env),
];
/** The same names as a set: CR-20 asks once per variable of every container. */
const KNOWN_VARIABLE_SET: ReadonlySet<string> = new Set(KNOWN_VARIABLES);

/** A failed liveness or startup probe restarts the container, and a restart tears down every session on the node. */
const RESTARTS = {
  livenessProbe: "a liveness probe on the Runner container: when it fails, the kubelet restarts the container",
  startupProbe: "a startup probe on the Runner container: when it fails, the kubelet restarts the container, as for a liveness probe",
} as const;
const NETWORK_HANDLERS = ["httpGet", "tcpSocket", "grpc"] as const;

function probeHits(object: K8sObject, container: Container, containerPath: PropertyKey[]): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const probe of ["livenessProbe", "startupProbe"] as const) {
    if (container[probe] !== undefined && container[probe] !== null)
      hits.push(hit(object, [...containerPath, probe], `${RESTARTS[probe]}, and a restart tears down every microVM session on the node`));
  }
  const readiness = container.readinessProbe;
  if (readiness !== undefined && readiness !== null) {
    // A readiness probe restarts nothing: sessions survive, so it is upstream's choice, not a broken Runner.
    const network = NETWORK_HANDLERS.find((h) => readiness[h] !== undefined);
    const message = network
      ? `a readiness probe (${network}) on the Runner container, which listens on nothing: it never passes, so the pod never turns Ready`
      : "a readiness probe on the Runner container, which upstream's tool does not render: the pod is Ready only while it passes";
    hits.push(hit(object, [...containerPath, "readinessProbe"], message, "readiness-probe"));
  }
  return hits;
}

export const settingsRules: Rule[] = [
  rule(CR["CR-17"], {
    check(set) {
      const id = FORBIDDEN_SETTINGS[0];
      return runnerContainers(set).flatMap(({ object, container, containerPath }) => {
        const found = given(container, id);
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
        if (requests.memory === undefined || !sameQuantity(requests.memory, limits.memory))
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
        const limit = parseQuantity(limits.memory);
        // By value: `1Gi`, `1024Mi` and `1073741824` are one limit; the guest's size is strconv.Atoi's MiB.
        if (memoryMb !== undefined && limit && goIntProblem(memoryMb) === undefined && compareQuantity(limit, mebibytes(memoryMb)) < 0) {
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
        hits.push(...probeHits(object, container, containerPath));
      }
      return hits;
    },
  }),
  rule(CR["CR-20"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath } of runnerContainers(set)) {
        for (const forbidden of FORBIDDEN_SETTINGS.slice(1)) {
          const found = given(container, forbidden);
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
