// Where the package's own files are (examples/, dist/kube/), for the commands and stages that read them.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (where examples/ lives), from src/ or from dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "examples"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the rigging package root (examples/ is missing)");
}
