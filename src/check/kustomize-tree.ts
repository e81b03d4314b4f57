// The kustomizations a walk builds: its roots, those no other kustomization in
// the tree names, and the files the kustomizations read, which are judged
// through the builds and not one by one.
import { realpathSync } from "node:fs";
import { basename } from "node:path";
import { type LocalReferences, localReferences } from "./kustomize-refs.ts";

export interface KustomizeTree {
  /** The directories to build, as the walk named them, in walk order. */
  roots: string[];
  /** Whether a walked file is read by a kustomization (its resources, patches, generator inputs, the kustomization itself). */
  reads: (file: string) => boolean;
}

export function kustomizeTree(dirs: readonly string[]): KustomizeTree {
  const walked = new Map<string, string>();
  for (const dir of dirs) {
    try {
      walked.set(realpathSync.native(dir), dir);
    } catch {}
  }
  const refs = new Map<string, LocalReferences>();
  for (const real of walked.keys()) refs.set(real, localReferences(real));
  const names = new Map([...refs].map(([dir, r]) => [dir, r.kustomizations]));
  const named = new Set([...names.values()].flat());
  const roots = [...walked.keys()].filter((dir) => !named.has(dir));
  // A kustomization that only a cycle names is built too: the cycle is then refused at its reference.
  const reached = reach(roots, names);
  for (const dir of walked.keys()) {
    if (reached.has(dir)) continue;
    roots.push(dir);
    reach([dir], names, reached);
  }
  // A root that only lists files (as render -o writes one) builds to those files: they are read as they are, not built.
  const built = new Set(roots.filter((dir) => !(refs.get(dir) as LocalReferences).plain));
  const files = new Set<string>();
  for (const [dir, r] of refs) {
    if (r.file) files.add(realpathSync.native(r.file));
    if (built.has(dir) || named.has(dir)) for (const file of r.files) files.add(file);
  }
  const fileNames = new Set([...files].map((file) => basename(file)));
  const reads = (file: string) => {
    if (!fileNames.has(basename(file))) return false;
    try {
      return files.has(realpathSync.native(file));
    } catch {
      return false;
    }
  };
  return { roots: [...built].map((dir) => walked.get(dir) as string), reads };
}

function reach(from: readonly string[], names: Map<string, string[]>, reached = new Set<string>()): Set<string> {
  const queue = [...from];
  for (let i = 0; i < queue.length; i++) {
    if (reached.has(queue[i])) continue;
    reached.add(queue[i]);
    for (const next of names.get(queue[i]) ?? []) queue.push(next);
  }
  return reached;
}
