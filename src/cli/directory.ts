// Whether a render's input is a directory (a fleet). In a file of its own so
// that a render of one values file asks without loading the fleet's code,
// which the build keeps in a file of its own (scripts/build.mjs, LAZY_SOURCES).
import { statSync } from "node:fs";

export function isDirectory(path: string): boolean {
  if (path === "-") return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or a symlink loop: reported when read as a file
  }
}
