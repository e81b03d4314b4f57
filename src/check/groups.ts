// A check's inputs grouped by directory (one installation each), each
// kustomization a group of its own.
import { dirname } from "node:path";
import { expandArguments, type WalkOptions } from "./inputs.ts";
import { buildKustomization } from "./kustomize.ts";
import type { Refusal } from "./kustomize-refs.ts";
import { kustomizePatches } from "./patches.ts";

export const STDIN_NAME = "<stdin>";

/** A file to read, and whether a directory's walk found it (it is read leniently); or a kustomization's build. */
export interface GroupFile {
  file: string;
  walked?: true;
  /** A walked file that a walked kustomization names as a patch: skipped, not judged as an object. */
  patch?: true;
  /** The stream kustomize built, and the directory its origin paths are relative to. */
  built?: { text: string; root: string };
  /** A kustomization not built: the references that would have left the tree, fetched or run a program. */
  refused?: Refusal[];
}

/** The inputs named, the problems and skipped entries met listing them, and the files by directory. */
export interface InputGroups {
  names: string[];
  problems: string[];
  skipped: string[];
  skippedDirectories: string[];
  excludedFiles: number;
  walkedOnly: boolean;
  groups: GroupFile[][];
}

/** Synchronous unless a kustomization is built: kustomize runs as a child the process can stop on a signal. */
export function inputGroups(args: readonly string[], walk: WalkOptions): InputGroups | Promise<InputGroups> {
  const expanded = expandArguments(args, walk);
  if (expanded.kustomizations.length === 0) return grouped(expanded, []);
  return kustomizationGroups(expanded, walk).then((builds) => grouped(expanded, builds));
}

function grouped(expanded: ReturnType<typeof expandArguments>, builds: GroupFile[][]): InputGroups {
  const { files, walked, problems, skipped, skippedDirectories, excludedFiles } = expanded;
  const names = [...new Set(files)].map((file) => (file === "-" ? STDIN_NAME : file));
  // Directories are loaded, judged and let go one at a time, so memory holds
  // one installation whatever the fleet's size.
  const byDirectory = new Map<string, GroupFile[]>();
  const patches = kustomizePatches(walked);
  for (const file of new Set(files)) {
    const entry: GroupFile = !walked.has(file) ? { file } : patches.has(file) ? { file, walked: true, patch: true } : { file, walked: true };
    const group = byDirectory.get(dirname(file));
    if (group) group.push(entry);
    else byDirectory.set(dirname(file), [entry]);
  }
  const walkedOnly = files.length > 0 && files.every((f) => walked.has(f));
  names.push(...builds.map((g) => g[0].file));
  return { names, problems, skipped, skippedDirectories, excludedFiles, walkedOnly, groups: [...byDirectory.values(), ...builds] };
}

/** Each kustomization named, built into one group; one that cannot be built is walked as a directory, with a note. */
async function kustomizationGroups(expanded: ReturnType<typeof expandArguments>, walk: WalkOptions): Promise<GroupFile[][]> {
  const groups: GroupFile[][] = [];
  for (const dir of expanded.kustomizations) {
    const built = await buildKustomization(dir);
    if ("text" in built) groups.push([{ file: `${dir} (${built.via})`, built: { text: built.text, root: built.root } }]);
    else if ("refused" in built) groups.push([{ file: dir, refused: built.refused }]);
    else if ("error" in built) expanded.problems.push(built.error);
    else {
      expanded.skipped.push(built.notBuilt);
      const again = expandArguments([dir], walk, false);
      expanded.files.push(...again.files);
      for (const f of again.walked) expanded.walked.add(f);
      expanded.problems.push(...again.problems);
      expanded.skipped.push(...again.skipped);
      expanded.skippedDirectories.push(...again.skippedDirectories);
      expanded.excludedFiles += again.excludedFiles;
    }
  }
  return groups;
}
