// Before any test file: dist/ rebuilt when one of its inputs is newer than
// its last complete build (scripts/build.mjs --if-stale), so that a test of
// the built command never runs an older build; once, before the workers
// start, so that no test runs dist/ while it is written.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

export default function setup(): void {
  const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: ROOT, stdio: "inherit" });
  if (build.status !== 0)
    throw new Error(`scripts/build.mjs --if-stale failed (exit ${build.status ?? build.signal}): the tests of dist/ would run an older build`);
}
