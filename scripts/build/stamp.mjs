// `--if-stale`: skip when the last complete build is newer than its inputs.
// The stamp is written last and removed first, so a half-done build never counts.
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const STAMP = "dist/.build-stamp";
// examples/ is bundled (scripts/build-info.mjs); tsconfig.json is read by esbuild.
const INPUTS = ["src", "scripts", "examples", "kube-schemas", "package.json", "package-lock.json", "tsconfig.json"];

function newestInput() {
  let newest = 0;
  for (const input of INPUTS) {
    // scripts/kube-specs/node_modules (npm run test:deps) feeds kube-schemas/, not the build.
    const files = statSync(input).isDirectory()
      ? readdirSync(input, { recursive: true })
          .map((f) => join(input, String(f)))
          .filter((f) => !f.includes("node_modules"))
      : [input];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

/** Whether the last complete build is newer than every input. */
export const upToDate = () => (statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0) > newestInput() && existsSync("dist/kube/index.json");
export const removeStamp = () => rmSync(STAMP, { force: true });
export const writeStamp = () => writeFileSync(STAMP, "");
