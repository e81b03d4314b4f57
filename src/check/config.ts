// `.rigging.yaml`, found upward from the working directory so CI and people
// choose the same rules; the command line adds to it (docs/check.md).
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { UsageError } from "../core/errors.ts";
import { LIMITS, readText } from "../parse/source.ts";
import { closest } from "../values/values.ts";
import { isRecord } from "../k8s/access.ts";
import { compileGlob } from "./glob.ts";

export const CONFIG_FILE = ".rigging.yaml";

export interface CheckConfig {
  /** The file it was read from, when one was. */
  file?: string;
  includeRules: string[];
  excludeRules: string[];
  exclude: string[];
  include: string[];
}

const KEYS = { "include-rules": "includeRules", "exclude-rules": "excludeRules", exclude: "exclude", include: "include" } as const;

/** The nearest .rigging.yaml at or above `from`, or undefined. */
export function findConfig(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file) && statSync(file).isFile()) return file;
    if (dirname(dir) === dir) return undefined;
  }
}

export function readConfig(file: string | undefined): CheckConfig {
  const config: CheckConfig = { includeRules: [], excludeRules: [], exclude: [], include: [] };
  if (file === undefined) return config;
  config.file = file;
  let data: unknown;
  try {
    data = parse(readText(file), { maxAliasCount: LIMITS.aliases, uniqueKeys: true });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: not valid YAML: ${String((error as Error).message).split("\n")[0]}`);
  }
  if (data === null || data === undefined) return config;
  const check = isRecord(data) ? data.check : undefined;
  if (!isRecord(data) || Object.keys(data).some((k) => k !== "check") || (check !== undefined && !isRecord(check)))
    throw new UsageError(`${file}: expected a mapping with the key check (${Object.keys(KEYS).join(", ")})`);
  for (const [key, value] of Object.entries(check ?? {})) {
    if (!Object.hasOwn(KEYS, key)) {
      const near = closest(key, Object.keys(KEYS));
      throw new UsageError(`${file}: check.${key} is not a setting${near ? ` (did you mean ${near}?)` : ""}; expected ${Object.keys(KEYS).join(", ")}`);
    }
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new UsageError(`${file}: check.${key} is not a list of strings`);
    // A glob is refused here, where its file and key can be named, rather than in the walk.
    if (key === "exclude" || key === "include") for (const glob of value as string[]) compileGlob(glob, `${file}: check.${key}`);
    config[KEYS[key as keyof typeof KEYS]].push(...(value as string[]));
  }
  return config;
}

/** Refuses a rule ID no rule has, naming the closest one. */
export function knownRules(ids: readonly string[], known: readonly string[], where: string): string[] {
  return ids.map((id) => {
    const match = known.find((k) => k.toUpperCase() === id.toUpperCase());
    if (match) return match;
    const near = closest(id.toUpperCase(), known);
    throw new UsageError(`${where} ${id}: no rule has this ID${near ? ` (did you mean ${near}?)` : ""}; rigging rules lists them`);
  });
}
