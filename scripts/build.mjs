// Bundles the CLI for a fast start (start-up is most of a render's cost, see
// `npm run bench` and docs/performance.md):
// - one minified CommonJS file, dist/rigging.cjs, so Node loads one module;
//   zod's message translations are left out (rigging words its own messages);
// - dist/rigging.mjs, the command, which compiles that file with the V8 code
//   cache dist/rigging.cache made here by one warm-up render, so a run skips
//   most parsing and compiling. A cache from another Node version is rejected
//   by V8 and the file is compiled as usual: slower, never wrong;
// - dist/bun/main.js with its bytecode (main.js.jsc), built by the pinned
//   Bun for `bun run render.ts` (see src/cli/bun-bundle.ts).
// The standalone executable is scripts/build-binary.mjs (npm run build:binary).
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { buildInfo } from "./build-info.mjs";
if (spawnSync(process.execPath, ["--import", "tsx", "scripts/gen-validators.ts"], { stdio: "inherit" }).status !== 0) throw new Error("scripts/gen-validators.ts failed");

/** zod's locales index, reduced to English (the only one it configures). */
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: args.path.replace(/[\\/]index\.js$/, ""),
    }));
  },
};

await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/rigging.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  keepNames: false,
  plugins: [englishOnly],
  // pg's optional native binding, which rigging never asks for.
  external: ["pg-native"],
  // packageRoot() finds examples/ from the module's own URL; the examples
  // themselves are built in (src/core/build.ts).
  define: { "import.meta.url": "__riggingModuleUrl", RIGGING_BUILD: buildInfo({ binary: false }) },
  banner: { js: 'var __riggingModuleUrl=require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});

writeFileSync(
  "dist/rigging.mjs",
  `#!/usr/bin/env node
// rigging: compiles rigging.cjs with the code cache made at build time.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
const file = fileURLToPath(new URL("./rigging.cjs", import.meta.url));
const cacheFile = fileURLToPath(new URL("./rigging.cache", import.meta.url));
let cachedData;
try { cachedData = readFileSync(cacheFile); } catch {}
const source = "(function (exports, require, module, __filename, __dirname) {" + readFileSync(file, "utf8") + "\\n})";
const script = new Script(source, { filename: file, cachedData });
const module = { exports: {} };
if (process.env.RIGGING_WRITE_CODE_CACHE === cacheFile) process.once("exit", () => writeFileSync(cacheFile, script.createCachedData()));
script.runInThisContext()(module.exports, createRequire(file), module, file, fileURLToPath(new URL(".", import.meta.url)));
`,
  { mode: 0o755 },
);

// The warm-up: one render, so that the cache holds the functions it compiled.
const cacheFile = new URL("../dist/rigging.cache", import.meta.url).pathname;
rmSync(cacheFile, { force: true });
const warm = spawnSync(process.execPath, ["dist/rigging.mjs", "render", "examples/compass-runner.yaml"], {
  env: { ...process.env, RIGGING_WRITE_CODE_CACHE: cacheFile },
  stdio: ["ignore", "ignore", "pipe"],
});
if (warm.status !== 0) {
  rmSync(cacheFile, { force: true });
  console.warn(`warning: no code cache (the warm-up render failed): ${warm.stderr}`);
}

// The Bun build: one file with precompiled bytecode, for the seed's command.
const bun = new URL("../node_modules/.bin/bun", import.meta.url).pathname;
rmSync("dist/bun", { recursive: true, force: true });
if (existsSync(bun)) {
  const built = spawnSync(bun, ["build", "src/cli/main.ts", "--target=bun", "--format=cjs", "--bytecode", "--minify", "--external", "pg-native", "--outdir", "dist/bun"], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (built.status !== 0) {
    rmSync("dist/bun", { recursive: true, force: true });
    console.warn(`warning: no Bun build (bun build exited ${built.status}); bun run render.ts runs the sources: ${built.stderr}`);
  }
} else console.warn("warning: no Bun build (node_modules/.bin/bun is missing); bun run render.ts runs the sources");
