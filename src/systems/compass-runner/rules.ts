// Rules of the Compass Runner (CR-), judged from manifests alone. They run
// over `render`'s own output and over anyone's manifests in `check`.
import { X509Certificate } from "node:crypto";
import { httpsUrlProblem } from "../../values/common-values.ts";
import { DNS1123_SUBDOMAIN } from "../../k8s/names.ts";
import type { PodSpec } from "kubernetes-types/core/v1";
import { splitPem } from "../../parse/pem.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { isolationGaps, policiesSelecting } from "../../rules/templates.ts";
import { RUNNER_READING, RUNNER_SETTINGS as S, settingName } from "./interface.ts";
import { admissionHits } from "../../admission/judge.ts";
import { CR } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { runnerContainers } from "./rules-containers.ts";
import { isDevHostPath } from "./values.ts";
import { identityRules } from "./rules-identity.ts";
import { nodeRules } from "./rules-node.ts";
import { settingsRules } from "./rules-settings.ts";
import { dig, list } from "../../k8s/access.ts";

/** What CR-15 reports of the isolation template (beside admitted ingress): open directions and egress to everywhere. */
const RUNNER_GAPS = new Set(["ingress-not-isolated", "egress-not-isolated", "egress-anywhere", "egress-any-host", "egress-everything-cidr"]);

/** A template the CR-06 policies rightly refuse, for a reason another rule reports (CR-08, CR-09, CR-10, G-05, G-06). */
function breaksInvariant(spec: PodSpec): boolean {
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  return (
    spec.hostUsers !== false ||
    (spec.volumes ?? []).some((v) => isDevHostPath(v.hostPath?.path)) ||
    spec.hostNetwork === true ||
    spec.hostPID === true ||
    spec.hostIPC === true ||
    containers.some(
      (c) => c.securityContext?.privileged === true || (c.securityContext?.capabilities?.add ?? []).length > 0 || !/@sha256:[0-9a-f]{64}$/.test(c.image ?? ""),
    ) ||
    (spec.securityContext?.seccompProfile?.type !== "Localhost" && containers.some((c) => c.securityContext?.seccompProfile?.type !== "Localhost"))
  );
}

/** One rule per requirement, in catalog order (the order `rules` and the docs print); each hit says what is wrong at which field. */
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
  ...identityRules,
  rule(CR["CR-06"], {
    provenForRendered: "test/systems/compass-runner/admission*.test.ts evaluate the rendered policies over the request matrix",
    check(set) {
      // Judged by what the policies decide, over a matrix of requests, with the CEL engine.
      const ds = set.ofKind("DaemonSet")[0] ?? set.ofKind("Pod")[0];
      const anchor = ds ?? set.objects[0];
      if (!anchor) return [];
      const spec = ds ? set.pods().find((p) => p.object === ds)?.spec : undefined;
      const namespace = ds?.metadata.namespace ?? set.ofKind("ServiceAccount")[0]?.metadata.namespace ?? "default";
      const serviceAccount = spec?.serviceAccountName ?? set.ofKind("ServiceAccount")[0]?.metadata.name ?? "default";
      // CR-06 asks for failurePolicy: Fail: with Ignore, an unreachable or failing policy lets the request through.
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
  ...nodeRules,
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
        const policies = policiesSelecting(set, pod);
        // A set with no NetworkPolicy at all is CR-01's.
        if (policies.length === 0 && set.ofKind("NetworkPolicy").length > 0)
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy in its namespace selects the Runner pods: ingress and egress are open"));
        for (const gap of isolationGaps(policies)) {
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
  ...settingsRules,
];

function parses(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
