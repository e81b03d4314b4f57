// The examples, their live states and hand edits that the diff tests of this folder compare.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { liveYaml } from "../support/live-state.ts";

export const COMPASS = "examples/compass.yaml";
export const RUNNER = "examples/compass-runner.yaml";
export const SERVER = "examples/compass-server.yaml";
export const rendered = (file: string) => renderSource(parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file)).objects;
export const diff = (...args: string[]) => runInProcess(["diff", ...args]);

export type Edit = (o: Record<string, any>) => void;

/** `file`'s rendered objects, with `edit` applied to one of them (by kind and name). */
function editedObjects(file: string, kind?: string, name?: string, edit?: Edit): K8sObject[] {
  const objects = structuredClone(rendered(file)) as K8sObject[];
  if (kind) {
    const target = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
    if (!target) throw new Error(`no ${kind} ${name ?? ""} in ${file}`);
    edit!(target as Record<string, any>);
  }
  return objects;
}

/** The live state of `file`'s render, one object edited first. */
export const live = (file: string, kind?: string, name?: string, edit?: Edit) => tempFile(liveYaml(editedObjects(file, kind, name, edit)), "live.yaml");

/** `file`'s render as a manifest stream, edited by hand in one object. */
export const handEdited = (file: string, kind: string, name: string, edit: Edit) =>
  tempFile(
    editedObjects(file, kind, name, edit)
      .map((o) => stringify(o))
      .join("---\n"),
    "edited.yaml",
  );

export const consequences = (out: string) => out.split("\n").filter((l) => l.startsWith("  consequence: "));

/** `file`'s values with each [from, to] replaced once; each must be there. */
export function valuesWith(file: string, ...edits: [string, string][]): string {
  let text = readFileSync(join(ROOT, file), "utf8");
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`${file} holds no ${from}`);
    text = text.replace(from, to);
  }
  return tempFile(text, "values.yaml");
}

export const RUNNER_CA = ["      name: compass-server-ca\n", "      name: compass-server-ca-2\n"] as [string, string];
