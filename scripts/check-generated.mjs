// Every committed generated file must be what its generator writes now: runs
// each generator of `npm run gen` (scripts/gen.mjs) with --check, and names
// the stale files. `npm test` runs this first, before the build regenerates any.
import { GENERATORS, missingKubeInputs, runGenerator } from "./gen.mjs";

const stale = [];
const failed = [];
for (const generator of GENERATORS) {
  if (generator.kube) {
    const missing = missingKubeInputs({ withGoModules: false });
    if (missing.length > 0) {
      failed.push(`${generator.name}: ${missing.join(", ")} missing (npm run test:deps installs it)`);
      continue;
    }
  }
  const run = runGenerator(generator, ["--check"], { stdio: ["ignore", "inherit", "pipe"], encoding: "utf8" });
  process.stderr.write(run.stderr ?? "");
  const named = [...(run.stderr ?? "").matchAll(/^stale: (.+)$/gm)].map((m) => m[1]);
  stale.push(...named);
  if (run.status === 0) continue;
  // The kube-schemas generator compares a whole directory: a difference names no file.
  if (generator.kube && /is not what the clients/.test(run.stderr ?? "")) stale.push(generator.writes);
  else if (named.length === 0) failed.push(`${generator.name}: exit ${run.status ?? run.signal}`);
}
if (failed.length > 0) console.error(`check-generated: could not check:\n${failed.map((f) => `  ${f}`).join("\n")}`);
if (stale.length > 0)
  console.error(`check-generated: stale generated files:\n${stale.map((f) => `  ${f}`).join("\n")}\nrun \`npm run gen\` and commit the result`);
if (failed.length > 0 || stale.length > 0) process.exit(1);
