// The one line `render -o DIR` prints over an earlier output: what the new
// render changes against it, and what that does (src/diff/consequences.ts),
// so that a GitOps commit says what it will restart. Reading the earlier
// output never fails a render: an output that cannot be read gets no line.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { K8sObject } from "../core/objects.ts";
import { parseDocuments, readText } from "../core/source.ts";
import { objectKeyOf } from "./key.ts";
import { diffSides, summaryLine } from "./run.ts";

const OUTPUT_MANIFEST = ".rigging-output";
const YAML_FILE = /\.ya?ml$/;

/** The objects of an earlier rigging output in `dir` (its top-level YAML files), or undefined when there is none. */
export function earlierOutput(dir: string): K8sObject[] | undefined {
  if (!existsSync(join(dir, OUTPUT_MANIFEST))) return undefined;
  try {
    const files = readdirSync(dir)
      .filter((name) => YAML_FILE.test(name))
      .sort();
    const data = files.flatMap((name) => parseDocuments(readText(join(dir, name)), name).map((d) => d.data));
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

/** `changes against the earlier output: ...`, one line. */
export function renderSummary(before: readonly K8sObject[], after: readonly K8sObject[]): string {
  const side = (objects: readonly K8sObject[]) => ({ label: "", how: "directory" as const, objects: new Map(objects.map((o) => [objectKeyOf(o), o])) });
  return `changes against the earlier output: ${summaryLine(diffSides(side(before), side(after)))}\n`;
}
