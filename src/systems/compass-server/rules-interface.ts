// Server rules about compass-server's real interface: its own flags and variables, writable state, the bundled NATS's JetStream (CS-13).
import { flagOrEnv, givenFlags } from "../../k8s/flag-or-env.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import type { Container } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../k8s/objects.ts";
import { MEMORY_STORE_WHY, reachesLimit, sizeText } from "./nats-memory.ts";
import { type NatsRun, natsRun, natsServerContainers } from "./nats-reading.ts";
import { isNats } from "./objects.ts";
import { serverContainers } from "../compass-contract/server-objects.ts";
import { CS } from "./requirements.ts";
import { at } from "./rules-reading.ts";
import { forgeWritesRefused } from "./rules-release.ts";
import { GO_BOOL, MASTER_KEY_SECRET, NOT_READ, SERVER_ENV, SERVER_INTERFACE as F } from "./interface.ts";
import { valueNotShown, writableAt } from "./settings.ts";
import { mountOver } from "../compass-contract/mounts.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";

/** A memory store at or above the NATS container's memory limit; a file or value outside the input leaves it not judged. */
function memoryStoreHits(object: K8sObject, container: Container, at: PropertyKey[], run: NatsRun): RuleHit[] {
  if (!run.jetstream || run.memoryStore === undefined || run.unknown.length > 0) return [];
  const limit = (container.resources?.limits as Record<string, unknown> | undefined)?.memory;
  if (!reachesLimit(run.memoryStore, limit)) return [];
  const where = run.config ? ` (${run.config.path}, ConfigMap ${run.config.cm.metadata.name})` : "";
  const message = `the JetStream memory store, max_memory_store ${sizeText(run.memoryStore)}${where}, is at or above the NATS container's memory limit ${limit}: ${MEMORY_STORE_WHY}`;
  return [hit(object, [...at, "resources", "limits", "memory"], message)];
}

export const interfaceRules: Rule[] = [
  rule(CS["CS-13"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        for (const flag of givenFlags(container, SERVER_READING)) {
          if (flag.known) continue;
          const instead = Object.hasOwn(NOT_READ, flag.flag) ? NOT_READ[flag.flag] : undefined;
          hits.push(
            hit(
              object,
              [...containerPath, ...flag.path],
              `compass-server has no ${flag.flag} flag and exits with a usage error${instead ? `; use ${instead}` : ""}`,
            ),
          );
        }
        (Array.isArray(container.env) ? container.env : []).forEach((env, index) => {
          const name = String(env?.name ?? "");
          const unread = Object.hasOwn(NOT_READ, name)
            ? NOT_READ[name]
            : name.startsWith("COMPASS_") && !SERVER_ENV.has(name) && name !== MASTER_KEY_SECRET
              ? ""
              : undefined;
          if (unread === undefined) return;
          hits.push(hit(object, [...containerPath, "env", index], `compass-server reads no ${name}${unread ? `; it reads ${unread}` : ""}`));
        });
        hits.push(...forgeWritesRefused(ref));
        const scopes = flagOrEnv(container, F.forgeDisableScopeEnforcement, SERVER_READING);
        if (scopes?.value !== undefined && !GO_BOOL.test(scopes.value))
          hits.push(
            hit(object, at(ref, scopes, "args"), `${scopes.name} ${JSON.stringify(scopes.value)} is not a boolean (ParseBool): the Server fails to start`),
          );
        for (const [name, what] of [
          [F.socket, "its Unix socket"],
          [F.stateDir, "its admin token and SecretSpec manifests"],
        ] as const) {
          const given = flagOrEnv(container, name, SERVER_READING);
          if (valueNotShown(given)) continue;
          if (!given?.value)
            hits.push(
              hit(object, [...containerPath, "args"], `no ${name.flag}: the Server writes ${what} under $HOME or $XDG_RUNTIME_DIR, on the read-only root`),
            );
          else if (!writableAt(spec, container, given.value))
            hits.push(
              hit(object, at(ref, given, "args"), `${name.flag} ${given.value} is not on a writable volume (an emptyDir): the Server writes ${what} there`),
            );
        }
      }
      for (const pod of set.pods().filter((p) => isNats(p.object))) {
        for (const { container, index: i } of natsServerContainers(pod.spec)) {
          const run = natsRun(set, pod.spec, container);
          const at: PropertyKey[] = [...pod.path, "containers", i];
          if (run.error) {
            const message = `nats-server refuses to start: ${run.error}`;
            hits.push(run.config ? hit(run.config.cm, ["data", run.config.key], message) : hit(pod.object, [...at, "args"], message));
            continue;
          }
          // A file or value outside the input leaves JetStream not judged.
          if (run.jetstream === false) hits.push(hit(pod.object, at, "the bundled NATS runs without JetStream, which the Server's event fabric needs"));
          hits.push(...memoryStoreHits(pod.object, container, at, run));
          const store = run.storeDir;
          if (!run.jetstream || store === undefined) continue;
          const { volume } = mountOver(pod.spec, container, store);
          if (!writableAt(pod.spec, container, store))
            hits.push(hit(pod.object, [...at, "volumeMounts"], `the JetStream store ${store} is not on a writable volume`));
          else if (volume?.emptyDir && !volume.emptyDir.sizeLimit)
            hits.push(
              hit(pod.object, [...pod.path, "volumes"], `the JetStream store ${store} is an emptyDir without sizeLimit: bound it, and max_file_store below it`),
            );
        }
      }
      return hits;
    },
  }),
];
