// The Bun build: the render command's files with precompiled bytecode, required by render.ts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seams } from "./chunks.mjs";
import { BUN_LOADED_AT_START, buildMain, common, moduleUrl } from "./bundle.mjs";

const bun = new URL("../../node_modules/.bin/bun", import.meta.url).pathname;

/** Bun's build of the staged files into dist/bun/; false when it failed. */
function bunBuild(staging, names) {
  const entries = names.map((name) => join(staging, `${name}.js`));
  const minify = common.minify ? ["--minify"] : [];
  const args = [
    "build",
    ...entries,
    "--root",
    staging,
    "--target=bun",
    "--format=cjs",
    "--bytecode",
    ...minify,
    "--external",
    "pg-native",
    "--outdir",
    "dist/bun",
  ];
  const built = spawnSync(bun, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (built.status === 0) return true;
  console.warn(`warning: no Bun build (bun build exited ${built.status}); bun run render.ts runs the sources: ${built.stderr}`);
  return false;
}

/** Builds dist/bun/ from the render entry and esbuild's output of the chunks (`unwrapped`). */
export async function buildForBun(bundle, unwrapped) {
  rmSync("dist/bun", { recursive: true, force: true });
  if (!existsSync(bun)) {
    console.warn("warning: no Bun build (node_modules/.bin/bun is missing); bun run render.ts runs the sources");
    return;
  }
  const { bunChunks, bunCodeChunks, codeChunks } = bundle.plan;
  const staging = mkdtempSync(join(tmpdir(), "rigging-bun-"));
  try {
    // Bun writes the build's own path for __filename; name the file Bun runs. Each chunk is loaded with Bun's require.
    const requireChunk = `var __riggingChunk=n=>require("./"+n+".js");`;
    const banner = `${moduleUrl('process.argv[1]??""')}${requireChunk}`;
    const entry = seams.ENTRIES.bun;
    await buildMain(bundle, { banner, outfile: join(staging, "main.js"), entry, loadedAtStart: BUN_LOADED_AT_START, chunks: bunCodeChunks });
    for (const chunk of bunChunks) writeFileSync(join(staging, `${chunk}.js`), (Object.hasOwn(codeChunks, chunk) ? requireChunk : "") + unwrapped[chunk]);
    if (!bunBuild(staging, [seams.MAIN, ...bunChunks])) rmSync("dist/bun", { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
