// One side of `rigging diff`: values, a render -o directory, or a manifest
// stream; a name twice on one side is an error.
import { statSync } from "node:fs";
import { UsageError, ValuesError } from "../core/errors.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { readText } from "../parse/read.ts";
import { parseValuesFile } from "../parse/source.ts";
import { parseManifests } from "../check/kube-yaml.ts";
import { loadObjects } from "../check/load.ts";
import { renderSource } from "../pipeline.ts";
import { printable } from "../core/printable.ts";
import { directoryFiles } from "./directory.ts";
import { objectKeyOf as objectKey } from "../systems/consequences.ts";
import { valuesKindOf } from "../systems/registry.ts";

export interface Side {
  /** The argument as given. */
  label: string;
  how: "values" | "directory" | "stream";
  /** By identity (objectKey), in the order read. */
  objects: Map<string, K8sObject>;
  /** Objects known to be rigging's besides its label: all of a render, those of the files a render -o manifest lists. */
  rigging: "all" | ReadonlySet<string>;
  /** For people (stderr): what was read differently from how a build would. */
  notes: string[];
}

/** `kubeVersion`: a values side is rendered for that Kubernetes minor (diff --kube-version), and refused below a system's floor. */
export function readSide(arg: string, stdin?: string, kubeVersion?: string): Side {
  if (arg !== "-" && isDirectory(arg)) return directorySide(arg);
  const text = arg === "-" ? (stdin ?? readText("-")) : readText(arg);
  const docs = parseManifests(text, arg === "-" ? "<stdin>" : arg);
  const only = docs.length === 1 ? (docs[0].data as { kind?: unknown } | null) : undefined;
  if (only && typeof only.kind === "string" && valuesKindOf(only.kind)) return valuesSide(arg, text, kubeVersion);
  return streamSide(arg, docs);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function valuesSide(arg: string, text: string, kubeVersion?: string): Side {
  const file = arg === "-" ? "<stdin>" : arg;
  try {
    const rendered = renderSource(parseValuesFile(text, file), { notes: false, ...(kubeVersion ? { kubeVersion } : {}) });
    return { label: arg, how: "values", objects: keyed(arg, rendered.objects), rigging: "all", notes: [] };
  } catch (error) {
    if (error instanceof ValuesError)
      throw new UsageError(
        `${printable(file)}: the values do not render (${error.diagnostics.length} problem(s)); run rigging render ${printable(file)}${kubeVersion ? ` --kube-version ${kubeVersion}` : ""} for them`,
      );
    throw error;
  }
}

function directorySide(dir: string): Side {
  const read = directoryFiles(dir);
  const docs = read.files.flatMap((file) => parseManifests(readText(file), file));
  const loaded = loadedFrom(docs);
  const objects = keyed(dir, loaded.objects);
  // Objects of the files a render -o manifest lists are rigging's, labelled or not.
  const rigging = new Set(loaded.objects.filter((o) => read.rigging.has(loaded.origins.get(o)?.file ?? "")).map(objectKey));
  return { label: dir, how: "directory", objects, rigging, notes: read.notes };
}

/** The objects of `docs`; the first one that is not an object refuses them all. */
function loadedFrom(docs: ReturnType<typeof parseManifests>) {
  const loaded = loadObjects(docs);
  if (loaded.problems.length > 0) throw new UsageError(printable(loaded.problems[0]));
  return loaded;
}

function streamSide(arg: string, docs: ReturnType<typeof parseManifests>): Side {
  return { label: arg, how: "stream", objects: keyed(arg, loadedFrom(docs).objects), rigging: new Set(), notes: [] };
}

function keyed(arg: string, objects: readonly K8sObject[]): Map<string, K8sObject> {
  const map = new Map<string, K8sObject>();
  for (const object of objects) {
    if (typeof object.kind !== "string" || typeof object.metadata?.name !== "string")
      throw new UsageError(`${printable(arg)}: an object without a kind and a metadata.name; diff compares objects by kind, namespace and name`);
    const key = objectKey(object);
    if (map.has(key)) throw new UsageError(`${printable(arg)}: ${printable(key)} appears twice; diff compares one object per kind, namespace and name`);
    map.set(key, object);
  }
  return map;
}
