// Whether a render's input is a directory, asked without loading the fleet's code (src/seams.ts, PLACED).
import { statSync } from "node:fs";

export function isDirectory(path: string): boolean {
  if (path === "-") return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or a symlink loop: reported when read as a file
  }
}
