// Server rules about the release and Runner enrolment (CS-13 forge writes, CS-14, CS-15).
import { type ContainerRef, hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { configMapFile, serverContainers } from "./objects.ts";
import { inClusterIssuer, ISSUER_DISCOVERY_ROLE, readRunnerClusters, UNAUTHENTICATED_GROUP } from "./runner-clusters.ts";
import { GO_BOOL, SERVER_INTERFACE as F } from "./runtime.ts";
import { flagOrEnv, givenFlags } from "../../k8s/flag-or-env.ts";
import { SERVER_READING, settingPath } from "./settings.ts";
import { CS } from "./requirements.ts";
import { rule } from "../../rules/requirement-data.ts";
import { dig, list } from "../../k8s/access.ts";

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

/** What Go's strconv.ParseBool reads as true. */
const GO_TRUE = /^(1|t|T|TRUE|true|True)$/;
