// Runner rules about its identity: the token, the ServiceAccount and the Server's cluster entry (CR-03, CR-04, CR-05).
import { posix } from "node:path";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { hit, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import type { ParsedCluster } from "../compass-contract/runner-clusters.ts";
import { serverClusterFiles } from "../compass-contract/server-objects.ts";
import { CR } from "./requirements.ts";
import { mountOf, runnerContainers } from "./rules-containers.ts";
import { cleanPath } from "../../k8s/clean-path.ts";
import { pathInVolume } from "../../rules/templates.ts";
import { RUNNER_AUDIENCE, RUNNER_READING, RUNNER_SETTINGS as S, settingName, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS, TOKEN_PATH } from "./interface.ts";

const RBAC_KINDS = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

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

/** With a token file the input does not show: the mount of the default token path, else of any projected token. */
function someTokenMount(spec: PodSpec, container: Container) {
  const atDefault = mountOf(spec, container, TOKEN_PATH);
  if (atDefault?.volume?.projected?.sources?.some((s) => s.serviceAccountToken)) return atDefault;
  for (const mount of container.volumeMounts ?? []) {
    const at = mountOf(spec, container, mount.mountPath);
    if (at?.mount === mount && at.volume?.projected?.sources?.some((s) => s.serviceAccountToken)) return at;
  }
  return undefined;
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

export const identityRules: Rule[] = [
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
        const at = found.value === undefined ? someTokenMount(spec, container) : mountOf(spec, container, file);
        const sources = at?.volume?.projected?.sources ?? [];
        const tokenAt = sources.findIndex((s) => s.serviceAccountToken);
        if (!at || tokenAt < 0) {
          const where = found.value === undefined ? "in the container" : `at ${posix.dirname(file)}`;
          hits.push(hit(object, [...path, "volumes"], `no projected ServiceAccount token is mounted ${where}`));
          continue;
        }
        const token = sources[tokenAt].serviceAccountToken!;
        const where = [...path, "volumes", at.index, "projected", "sources", tokenAt, "serviceAccountToken"];
        if (token.audience !== RUNNER_AUDIENCE)
          hits.push(hit(object, [...where, "audience"], `audience is ${JSON.stringify(token.audience ?? "")}, not ${RUNNER_AUDIENCE}`));
        // Both sides cleaned as the kubelet and the kernel read them: `/var/run//x/./token` is `/var/run/x/token`.
        if (found.value !== undefined && cleanPath(token.path ?? "") !== pathInVolume(at.mount, file))
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
        const ca = flagOrEnv(container, S.ca, RUNNER_READING);
        // A CA file the input does not show may be on any Secret: those are not judged.
        if (ca && ca.value === undefined) continue;
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
];
