// The tree an input from a repository may name files in: its repository, so
// that a values file or a kustomization never reads the rest of the machine.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";

export interface Tree {
  real: string;
  /** What the tree is, before the name of what it holds: "the repository of", "the directory of". */
  what: string;
}

/** The nearest directory above `dir` (itself included) with a `.git`; else the working directory when it holds `dir`; else `dir`. */
export function treeOf(dir: string): Tree {
  const real = realpathSync.native(dir);
  for (let at = real; ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return { real: at, what: "the repository of" };
    if (dirname(at) === at) break;
  }
  const cwd = realpathSync.native(process.cwd());
  // The filesystem's root holds everything: it is no tree.
  if (cwd !== dirname(cwd) && inside(real, cwd)) return { real: cwd, what: "the working directory, which holds" };
  return { real, what: "the directory of" };
}

/** Whether `path` is `root` or below it (both real paths). */
export function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}
