// Server rules about the release and Runner enrolment (CS-13 forge writes, CS-14, CS-15).
import { type ContainerRef, hit, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { configMapFile, serverContainers } from "../compass-contract/server-objects.ts";
import { readRunnerClusters } from "../compass-contract/runner-clusters.ts";
import { inClusterIssuer, ISSUER_DISCOVERY_ROLE, JWKS_PATH, UNAUTHENTICATED_GROUP } from "../compass-contract/interface.ts";
import { GO_BOOL, SERVER_INTERFACE as F } from "./interface.ts";
import { flagOrEnv, givenFlags } from "../../k8s/flag-or-env.ts";
import { settingPath } from "./settings.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";
import { CS } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { dig, isRecord, list } from "../../k8s/access.ts";
import type { K8sObject } from "../../k8s/objects.ts";

export const releaseRules: Rule[] = [
  rule(CS["CS-14"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set))
        for (const flag of givenFlags(ref.container, SERVER_READING).filter((f) => f.flag === F.adminTokenFile.flag))
          hits.push(hit(ref.object, [...ref.containerPath, ...flag.path], `${flag.flag} is P4's (designed): the released Server exits 2 on it`));
      return hits;
    },
  }),
  rule(CS["CS-15"], {
    check(set) {
      const hits: RuleHit[] = [];
      const opened = discoveryOpened(set);
      for (const ref of serverContainers(set)) {
        const path = flagOrEnv(ref.container, F.runnerClusters, SERVER_READING);
        const file = path?.value ? configMapFile(set, ref.spec, ref.container, path.value) : undefined;
        if (!file) continue;
        const where = ["data", file.key];
        for (const c of readRunnerClusters(file.text).clusters) {
          if (!inClusterIssuer(c.issuer) || c.jwksFile || (c.jwksURI && !inClusterIssuer(c.jwksURI))) continue;
          const named = `cluster ${c.name || "?"} (issuer ${c.issuer}, this cluster's API server)`;
          if (!c.caFile)
            hits.push(
              hit(
                file.cm,
                where,
                `${named} has no jwksFile and no caFile: the Server fetches its keys with the system roots, which do not hold the cluster CA`,
              ),
            );
          if (!opened)
            hits.push(
              hit(
                file.cm,
                where,
                `${named} has no jwksFile, and no ClusterRoleBinding in this set opens issuer discovery to ${UNAUTHENTICATED_GROUP}: the Server sends no credentials, so its keys stay unavailable`,
              ),
            );
        }
      }
      return hits;
    },
  }),
];

/** CS-13: with default scope enforcement the reviewer App without grants refuses every write; values the manifest hides are not judged. */
export function forgeWritesRefused(ref: ContainerRef): RuleHit[] {
  const reviewer = flagOrEnv(ref.container, F.forgeReviewerAppId, SERVER_READING);
  if (!reviewer || (Array.isArray(ref.container.envFrom) && ref.container.envFrom.length > 0)) return [];
  const disabled = flagOrEnv(ref.container, F.forgeDisableScopeEnforcement, SERVER_READING);
  if (disabled && (disabled.value === undefined || GO_TRUE.test(disabled.value) || !GO_BOOL.test(disabled.value))) return [];
  if (flagOrEnv(ref.container, F.forgeScopeGrants, SERVER_READING)) return [];
  return [
    hit(
      ref.object,
      [...ref.containerPath, ...settingPath(reviewer)],
      `${reviewer.name} gives the reviewer App, scope enforcement is on (the Server's default) and no ${F.forgeScopeGrants.flag} grants a scope: the Server refuses every agent forge write; list the grants (account:provider:host:repo) in ${F.forgeScopeGrants.flag}, or pass ${F.forgeDisableScopeEnforcement.flag}=true for a single trust domain`,
    ),
  ];
}

/** The paths the Server fetches from an in-cluster issuer, without credentials: discovery, then the keys it names. */
const DISCOVERY_PATHS = ["/.well-known/openid-configuration", JWKS_PATH];
/** Built-in ClusterRoles that grant get on both paths. */
const GRANTING_BUILTINS = new Set([ISSUER_DISCOVERY_ROLE, "cluster-admin"]);

/** Whether an RBAC subject is a request without credentials: the group system:unauthenticated, or the user system:anonymous. */
function anonymous(subject: unknown): boolean {
  if (!isRecord(subject)) return false;
  return (subject.kind === "Group" && subject.name === UNAUTHENTICATED_GROUP) || (subject.kind === "User" && subject.name === "system:anonymous");
}

/** Whether RBAC rules grant get on a non-resource path: verbs and URLs as sets, `*` and a trailing `*` as RBAC matches them. */
function grantsGet(rules: unknown, path: string): boolean {
  return list<Record<string, unknown>>(rules).some((rule) => {
    const verbs = list<unknown>(rule?.verbs);
    if (!verbs.includes("get") && !verbs.includes("*")) return false;
    return list<unknown>(rule?.nonResourceURLs).some(
      (url) => typeof url === "string" && (url === path || (url.endsWith("*") && path.startsWith(url.slice(0, -1)))),
    );
  });
}

/**
 * CS-15: whether a ClusterRoleBinding in the set lets a request without credentials read discovery and keys, by the
 * built-in role or by a ClusterRole of the set with the same grant in any spelling. A binding to a role the input does
 * not show (or an aggregated one) leaves it not judged: counted as open.
 */
function discoveryOpened(set: ObjectSet): boolean {
  return set.ofKind("ClusterRoleBinding").some((binding) => opensDiscovery(binding, set.ofKind("ClusterRole")));
}

/** Whether one ClusterRoleBinding opens issuer discovery to requests without credentials, given the ClusterRoles of the input. */
export function opensDiscovery(binding: K8sObject, roles: readonly K8sObject[]): boolean {
  if (binding.kind !== "ClusterRoleBinding") return false;
  if (dig(binding, ["roleRef", "kind"]) !== "ClusterRole" || !list<unknown>(dig(binding, ["subjects"])).some(anonymous)) return false;
  const name = dig(binding, ["roleRef", "name"]);
  const role = roles.find((r) => r.kind === "ClusterRole" && r.metadata?.name === name);
  // Absent from the input: a built-in (system: names are Kubernetes's own) grants as Kubernetes defines it; another is not judged.
  if (!role) return typeof name === "string" && (GRANTING_BUILTINS.has(name) || !name.startsWith("system:"));
  if (dig(role, ["aggregationRule"]) !== undefined) return true;
  return DISCOVERY_PATHS.every((path) => grantsGet(dig(role, ["rules"]), path));
}

/** What Go's strconv.ParseBool reads as true. */
const GO_TRUE = /^(1|t|T|TRUE|true|True)$/;
