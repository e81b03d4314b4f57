// Bundles the CLI for a fast start (docs/performance.md): main.cjs, lazily
// loaded chunks (src/seams.ts) with V8 code caches, a CommonJS launcher, a
// Bun build, and check's Kubernetes schemas under dist/kube/.
// `node scripts/build.mjs [--if-stale]`
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { removeStamp, upToDate, writeStamp } from "./build/stamp.mjs";

if (process.argv.includes("--if-stale") && upToDate()) process.exit(0);
removeStamp();

for (const generator of ["scripts/gen-yaml-tags.ts", "scripts/gen-validators.ts", "scripts/gen-integrations.ts"])
  if (spawnSync(process.execPath, ["--import", "tsx", generator], { stdio: "inherit" }).status !== 0) throw new Error(`${generator} failed`);
// check's Kubernetes schemas, committed (npm run schemas writes them), shipped under dist/kube/.
rmSync("dist/kube", { recursive: true, force: true });
cpSync("kube-schemas", "dist/kube", { recursive: true });

// Imported once the build is known to run, so a skipped one loads no bundler.
const { misplaced, planChunks, seams } = await import("./build/chunks.mjs");
const { LOADED_AT_START, buildChunks, buildMain, moduleUrl, startBundle, wrapForLauncher } = await import("./build/bundle.mjs");
const { buildForBun } = await import("./build/bun.mjs");
const { writeCodeCaches, writeLaunchers } = await import("./build/caches.mjs");

const plan = planChunks();
const wrong = misplaced(plan.owner);
if (wrong.length > 0) throw new Error(`the chunks break a seam of src/seams.ts:\n${wrong.join("\n")}`);
const bundle = await startBundle(plan);
await buildChunks(bundle);
const chunks = Object.keys(plan.codeChunks);
await buildMain(bundle, { banner: moduleUrl("__filename"), outfile: "dist/lib/main.cjs", entry: seams.ENTRIES.node, loadedAtStart: LOADED_AT_START, chunks });
const unwrapped = wrapForLauncher([seams.MAIN, ...Object.keys(plan.allChunks)]);
writeLaunchers();
await writeCodeCaches();
await buildForBun(bundle, unwrapped);
writeStamp();
