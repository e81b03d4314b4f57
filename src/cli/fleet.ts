// Fleet rendering: many values files in one process, each into its own
// DIR/NAME/. This module finds the inputs and checks, before anything is
// written, that every file has a distinct, safe output name.
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { SAFE_FILE_NAME } from "../core/emit.ts";
import { UsageError } from "../core/errors.ts";

/** A progress line shows only on a terminal, and only for fleets this long. */
export const PROGRESS_THRESHOLD = 50;

const VALUES_FILE = /\.(ya?ml|json)$/i;

export interface FleetEntry {
  file: string;
  name: string;
  outputDir(root: string): string;
}

export function isDirectory(path: string): boolean {
  if (path === "-") return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or a symlink loop: reported when read as a file
  }
}

/**
 * The values files of a fleet, in order: files as given, and for a
 * directory its values files sorted by name. Directories are read one
 * level deep only (subdirectories and symlinks to directories are not
 * followed), so a symlink loop cannot make the walk endless.
 */
export function fleetInputs(inputs: readonly string[]): FleetEntry[] {
  const files: string[] = [];
  for (const input of inputs) {
    if (input === "-") throw new UsageError("- (stdin) renders alone, not as part of a fleet");
    if (!isDirectory(input)) {
      files.push(input);
      continue;
    }
    const found = readdirSync(input, { withFileTypes: true })
      .filter((e) => VALUES_FILE.test(e.name) && !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
    if (found.length === 0) throw new UsageError(`${input}: holds no values files (*.yaml, *.yml, *.json)`);
    files.push(...found.map((name) => join(input, name)));
  }
  const byName = new Map<string, string>();
  return files.map((file) => {
    const name = basename(file, extname(file));
    if (!SAFE_FILE_NAME.test(name)) {
      throw new UsageError(`${file}: ${JSON.stringify(name)} cannot name an output directory; rename the file to letters, digits, '.', '_' and '-', starting with a letter or digit`);
    }
    const other = byName.get(name);
    if (other !== undefined) throw new UsageError(`${other} and ${file} would both render into ${name}/; give the files distinct names`);
    byName.set(name, file);
    return { file, name, outputDir: (root: string) => join(root, name) };
  });
}

/** Makes sure DIR is a directory (creating it, not its parents). */
export function prepareFleetOutput(dir: string): void {
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    try {
      mkdirSync(dir);
    } catch (error) {
      throw new UsageError(`${dir}: cannot create the output directory: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "its parent does not exist" : (error as Error).message}`);
    }
    return;
  }
  if (!stat.isDirectory()) throw new UsageError(`${dir}: exists and is not a directory`);
}

export function progressLine(done: number, total: number, failed: number): string {
  return `\r\u001b[Krendering ${done}/${total}${failed ? ` (${failed} not rendered)` : ""}`;
}
