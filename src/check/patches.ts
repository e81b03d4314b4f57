// Files a walked kustomization names as patches are parts of objects, not
// objects: kustomize merges them into its resources, so no field is required.
import { basename, dirname, join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { readText } from "../parse/read.ts";
import { parseManifests } from "./kube-yaml.ts";
import { KUSTOMIZATION_NAMES } from "./walked.ts";
import { isRecord } from "../k8s/access.ts";

const PATCH_KEYS = ["patches", "patchesStrategicMerge", "patchesJson6902"];
const PATCH_FILE = /\.(?:ya?ml|json)$/;

/** The files that the kustomizations among `files` name as patches, as paths joined to their directory. */
export function kustomizePatches(files: Iterable<string>): Set<string> {
  const patches = new Set<string>();
  for (const file of files) {
    if (!KUSTOMIZATION_NAMES.has(basename(file))) continue;
    let data: unknown;
    try {
      data = parseManifests(readText(file), file)[0]?.data;
    } catch (error) {
      // An unreadable kustomization is counted as skipped already; it names no patch we can read.
      if (error instanceof UsageError) continue;
      throw error;
    }
    for (const path of patchPaths(data)) patches.add(join(dirname(file), path));
  }
  return patches;
}

/** `patches: [{path}]` or `[path]`, `patchesStrategicMerge: [path]` (inline patches skipped), `patchesJson6902: [{path}]`. */
function patchPaths(kustomization: unknown): string[] {
  if (!isRecord(kustomization)) return [];
  const paths: string[] = [];
  for (const key of PATCH_KEYS) {
    const entries = kustomization[key];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const path = isRecord(entry) ? entry.path : entry;
      if (typeof path === "string" && !path.includes("\n") && PATCH_FILE.test(path)) paths.push(path);
    }
  }
  return paths;
}
