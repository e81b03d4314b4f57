// The launcher, and the warm-up runs that write each file's V8 code cache:
// the first run that loads a file writes its cache.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { seams } from "./chunks.mjs";

/** Writes dist/rigging.cjs and dist/rigging.mjs from their sources beside this file. */
export function writeLaunchers() {
  for (const [source, target] of [
    ["launcher.cjs", "dist/rigging.cjs"],
    ["launcher.mjs", "dist/rigging.mjs"],
  ])
    writeFileSync(target, readFileSync(new URL(source, import.meta.url)), { mode: 0o755 });
}

/** The runs that load every file of dist/lib/: a render of each kind's example, a fleet, check and the other commands. */
function warmUpRuns(warmUps, warm) {
  const [first, ...others] = warmUps.flat();
  const caching = { ...process.env, RIGGING_WRITE_CODE_CACHE: join(process.cwd(), "dist", "lib") };
  return [
    [["render", first], caching],
    [["render", first, "-o", join(warm, "out")], process.env],
    // A fleet of two systems (the fleet file's cache).
    [["render", first, warmUps.at(-1)[0], "-o", join(warm, "fleet")], caching],
    // The other kinds' validators (their files' caches).
    ...others.map((file) => [["render", file], caching]),
    [["check", join(warm, "out")], caching],
    // The other commands' file.
    [["explain"], caching],
  ];
}

/** Runs the warm-ups; the values files come from the system registry. */
export async function writeCodeCaches() {
  const { SYSTEMS } = await tsImport(pathToFileURL(join(process.cwd(), seams.REGISTRY)).href, import.meta.url);
  const warmUps = SYSTEMS.map((system) => system.warmUps ?? system.valuesKinds.map((kind) => kind.example));
  const warm = mkdtempSync(join(tmpdir(), "rigging-build-"));
  try {
    for (const [args, env] of warmUpRuns(warmUps, warm)) {
      const ran = spawnSync(process.execPath, ["dist/rigging.cjs", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
      if (ran.status !== 0)
        console.warn(`warning: rigging ${args[0]} (a warm-up) exited ${ran.status}; files it did not load have no code cache: ${ran.stderr}`);
    }
  } finally {
    rmSync(warm, { recursive: true, force: true });
  }
}
