// Where the generated validators go, and where the named functions of the
// schemas they call come from (the exports of the modules under SOURCES).
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { z } from "zod";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const GENERATED = join(ROOT, "src", "systems", "validators.ts");
/** The name of a kind's generated file in its folder. */
export const KIND_FILE = "generated-validator.ts";
const isGenerated = (file: string) => file === GENERATED || basename(file) === KIND_FILE;
/** Where the named functions of the schemas are looked up (their exports). */
export const SOURCES = ["src/core", "src/parse", "src/values", "src/k8s", "src/systems"];

export type Node = z.core.$ZodType;
// biome-ignore lint/suspicious/noExplicitAny: zod's definition records differ per node type; each case reads the fields it names
export type Def = Record<string, any>;

/** Every exported function of the modules under SOURCES, with where to import it from. */
export async function exportedFunctions(): Promise<Map<Function, { file: string; name: string }>> {
  const found = new Map<Function, { file: string; name: string }>();
  const files = SOURCES.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => join(ROOT, dir, f)))
    .filter((f) => f.endsWith(".ts") && !isGenerated(f))
    .sort();
  for (const file of files) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === "function" && !found.has(value)) found.set(value, { file, name });
    }
  }
  return found;
}

/** The file of a kind's build, in the folder of its head: src/systems/compass-runner/generated-validator.ts for CompassRunner. */
export function kindFile(kind: string): string {
  const folder = join(
    dirname(GENERATED),
    kind.replace(/[A-Z]/g, (c, i) => (i ? "-" : "") + c.toLowerCase()),
  );
  if (!existsSync(join(folder, "kind.ts"))) throw new Error(`${kind}: no folder ${relative(ROOT, folder)} with its kind.ts`);
  return join(folder, KIND_FILE);
}
