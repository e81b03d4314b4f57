// `.rigging.yaml`, found upward from the checked path to its repository's
// root, so CI and people check alike; the command line wins (docs/check.md).
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "yaml";
import { UsageError } from "../core/errors.ts";
import { readText } from "../parse/read.ts";
import { LIMITS } from "../parse/limits.ts";
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
  kubeVersion?: string;
  failOn?: string;
  format?: string;
  strict?: boolean;
}

/** Settings that are lists: the command line adds to them. */
const LISTS = { "include-rules": "includeRules", "exclude-rules": "excludeRules", exclude: "exclude", include: "include" } as const;
/** Settings that are one value: the command line's flag replaces them. */
const VALUES = { "kube-version": "kubeVersion", "fail-on": "failOn", format: "format" } as const;
const KEYS = [...Object.keys(LISTS), ...Object.keys(VALUES), "strict"];

/** The nearest .rigging.yaml at or above `from` (a file's directory), up to the repository root (the directory with .git). */
export function findConfig(from: string): string | undefined {
  let dir = resolve(from);
  if (existsSync(dir) && !statSync(dir).isDirectory()) dir = dirname(dir);
  for (; ; dir = dirname(dir)) {
    const file = join(dir, CONFIG_FILE);
    if (existsSync(file) && statSync(file).isFile()) return file;
    if (existsSync(join(dir, ".git")) || dirname(dir) === dir) return undefined;
  }
}

export function readConfig(file: string | undefined): CheckConfig {
  const config: CheckConfig = { includeRules: [], excludeRules: [], exclude: [], include: [] };
  if (file === undefined) return config;
  config.file = file;
  let data: unknown;
  try {
    // Every scalar a string, as written: kube-version 1.30 stays 1.30, not the number 1.3.
    data = parse(readText(file), { maxAliasCount: LIMITS.aliases, uniqueKeys: true, schema: "failsafe" });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: not valid YAML: ${String((error as Error).message).split("\n")[0]}`);
  }
  if (data === null || data === undefined || data === "") return config;
  const check = isRecord(data) ? data.check : undefined;
  if (!isRecord(data) || Object.keys(data).some((k) => k !== "check") || (check !== undefined && check !== "" && !isRecord(check)))
    throw new UsageError(`${file}: expected a mapping with the key check (${KEYS.join(", ")})`);
  for (const [key, value] of Object.entries(isRecord(check) ? check : {})) setting(config, file, key, value);
  return config;
}

function setting(config: CheckConfig, file: string, key: string, value: unknown): void {
  if (!KEYS.includes(key)) {
    const near = closest(key, KEYS);
    throw new UsageError(`${file}: check.${key} is not a setting${near ? ` (did you mean ${near}?)` : ""}; expected ${KEYS.join(", ")}`);
  }
  if (key === "strict") {
    if (value !== "true" && value !== "false") throw new UsageError(`${file}: check.strict is not true or false`);
    config.strict = value === "true";
  } else if (Object.hasOwn(VALUES, key)) {
    if (typeof value !== "string") throw new UsageError(`${file}: check.${key} is not a single value`);
    config[VALUES[key as keyof typeof VALUES]] = value;
  } else {
    if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new UsageError(`${file}: check.${key} is not a list of strings`);
    // A glob is refused here, where its file and key can be named, rather than in the walk.
    if (key === "exclude" || key === "include") for (const glob of value as string[]) compileGlob(glob, `${file}: check.${key}`);
    config[LISTS[key as keyof typeof LISTS]].push(...(value as string[]));
  }
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
