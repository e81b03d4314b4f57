// The line `render -o DIR` prints over an earlier output, so a GitOps commit
// says what it restarts; an unreadable earlier output gets no line.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { K8sObject } from "../k8s/objects.ts";
import { printable } from "../core/printable.ts";
import { parseDocuments } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { objectKeyOf } from "../systems/consequences.ts";
import { compareSides, summaryLine } from "./run.ts";

const OUTPUT_MANIFEST = ".rigging-output";
const YAML_FILE = /\.ya?ml$/;

/** The top-level YAML files of an earlier rigging output in `dir`, by name, or undefined when there is none. */
export function earlierFiles(dir: string): Map<string, string> | undefined {
  if (!existsSync(join(dir, OUTPUT_MANIFEST))) return undefined;
  try {
    const names = readdirSync(dir)
      .filter((name) => YAML_FILE.test(name))
      .sort();
    return new Map(names.map((name) => [name, readText(join(dir, name))]));
  } catch {
    return undefined;
  }
}

/** The objects of an earlier output's files, or undefined when they do not parse. */
function objectsOf(files: ReadonlyMap<string, string>): K8sObject[] | undefined {
  try {
    const data = [...files].flatMap(([name, text]) => parseDocuments(text, name).map((d) => d.data));
    return data.filter(
      (o): o is K8sObject =>
        o !== null &&
        typeof o === "object" &&
        typeof (o as K8sObject).kind === "string" &&
        !String((o as K8sObject).apiVersion).startsWith("kustomize.config.k8s.io/"),
    );
  } catch {
    return undefined;
  }
}

/** The objects of an earlier rigging output in `dir` (its top-level YAML files), or undefined when there is none. */
export function earlierOutput(dir: string): K8sObject[] | undefined {
  const files = earlierFiles(dir);
  return files && objectsOf(files);
}

/** `changes against the earlier output: ...`, one line. */
export function renderSummary(before: readonly K8sObject[], after: readonly K8sObject[]): string {
  return `changes against the earlier output: ${summaryLine(changes(before, after))}\n`;
}

function changes(before: readonly K8sObject[], after: readonly K8sObject[]) {
  const side = (objects: readonly K8sObject[]) => ({
    label: "",
    how: "directory" as const,
    objects: new Map(objects.map((o) => [objectKeyOf(o), o])),
    rigging: "all" as const,
    notes: [],
  });
  return compareSides(side(before), side(after)).diffs;
}

/** A fleet member's change line over its earlier output, or "" when unchanged or unreadable. */
export function memberSummary(
  dir: string,
  before: ReadonlyMap<string, string> | "new" | undefined,
  files: ReadonlyMap<string, string>,
  after: readonly K8sObject[],
): string {
  if (before === "new") return `${printable(dir)}: new, ${after.length} objects\n`;
  if (before === undefined || sameFiles(before, files)) return "";
  const objects = objectsOf(before);
  if (!objects) return "";
  const diffs = changes(objects, after);
  return diffs.length === 0 ? "" : `${printable(dir)}: changes against the earlier output: ${summaryLine(diffs)}\n`;
}

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([name, text]) => b.get(name) === text);
}
