// Server rules about compass-server's real interface: its own flags and variables, writable state, the bundled NATS's JetStream (CS-13).
import { flagOrEnv, givenFlags } from "../../k8s/flag-or-env.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { isNats, serverContainers } from "./objects.ts";
import { CS } from "./requirements.ts";
import { at } from "./rules-reading.ts";
import { forgeWritesRefused } from "./rules-release.ts";
import { GO_BOOL, MASTER_KEY_SECRET, NOT_READ, SERVER_ENV, SERVER_INTERFACE as F } from "./runtime.ts";
import { mountOver, SERVER_READING, writableAt } from "./settings.ts";

/** nats-server turns JetStream on with a `jetstream` block or `jetstream: enabled`, or with -js (line starts: blanks within the line only, as SECRET_CONFIG_LINE reads them). */
const JETSTREAM_ON = /^[ \t]*jetstream\s*(\{|[:=]\s*"?(enabled?|true)\b)/m;
const STORE_DIR = /^[ \t]*store_dir\s*[:=]\s*"?([^"\s]+)"?/m;

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
        (pod.spec.containers ?? []).forEach((container, i) => {
          const args = container.args ?? [];
          const byFlag = args.some((a) => a === "-js" || a === "--jetstream");
          const configs = (container.volumeMounts ?? [])
            .map((m) => (pod.spec.volumes ?? []).find((v) => v.name === m.name)?.configMap?.name)
            .flatMap((name) => set.ofKind("ConfigMap").filter((cm) => cm.metadata.name === name))
            .flatMap((cm) => Object.values((cm.data ?? {}) as Record<string, string>));
          const config = configs.find((t) => JETSTREAM_ON.test(t));
          if (!byFlag && !config) {
            hits.push(hit(pod.object, [...pod.path, "containers", i], "the bundled NATS runs without JetStream, which the Server's event fabric needs"));
            return;
          }
          const storeFlag = args.findIndex((a) => a === "-sd" || a === "--store_dir");
          const store = (config ? STORE_DIR.exec(config)?.[1] : undefined) ?? (storeFlag >= 0 ? args[storeFlag + 1] : undefined) ?? "/tmp/nats/jetstream";
          const { volume } = mountOver(pod.spec, container, store);
          if (!writableAt(pod.spec, container, store))
            hits.push(hit(pod.object, [...pod.path, "containers", i, "volumeMounts"], `the JetStream store ${store} is not on a writable volume`));
          else if (volume?.emptyDir && !volume.emptyDir.sizeLimit)
            hits.push(
              hit(pod.object, [...pod.path, "volumes"], `the JetStream store ${store} is an emptyDir without sizeLimit: bound it, and max_file_store below it`),
            );
        });
      }
      return hits;
    },
  }),
];
