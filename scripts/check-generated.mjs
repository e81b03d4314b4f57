// The committed generated sources must be what their generators write now.
// `npm test` runs this before the build, which would regenerate them.
import { spawnSync } from "node:child_process";

let stale = false;
for (const generator of ["scripts/gen-yaml-tags.ts", "scripts/gen-validators.ts", "scripts/gen-integrations.ts"]) {
  const run = spawnSync(process.execPath, ["--import", "tsx", generator, "--check"], { stdio: "inherit" });
  if (run.status !== 0) stale = true;
}
if (spawnSync(process.execPath, ["scripts/gen-kube-schemas.mjs", "--check"], { stdio: "inherit" }).status !== 0) stale = true;
if (stale) {
  console.error("check-generated: generated sources are stale: run `npm run build` and commit them");
  process.exit(1);
}
