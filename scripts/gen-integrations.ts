// Writes the system registry into the integrations that name systems, so a new
// system needs no edit there (checked by scripts/check-generated.mjs).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGenerated } from "./write-generated.ts";
import { catalog, kinds } from "../src/systems/registry.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const PLUGIN = join(ROOT, "integrations", "argocd", "plugin.yaml");
const ACTION = join(ROOT, "action.yml");
const DISCOVER = /^( *)grep -lE '.*'$/m;
const PROFILE_INPUT = /^( *)description: Check every object as this profile \(.*\); empty to recognise each object\.$/m;

/** The plugin file with its discover line naming `kinds`. */
export function withKinds(text: string, kinds: readonly string[]): string {
  for (const kind of kinds) if (!/^[A-Z][A-Za-z]*$/.test(kind)) throw new Error(`${kind}: a kind that is not a name`);
  if (!DISCOVER.test(text)) throw new Error("integrations/argocd/plugin.yaml: no grep -lE line to write the kinds into");
  const any = kinds.join("|");
  return text.replace(DISCOVER, (_, indent: string) => `${indent}grep -lE '^kind: *"?(${any})"? *$|"kind": *"(${any})"'`);
}

/** The action file with its profile input naming `names`. */
export function withSystems(text: string, names: readonly string[]): string {
  if (!PROFILE_INPUT.test(text)) throw new Error("action.yml: no profile input description to write the systems into");
  const listed = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names.join("");
  return text.replace(
    PROFILE_INPUT,
    (_, indent: string) => `${indent}description: Check every object as this profile (${listed}); empty to recognise each object.`,
  );
}

writeGenerated(PLUGIN, withKinds(readFileSync(PLUGIN, "utf8"), kinds()), ROOT);
writeGenerated(ACTION, withSystems(readFileSync(ACTION, "utf8"), catalog.names()), ROOT);
