// Output: a YAML stream, a JSON List, or a directory with one file per
// object and a kustomization.yaml. All deterministic (G-02): the objects
// are serialized in the order given and keys in the order built.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "./errors.ts";
import type { K8sObject } from "./objects.ts";
import { emitYaml } from "./yaml-emit.ts";

/** Block YAML; no anchors for objects that happen to be shared, no folding. */
export function toYaml(object: unknown): string {
  return emitYaml(object);
}

export function toYamlStream(objects: readonly K8sObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join("");
}

/** A `v1 List`, which `kubectl apply -f` accepts like a stream. */
export function toJsonList(objects: readonly K8sObject[]): string {
  return JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2) + "\n";
}

export function fileNameOf(object: K8sObject, index: number): string {
  const ordinal = String(index + 1).padStart(2, "0");
  return `${ordinal}-${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
}

/** The files of a rendered directory, by name, in apply order. */
export function directoryFiles(objects: readonly K8sObject[]): Map<string, string> {
  const files = new Map<string, string>();
  objects.forEach((object, index) => files.set(fileNameOf(object, index), toYaml(object)));
  const kustomization = {
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    // Keep the apply-safe order rendered here instead of kustomize's own.
    sortOptions: { order: "fifo" },
    resources: [...files.keys()],
  };
  files.set("kustomization.yaml", toYaml(kustomization));
  return files;
}

/**
 * A file name that stays inside its directory: no separator, no `..`, not
 * hidden (object names are DNS subdomains, so rendered names always match).
 */
export const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Replaces `dir` with exactly `files`, atomically: everything is written
 * into a sibling staging directory first and swapped in by rename, so on
 * any failure the old contents stay as they were.
 */
export function writeDirectory(dir: string, files: Map<string, string>): void {
  const target = resolve(dir);
  if (existsSync(target) && !statSync(target).isDirectory()) {
    throw new UsageError(`${dir}: exists and is not a directory`);
  }
  const parent = dirname(target);
  if (!existsSync(parent)) throw new UsageError(`${dir}: parent directory ${parent} does not exist`);
  const stamp = `${process.pid}-${Date.now().toString(36)}`;
  const staging = join(parent, `.${basename(target)}.new-${stamp}`);
  const previous = join(parent, `.${basename(target)}.old-${stamp}`);
  try {
    mkdirSync(staging);
    for (const [name, text] of files) {
      if (!SAFE_FILE_NAME.test(name)) throw new Error(`refusing to write ${JSON.stringify(name)}: not a plain file name inside ${dir}`);
      writeFileSync(join(staging, name), text, { flag: "wx" });
    }
    if (existsSync(target)) renameSync(target, previous);
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (existsSync(previous) && !existsSync(target)) renameSync(previous, target);
    throw new UsageError(`${dir}: cannot write: ${(error as Error).message}`);
  }
  rmSync(previous, { recursive: true, force: true });
}
