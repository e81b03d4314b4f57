// Which files `check` reads: arguments in order, directories expanded sorted,
// without dependency or hidden directories and never leaving through a symlink.
import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { UsageError } from "../core/errors.ts";
import { globMatcher } from "./glob.ts";
import { isKustomization } from "./kustomize.ts";
import { KUSTOMIZATION_FILES } from "./kustomize-refs.ts";

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/** Directories that hold other projects' files (dependencies, caches), never a repository's manifests. */
export const SKIPPED_DIRECTORIES = new Set(["node_modules", "bower_components", "vendor", "__pycache__"]);

export interface WalkOptions {
  /** Globs of paths (relative to the directory walked) left out of the walk. */
  exclude?: readonly string[];
  /** Globs of files the walk reads; the others are left out. */
  include?: readonly string[];
}

/** How many of the directories a walk leaves out it names; the others are counted. */
export const SKIPPED_DIRECTORIES_NAMED = 5;

export interface Expanded {
  files: string[];
  /**
   * Files named on the command line, and `-`: read strictly. Every other file was found by walking a directory: it
   * is read leniently, what is not Kubernetes is counted and skipped.
   */
  named: Set<string>;
  /** Paths that could not be read, each with the reason (exit 2). */
  problems: string[];
  /** Entries of a directory that were not read: not regular files, symlinks out of the tree, loops; each with why. */
  skipped: string[];
  /** Directories left out of the walk (.git, node_modules, --exclude): the first few by path, and how many. */
  skippedDirectories: string[];
  skippedDirectoryCount: number;
  /** Files left out by --exclude or --include. */
  excludedFiles: number;
  /** Kustomization directories named on the command line: built, not walked. */
  kustomizations: string[];
  /** Kustomization directories met inside a walked directory: walked, and built where they are roots. */
  walkedKustomizations: string[];
}

interface Walk {
  root: string;
  rootReal: string;
  walked: Set<string>;
  out: Expanded;
  exclude?: (path: string) => boolean;
  include?: (path: string) => boolean;
  /** Whether kustomizations met are recorded to be built. */
  build: boolean;
}

export function expandArguments(args: readonly string[], options: WalkOptions = {}, build = true): Expanded {
  const out: Expanded = {
    files: [],
    named: new Set(),
    problems: [],
    skipped: [],
    skippedDirectories: [],
    skippedDirectoryCount: 0,
    excludedFiles: 0,
    kustomizations: [],
    walkedKustomizations: [],
  };
  // Real paths of the directories already walked: a symlink loop ends here.
  const walked = new Set<string>();
  const exclude = globMatcher(options.exclude, "--exclude");
  const include = globMatcher(options.include, "--include");
  for (const arg of args) {
    if (arg === "-") {
      out.files.push(arg);
      out.named.add(arg);
      continue;
    }
    const stat = statOrProblem(arg, out.problems);
    if (!stat) continue;
    if (stat.isDirectory() && build && isKustomization(arg)) {
      out.kustomizations.push(arg);
      continue;
    }
    if (stat.isDirectory()) {
      const before = out.files.length + out.excludedFiles;
      let rootReal: string;
      try {
        rootReal = realpathSync.native(arg);
      } catch (error) {
        out.problems.push(`${arg}: cannot read the directory: ${reason(error)}`);
        continue;
      }
      walk(arg, { root: arg, rootReal, walked, out, exclude, include, build }, rootReal);
      if (out.files.length + out.excludedFiles === before) out.problems.push(`${arg}: no .yaml, .yml or .json file under this directory`);
    } else {
      out.files.push(arg);
      out.named.add(arg);
    }
  }
  if (out.files.length === 0 && out.problems.length === 0 && out.excludedFiles === 0 && out.kustomizations.length === 0)
    throw new UsageError("check needs at least one FILE, directory or - for stdin; see rigging check --help");
  return out;
}

/** `real`: the directory's real path, where the caller knows it (a directory listed inside a real one). */
function walk(dir: string, w: Walk, known?: string): void {
  let real: string;
  let entries: Dirent[];
  try {
    real = known ?? realpathSync.native(dir);
    if (w.walked.has(real)) return;
    w.walked.add(real);
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    w.out.problems.push(`${dir}: cannot read the directory: ${reason(error)}`);
    return;
  }
  // The listing says whether the directory is a kustomization: no further stat per directory.
  const kustomization = w.build ? entries.find((e) => KUSTOMIZATION_FILES.includes(e.name)) : undefined;
  if (kustomization && !filteredOut(join(dir, kustomization.name), w)) w.out.walkedKustomizations.push(dir);
  for (const entry of entries.sort((a, b) => byCodePoint(a.name, b.name))) {
    const path = join(dir, entry.name);
    // The listing's types spare a stat; only symlinks and unknown types are asked.
    if (entry.isFile()) addFile(path, w);
    else if (entry.isDirectory()) enter(path, w, join(real, entry.name));
    else other(path, real, w);
  }
}

function addFile(path: string, w: Walk): void {
  if (!MANIFEST_FILE.test(path)) return;
  if (filteredOut(path, w)) w.out.excludedFiles++;
  else w.out.files.push(path);
}

/** Whether --exclude or --include leaves a file out. */
function filteredOut(path: string, w: Walk): boolean {
  if (!w.exclude && !w.include) return false;
  const rel = relativePath(w.root, path);
  return Boolean(w.exclude?.(rel) || (w.include && !w.include(rel)));
}

function enter(path: string, w: Walk, real: string): void {
  const name = path.slice(path.lastIndexOf(sep) + 1);
  // Hidden directories (.git, .github) and dependencies hold no manifests to check.
  if (name.startsWith(".") || SKIPPED_DIRECTORIES.has(name) || w.exclude?.(relativePath(w.root, path))) {
    if (w.out.skippedDirectoryCount++ < SKIPPED_DIRECTORIES_NAMED) w.out.skippedDirectories.push(path);
    return;
  }
  walk(path, w, real);
}

/** A symlink, or an entry whose type the listing does not say. */
function other(path: string, parentReal: string, w: Walk): void {
  let real: string;
  let stat: ReturnType<typeof statSync>;
  try {
    real = realpathSync.native(path);
    stat = statSync(real);
  } catch (error) {
    if (MANIFEST_FILE.test(path)) w.out.skipped.push(`${path}: ${reason(error)}, not read`);
    return;
  }
  if (!inside(real, w.rootReal)) {
    if (stat.isDirectory() || MANIFEST_FILE.test(path))
      w.out.skipped.push(`${path}: a symbolic link out of ${w.root} (to ${real}), not followed; name it on the command line to check it`);
    return;
  }
  if (stat.isDirectory()) {
    if (inside(parentReal, real)) w.out.skipped.push(`${path}: a symbolic link loop (to ${real}), not followed`);
    else if (!w.walked.has(real)) enter(path, w, real);
    return;
  }
  if (!MANIFEST_FILE.test(path)) return;
  if (stat.isFile()) addFile(path, w);
  else w.out.skipped.push(`${path}: ${stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : "a device"}, not a regular file`);
}

function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

function statOrProblem(path: string, problems: string[]) {
  try {
    return statSync(path);
  } catch (error) {
    problems.push(`${path}: cannot read: ${reason(error)}`);
    return undefined;
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file (or a dangling symlink)";
  if (code === "EACCES") return "permission denied";
  if (code === "ELOOP") return "too many levels of symbolic links";
  return String((error as Error).message);
}

/** Sorting by UTF-16 code units, the same on every machine and locale. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
