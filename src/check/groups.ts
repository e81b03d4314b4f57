// A check's inputs grouped by directory (one installation each), each
// kustomization a group of its own.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Expanded, expandArguments, SKIPPED_DIRECTORIES_NAMED, type WalkOptions } from "./inputs.ts";
import { buildKustomization, builder } from "./kustomize.ts";
import { KUSTOMIZATION_FILES, type Refusal } from "./kustomize-refs.ts";
import { kustomizeTree } from "./kustomize-tree.ts";
import { kustomizePatches } from "./patches.ts";
import { treeOf } from "../parse/tree.ts";

export const STDIN_NAME = "<stdin>";

/** A file to read, and whether a directory's walk found it (it is read leniently); or a kustomization's build. */
export interface GroupFile {
  file: string;
  /** Its place among the run's files (`InputGroups.files`), in input order. */
  order: number;
  walked?: true;
  /** A walked file that a walked kustomization names as a patch: skipped, not judged as an object. */
  patch?: true;
  /** The stream kustomize built, the directory its origin paths are relative to, and the real path of the tree it read. */
  built?: { text: string; root: string; tree: string };
  /** A kustomization not built: the references that would have left the tree, fetched or run a program. */
  refused?: Refusal[];
}

/** The inputs named, the problems and skipped entries met listing them, and the files by directory. */
export interface InputGroups {
  /** Each file once, in input order, as read (`-` for stdin); a kustomization's build named by its directory. */
  files: string[];
  /** The same, as the report names them. */
  names: string[];
  problems: string[];
  skipped: string[];
  skippedDirectories: string[];
  skippedDirectoryCount: number;
  excludedFiles: number;
  walkedOnly: boolean;
  groups: GroupFile[][];
}

/** Synchronous unless a kustomization is built: kustomize runs as a child the process can stop on a signal. */
export function inputGroups(args: readonly string[], walk: WalkOptions): InputGroups | Promise<InputGroups> {
  const expanded = expandArguments(args, walk);
  const roots = walkedRoots(expanded);
  if (expanded.kustomizations.length === 0 && roots.length === 0) return grouped(expanded, []);
  return kustomizationGroups(expanded, walk, roots).then((builds) => grouped(expanded, builds));
}

/**
 * The roots of the kustomizations a walk met, to be built; the files they read leave the walk's list. Where no
 * program builds them, none: their files are read one by one, as before kustomize was found.
 */
function walkedRoots(expanded: Expanded): string[] {
  if (expanded.walkedKustomizations.length === 0 || !builder()) return [];
  const tree = kustomizeTree(expanded.walkedKustomizations);
  expanded.files = expanded.files.filter((file) => expanded.named.has(file) || !tree.reads(file));
  const named = new Set(expanded.kustomizations.map(realOrSelf));
  return tree.roots.filter((dir) => !named.has(realOrSelf(dir)));
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

function grouped(expanded: Expanded, builds: GroupFile[][]): InputGroups {
  const { named, problems, skipped, skippedDirectories, skippedDirectoryCount, excludedFiles } = expanded;
  const files = [...new Set(expanded.files)];
  // Directories are loaded, judged and let go one at a time, so memory holds
  // one installation whatever the fleet's size.
  const byDirectory = new Map<string, GroupFile[]>();
  const patches = kustomizePatches(files.filter((file) => !named.has(file)));
  files.forEach((file, order) => {
    const entry: GroupFile = named.has(file) ? { file, order } : patches.has(file) ? { file, order, walked: true, patch: true } : { file, order, walked: true };
    const group = byDirectory.get(dirname(file));
    if (group) group.push(entry);
    else byDirectory.set(dirname(file), [entry]);
  });
  const walkedOnly = files.length > 0 && named.size === 0;
  for (const build of builds) for (const entry of build) entry.order = files.push(entry.file) - 1;
  const names = files.map((file) => (file === "-" ? STDIN_NAME : file));
  const groups = [...byDirectory.values(), ...builds];
  return { files, names, problems, skipped, skippedDirectories, skippedDirectoryCount, excludedFiles, walkedOnly, groups };
}

/** Each kustomization named, built into one group; one that cannot be built is walked as a directory, with a note. */
async function kustomizationGroups(expanded: Expanded, walk: WalkOptions, roots: readonly string[]): Promise<GroupFile[][]> {
  const groups: GroupFile[][] = [];
  const walkedRoots = new Set(roots);
  for (const dir of [...expanded.kustomizations, ...roots]) {
    const built = await buildKustomization(dir);
    // Placed among the run's files once every walk is done (grouped).
    if ("text" in built) groups.push([{ file: `${dir} (${built.via})`, order: -1, built: { text: built.text, root: built.root, tree: treeOf(dir).real } }]);
    // A walked kustomization rigging will not build (it fetches, runs helm): its files are read one by one, with a note.
    else if ("refused" in built && walkedRoots.has(dir) && built.refused.every((r) => r.unsafe))
      readFileByFile(
        expanded,
        walk,
        dir,
        built.refused.map((r) => `${r.file}:${r.line}: ${r.message}; its files were read one by one (${r.fix})`),
      );
    else if ("refused" in built) groups.push([{ file: dir, order: -1, refused: built.refused }]);
    // A walked kustomization kustomize refuses is a finding at its file, as a walked file that does not parse is.
    else if ("error" in built && walkedRoots.has(dir)) groups.push([{ file: dir, order: -1, refused: [buildRefusal(dir, built.error)] }]);
    else if ("error" in built) expanded.problems.push(built.error);
    else readFileByFile(expanded, walk, dir, [built.notBuilt]);
  }
  return groups;
}

/** A kustomization not built, walked as a directory instead; `notes` say why. */
function readFileByFile(expanded: Expanded, walk: WalkOptions, dir: string, notes: string[]): void {
  expanded.skipped.push(...notes);
  const again = expandArguments([dir], walk, false);
  expanded.files.push(...again.files);
  expanded.problems.push(...again.problems);
  expanded.skipped.push(...again.skipped);
  const room = SKIPPED_DIRECTORIES_NAMED - expanded.skippedDirectories.length;
  expanded.skippedDirectories.push(...again.skippedDirectories.slice(0, Math.max(room, 0)));
  expanded.skippedDirectoryCount += again.skippedDirectoryCount;
  expanded.excludedFiles += again.excludedFiles;
}

/** kustomize's refusal of a walked kustomization, at its kustomization file. */
function buildRefusal(dir: string, error: string): Refusal {
  const name = KUSTOMIZATION_FILES.find((n) => existsSync(join(dir, n))) ?? KUSTOMIZATION_FILES[0];
  return {
    file: join(dir, name),
    line: 1,
    column: 1,
    message: error,
    fix: "make it a kustomization kustomize builds: kubectl kustomize DIR says what is wrong",
  };
}
