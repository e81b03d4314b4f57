// Server rules about secrets: none inline, the master key and the admin token (CS-04, CS-05, CS-06).
import type { Volume } from "kubernetes-types/core/v1";
import { cleanPath } from "../../k8s/clean-path.ts";
import { flagOrEnv, givenFlags } from "../../k8s/flag-or-env.ts";
import { secretValueProblem } from "../../values/inline-secrets.ts";
import { hit, type Rule, type RuleHit } from "../../rules/engine.ts";
import { rule } from "../../rules/requirement-data.ts";
import { serverContainers } from "../compass-contract/server-objects.ts";
import { CS } from "./requirements.ts";
import { at, secretFileFlag } from "./rules-reading.ts";
import { MASTER_KEY_SECRET, SECRETSPEC, SERVER_INTERFACE as F } from "./interface.ts";
import { isSecretVolume, valueNotShown } from "./settings.ts";
import { mountOver, samePath } from "../compass-contract/mounts.ts";
import { SERVER_READING } from "../compass-contract/server-interface.ts";

// Blanks within one line only: `^\s*` would read on through the empty lines after every line start (quadratic).
const SECRET_CONFIG_LINE =
  /^[ \t]*"?(password|passwd|secret|token|masterKey|adminToken|privateKey|webhookSecret|databaseURL|databaseUrl)"?[ \t]*[:=][ \t]*("?)([^\s"#]+)\2/gim;

/** The mode the kubelet gives `file` inside a Secret volume (0644 when none is set). */
function fileMode(volume: Volume, file: string): number {
  if (volume.secret) return volume.secret.items?.find((i) => samePath(i?.path, file))?.mode ?? volume.secret.defaultMode ?? 0o644;
  const item = (volume.projected?.sources ?? []).flatMap((s) => s.secret?.items ?? []).find((i) => samePath(i?.path, file));
  return item?.mode ?? volume.projected?.defaultMode ?? 0o644;
}

export const secretRules: Rule[] = [
  rule(CS["CS-04"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const cm of set.ofKind("ConfigMap")) {
        for (const [key, text] of Object.entries((cm.data ?? {}) as Record<string, string>)) {
          const problem = secretValueProblem(text);
          if (problem) {
            hits.push(hit(cm, ["data", key], `${key} ${problem}`));
            continue;
          }
          for (const match of text.matchAll(SECRET_CONFIG_LINE)) {
            if (!match[3].startsWith("$")) hits.push(hit(cm, ["data", key], `${key} sets ${match[1]} to an inline value`));
          }
        }
      }
      for (const { object, container, containerPath } of set.containers()) {
        (container.env ?? []).forEach((env, index) => {
          const problem = env.value === undefined ? undefined : secretValueProblem(env.value);
          if (problem) hits.push(hit(object, [...containerPath, "env", index, "value"], `${env.name} ${problem}`));
        });
        (container.args ?? []).forEach((arg, index) => {
          const problem = secretValueProblem(arg);
          if (problem) hits.push(hit(object, [...containerPath, "args", index], `argument ${index} ${problem}`));
        });
      }
      return hits;
    },
  }),
  rule(CS["CS-05"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        const { object, container, containerPath, spec } = ref;
        (container.env ?? []).forEach((env, index) => {
          if (/MASTER_?KEY/i.test(env.name) && !/_(FILE|PATH)$/i.test(env.name))
            hits.push(hit(object, [...containerPath, "env", index], `${env.name} passes the master key through the environment`));
        });
        const provider = flagOrEnv(container, F.secretProvider, SERVER_READING);
        // A value from a Secret or from outside the input is not judged.
        if (valueNotShown(provider)) continue;
        if (!provider || provider.value === undefined) {
          hits.push(
            hit(
              object,
              at(ref, provider, "args"),
              `no --secret-provider: the Server resolves ${MASTER_KEY_SECRET} through secretspec's default chain (a keyring), which a pod does not have`,
            ),
          );
          continue;
        }
        const match = /^([a-z][a-z0-9+.-]*):(.*)$/i.exec(provider.value);
        const scheme = match?.[1].toLowerCase();
        if (scheme === "env") {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} reads the master key from the environment`));
          continue;
        }
        if (scheme !== SECRETSPEC.scheme) {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} does not read the master key from a file of a Secret volume`));
          continue;
        }
        const root = match![2].replace(/^\/\//, "").replace(/\/+$/, "");
        if (!root.startsWith("/")) {
          hits.push(hit(object, at(ref, provider, "args"), `--secret-provider ${provider.value} has no absolute root directory`));
          continue;
        }
        // The file the provider opens: `file:///a//b/./c` opens /a/b/c, as the kubelet's cleaned mount path names it.
        const file = cleanPath(`${root}/${SECRETSPEC.project}/${SECRETSPEC.profile}/${MASTER_KEY_SECRET}`);
        const found = mountOver(spec, container, file);
        if (!isSecretVolume(found.volume)) hits.push(hit(object, [...containerPath, "volumeMounts"], `${file} is not a file of a Secret volume`));
        else if (cleanPath(found.mount!.mountPath) !== file || !found.mount!.subPath)
          hits.push(
            hit(
              object,
              [...containerPath, "volumeMounts"],
              `${file} sits in a Secret volume mounted as a directory, whose symbolic links SecretSpec's file provider refuses: mount the key by subPath`,
            ),
          );
      }
      return hits;
    },
  }),
  rule(CS["CS-06"], {
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of serverContainers(set)) {
        (ref.container.env ?? []).forEach((env, index) => {
          if (/ADMIN_?TOKEN/i.test(env.name) && !/_(FILE|PATH)$/i.test(env.name))
            hits.push(hit(ref.object, [...ref.containerPath, "env", index], `${env.name} passes the admin token through the environment`));
        });
        // The released Server takes no such flag and mints its token: nothing more to judge.
        if (!givenFlags(ref.container, SERVER_READING).some((f) => f.flag === F.adminTokenFile.flag)) continue;
        const found = secretFileFlag(ref, F.adminTokenFile.flag, "the admin token", hits);
        if (!found) continue;
        const mode = fileMode(found.volume, found.rest);
        if ((mode & 0o077) !== 0)
          hits.push(hit(ref.object, [...ref.path, "volumes", found.index], `the admin token file has mode 0${mode.toString(8)}, not private (0400)`));
      }
      return hits;
    },
  }),
];
