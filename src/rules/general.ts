// Rules of the G- requirements, shared by every profile.
import { parseImage } from "../values/image.ts";
import { RECOMMENDED_LABEL_KEYS } from "../k8s/labels.ts";
import { hit, type Rule, type RuleHit } from "./engine.ts";
import { generalRequirements } from "./general-requirements.ts";
import type { JudgedSystem, SystemName } from "./judged-system.ts";
import { rule } from "./requirement-data.ts";

/** Pod Security levels, from the most permissive. */
const STRICTNESS: Record<string, number> = { privileged: 0, baseline: 1, restricted: 2 };

const SECRET_NAME = /(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)/i;

/** G-04: whether a variable's name says it holds a secret, so an inline value for it is flagged. */
export function looksLikeSecret(name: string): boolean {
  return SECRET_NAME.test(name) && !/_(FILE|PATH|MODE|REGION|PROVIDER)$/.test(name);
}

/** The G- rules for the systems given; each reads its set's system from them. */
export function generalRules(systems: readonly JudgedSystem[]): Rule[] {
  const G = generalRequirements(systems);
  const byName = new Map(systems.map((s) => [s.name, s]));
  const systemOf = (name: SystemName): JudgedSystem => {
    const system = byName.get(name);
    if (!system) throw new Error(`no system named ${name}`);
    return system;
  };
  return [
    rule(G["G-04"], {
      check(set) {
        const hits: RuleHit[] = set.ofKind("Secret").map((o) => hit(o, ["kind"], "a Secret object is rendered; its value would live in the manifests"));
        for (const { object, container, containerPath } of set.containers()) {
          (container.env ?? []).forEach((env, index) => {
            if (env.value !== undefined && looksLikeSecret(env.name)) {
              hits.push(hit(object, [...containerPath, "env", index, "value"], `${env.name} holds an inline value that looks like a secret`));
            }
          });
        }
        return hits;
      },
    }),
    rule(G["G-05"], {
      check(set) {
        const hits: RuleHit[] = [];
        const opinion = systemOf(set.profile).digestOpinion?.key;
        for (const { object, container, containerPath } of set.containers()) {
          const parsed = parseImage(String(container.image ?? ""));
          if (typeof parsed === "string")
            hits.push(hit(object, [...containerPath, "image"], `image ${JSON.stringify(container.image ?? "")} ${parsed}`, opinion));
          else if (parsed.tag)
            hits.push(hit(object, [...containerPath, "image"], `image carries tag ${parsed.tag} in the pod spec; only the digest form belongs there`, opinion));
        }
        return hits;
      },
    }),
    rule(G["G-06"], {
      check(set) {
        const hits: RuleHit[] = [];
        // A read-only root is a source document's requirement where the system's record says so (the Server's CS-02); elsewhere it is rigging's choice.
        const readOnlyOpinion = systemOf(set.profile).readOnlyRootRequired ? undefined : "read-only-root";
        for (const { object, spec, container, containerPath } of set.containers()) {
          const sc = container.securityContext ?? {};
          const at = [...containerPath, "securityContext"];
          if (container.securityContext?.privileged) hits.push(hit(object, [...at, "privileged"], "container is privileged"));
          if (sc.allowPrivilegeEscalation !== false) hits.push(hit(object, [...at, "allowPrivilegeEscalation"], "allowPrivilegeEscalation is not false"));
          if (!(sc.capabilities?.drop ?? []).includes("ALL")) hits.push(hit(object, [...at, "capabilities", "drop"], "capabilities.drop does not include ALL"));
          if ((sc.capabilities?.add ?? []).length > 0)
            hits.push(hit(object, [...at, "capabilities", "add"], `capabilities.add grants ${sc.capabilities?.add?.join(", ")}`));
          if (sc.readOnlyRootFilesystem !== true)
            hits.push(hit(object, [...at, "readOnlyRootFilesystem"], "readOnlyRootFilesystem is not true", readOnlyOpinion));
          const runAsNonRoot = sc.runAsNonRoot ?? spec.securityContext?.runAsNonRoot;
          if (runAsNonRoot !== true) hits.push(hit(object, [...at, "runAsNonRoot"], "runAsNonRoot is not true (on the container or the pod)"));
          const runAsUser = sc.runAsUser ?? spec.securityContext?.runAsUser;
          if (runAsUser === 0) hits.push(hit(object, [...at, "runAsUser"], "runAsUser is 0 (root)"));
          const seccomp = sc.seccompProfile ?? spec.securityContext?.seccompProfile;
          if (!seccomp || !["RuntimeDefault", "Localhost"].includes(seccomp.type)) {
            hits.push(hit(object, [...at, "seccompProfile"], "no RuntimeDefault or Localhost seccomp profile (on the container or the pod)"));
          }
        }
        return hits;
      },
    }),
    rule(G["G-07"], {
      check(set) {
        const hits: RuleHit[] = [];
        for (const object of set.objects) {
          const labels = object.metadata?.labels ?? {};
          const missing = RECOMMENDED_LABEL_KEYS.filter((key) => !labels[key]);
          if (missing.length > 0) hits.push(hit(object, ["metadata", "labels"], `missing label(s) ${missing.join(", ")}`));
        }
        return hits;
      },
    }),
    rule(G["G-08"], {
      check(set) {
        const hits: RuleHit[] = [];
        for (const { object, container, containerPath } of set.containers()) {
          const r = container.resources ?? {};
          const at = [...containerPath, "resources"];
          if (r.requests?.cpu === undefined) hits.push(hit(object, [...at, "requests", "cpu"], "no CPU request"));
          if (r.requests?.memory === undefined) hits.push(hit(object, [...at, "requests", "memory"], "no memory request"));
          if (r.limits?.memory === undefined) hits.push(hit(object, [...at, "limits", "memory"], "no memory limit"));
        }
        return hits;
      },
    }),
    rule(G["G-09"], {
      check(set) {
        return set
          .pods()
          .filter((pod) => (pod.spec.imagePullSecrets ?? []).length > 0)
          .map((pod) => hit(pod.object, [...pod.path, "imagePullSecrets"], "imagePullSecrets is set"));
      },
    }),
    rule(G["G-10"], {
      check(set) {
        const level = systemOf(set.profile).podSecurity;
        const hits: RuleHit[] = [];
        for (const ns of set.ofKind("Namespace")) {
          const labels = ns.metadata.labels ?? {};
          const key = "pod-security.kubernetes.io/enforce";
          const actual = labels[key];
          const at = ["metadata", "labels", key];
          if (actual === undefined)
            hits.push(hit(ns, ["metadata", "labels"], `${key} is unset: the cluster's default level applies (expected ${level})`, "enforce"));
          else if (!(actual in STRICTNESS)) hits.push(hit(ns, at, `${key} is ${JSON.stringify(actual)}, not privileged, baseline or restricted`));
          else if (STRICTNESS[actual] > STRICTNESS[level])
            hits.push(hit(ns, at, `${key} is ${actual}, stricter than the ${level} the pods pass: the API server refuses them`));
          else if (STRICTNESS[actual] < STRICTNESS[level]) hits.push(hit(ns, at, `${key} is ${actual}, expected ${level}`, "enforce"));
          if (level === "privileged") continue;
          for (const mode of ["audit", "warn"]) {
            const other = `pod-security.kubernetes.io/${mode}`;
            if (labels[other] !== level)
              hits.push(
                hit(
                  ns,
                  labels[other] === undefined ? ["metadata", "labels"] : ["metadata", "labels", other],
                  `${other} is ${labels[other] === undefined ? "unset" : JSON.stringify(labels[other])}, expected ${level}`,
                  "audit-warn",
                ),
              );
          }
        }
        return hits;
      },
    }),
  ];
}
