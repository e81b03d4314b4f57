// Server rules about the release and Runner enrolment (CS-13 forge writes, CS-14, CS-15).
import { type ContainerRef, dig, hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { list } from "../../rules/templates.ts";
import { configMapFile, serverContainers } from "./objects.ts";
import { inClusterIssuer, ISSUER_DISCOVERY_ROLE, JWKS_PATH, KUBE_ROOT_CA, readRunnerClusters, UNAUTHENTICATED_GROUP } from "./runner-clusters.ts";
import { GO_BOOL, SERVER_INTERFACE as F } from "./runtime.ts";
import { flagOrEnv, givenFlags } from "../../core/flag-or-env.ts";
import { SERVER_READING, settingPath } from "./settings.ts";

const SERVER: Rule["profiles"] = ["compass-server"];

export const releaseRules: Rule[] = [
  {
    id: "CS-14",
    summary: "A designed flag (P4 --admin-token-file) needs a Compass Server with that task: the released Server exits 2 on it",
    fix: "run a Compass Server with P4, or remove --admin-token-file: the released Server mints <state-dir>/admin-token",
    why: "Seed 001 designs P4 and lists it as todo; no located compass-server (main.go@f71f2ba4 the newest) declares --admin-token-file, and Go's flag package exits 2 on an unknown flag (compass-interfaces §7 R2)",
    source: {
      from: "rigging",
      says: "a manifest does not say which Compass release runs it: a Server with P4 reads --admin-token-file, the released one (main.go@f71f2ba4) exits 2 on it",
    },
    severity: "warning",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set))
        for (const flag of givenFlags(ref.container, SERVER_READING).filter((f) => f.flag === F.adminTokenFile.flag))
          hits.push(hit(ref.object, [...ref.containerPath, ...flag.path], `${flag.flag} is P4's (designed): the released Server exits 2 on it`));
      return hits;
    },
  },
  {
    id: "CS-15",
    summary:
      "The Server can read each runner cluster's keys: for the cluster's own API server as issuer, a jwksFile, or its CA as caFile and issuer discovery bound to system:unauthenticated",
    fix: `give the entry a jwksFile filled from kubectl get --raw ${JWKS_PATH} (mounted in the Server); or mount the ${KUBE_ROOT_CA.configMap} ConfigMap as its caFile and apply a ClusterRoleBinding of ${ISSUER_DISCOVERY_ROLE} to the group ${UNAUTHENTICATED_GROUP}`,
    why: "The Server fetches <issuer>/.well-known/openid-configuration and its jwks_uri with the system roots unless caFile is set, and sends no credentials (go/internal/auth/workload_identity.go@7bc5d536). An API server is signed by the cluster CA and serves discovery only to service accounts by default; the keys stay unavailable, the Runner gets CodeUnavailable and exits after its retries (compass-interfaces §7 R4, R5)",
    source: {
      from: "upstream",
      says: "workload_identity.go@7bc5d536 (system roots, no credentials); Kubernetes service account issuer discovery (bound to system:serviceaccounts only)",
    },
    severity: "error",
    profiles: SERVER,
    check(set) {
      const hits: RuleHit[] = [];
      const opened = set
        .ofKind("ClusterRoleBinding")
        .some(
          (b) =>
            dig(b, ["roleRef", "kind"]) === "ClusterRole" &&
            dig(b, ["roleRef", "name"]) === ISSUER_DISCOVERY_ROLE &&
            list<{ kind?: string; name?: string }>(dig(b, ["subjects"])).some((s) => s?.kind === "Group" && s.name === UNAUTHENTICATED_GROUP),
        );
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
  },
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

/** What Go's strconv.ParseBool reads as true. */
const GO_TRUE = /^(1|t|T|TRUE|true|True)$/;
