// A generator's output is written only when it changed, so that a build
// that generates nothing new leaves the files (and their times) alone.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

/** With --check, a generator compares instead of writing, and fails on a difference. */
export const CHECK_ONLY = process.argv.includes("--check");

/** Writes `text` to `file` unless it holds it already; says so relative to `root`. */
export function writeGenerated(file: string, text: string, root: string): void {
  let old = "";
  try {
    old = readFileSync(file, "utf8");
  } catch {}
  if (old === text) return;
  if (CHECK_ONLY) {
    console.error(`stale: ${relative(root, file)}`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(file, text);
  console.log(`wrote ${relative(root, file)}`);
}
