// Bundles the CLI for a fast start (docs/performance.md): main.cjs, lazily
// loaded chunks with V8 code caches, a CommonJS launcher, a Bun build, and
// check's Kubernetes schemas under dist/kube/.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import { tsImport } from "tsx/esm/api";
import ts from "typescript";
import { buildExamples, buildInfo } from "./build-info.mjs";

// `--if-stale`: skip when the last complete build is newer than its inputs.
// The stamp is written last and removed first, so a half-done build never counts.
const STAMP = "dist/.build-stamp";
const INPUTS = ["src", "scripts", "kube-schemas", "package.json", "package-lock.json"];
function newestInput() {
  let newest = 0;
  for (const input of INPUTS) {
    const files = statSync(input).isDirectory() ? readdirSync(input, { recursive: true }).map((f) => join(input, String(f))) : [input];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}
if (process.argv.includes("--if-stale") && (statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0) > newestInput() && existsSync("dist/kube/index.json"))
  process.exit(0);
rmSync(STAMP, { force: true });

for (const generator of ["scripts/gen-yaml-tags.ts", "scripts/gen-validators.ts", "scripts/gen-integrations.ts"])
  if (spawnSync(process.execPath, ["--import", "tsx", generator], { stdio: "inherit" }).status !== 0) throw new Error(`${generator} failed`);
// check's Kubernetes schemas, committed (npm run schemas writes them), shipped under dist/kube/.
rmSync("dist/kube", { recursive: true, force: true });
cpSync("kube-schemas", "dist/kube", { recursive: true });

const require = createRequire(import.meta.url);

/** The dependencies kept out of main.cjs, by chunk; specifiers sharing code share a chunk. */
const CHUNKS = {
  yaml: ["yaml"],
  zod: ["zod"],
  pg: ["pg"],
  cel: ["@bufbuild/cel", "@bufbuild/cel/ext", "@bufbuild/re2"],
  nats: ["@nats-io/transport-node", "@nats-io/jetstream"],
};

/** A source file's path as the chunks name it: relative to the package root, with forward slashes. */
const sourcePath = (file) => relative(process.cwd(), file).split("\\").join("/");
/** Each system's folder in a chunk of its own (kind-NAME), since a render of another kind never runs it; only the files read at start stay in main.cjs. */
const KIND_HEAD = new Set(["index.ts", "system.ts", "runtime.ts", "ports.ts"]);
const KIND_CHUNKS = Object.fromEntries(
  readdirSync("src/profiles", { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name }) => [
      `kind-${name}`,
      [
        ...readdirSync(`src/profiles/${name}`)
          .filter((file) => file.endsWith(".ts") && !KIND_HEAD.has(file))
          .map((file) => `src/profiles/${name}/${file}`),
      ],
    ]),
);
/** Sources a render of one values file never runs, each in a chunk built like a kind's: fleet, check, commands and the CR-06 admission stage. */
/** The files of LAZY_SOURCES that render.ts, whose build holds the render command alone, never loads. */
const NOT_IN_BUN = new Set(["check", "commands"]);
const LAZY_SOURCES = {
  fleet: ["src/cli/fleet.ts", "src/cli/render-stream.ts", "src/core/threads.ts"],
  check: ["src/cli/check.ts", "src/cli/fn.ts"],
  commands: ["explain", "schema", "init", "preflight", "pin", "diff", "completion"].map((name) => `src/cli/${name}.ts`),
  admission: ["src/admission/judge.ts"],
};
/** Every chunk made from the sources, built and loaded alike. */
const CODE_CHUNKS = { ...KIND_CHUNKS, ...LAZY_SOURCES };
/** An import's names when a file takes the whole module. */
const ALL = Symbol("the whole module");
/** Every non-type import of src/: importer, specifier, names taken (or ALL), and whether it is a re-export or a side-effect import. */
function sourceImports() {
  const found = [];
  const named = (elements) => elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  for (const name of readdirSync("src", { recursive: true })) {
    const file = sourcePath(join("src", String(name)));
    // src/docs/ is in no bundle, so its imports place no file.
    if (!file.endsWith(".ts") || file.startsWith("src/docs/")) continue;
    const visit = (node) => {
      if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const bindings = clause?.namedBindings;
        const names = clause && !clause.name && bindings && ts.isNamedImports(bindings) ? named(bindings.elements) : ALL;
        found.push({ file, specifier: node.moduleSpecifier.text, names, sideEffect: !clause });
      } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const names = node.exportClause && ts.isNamedExports(node.exportClause) ? named(node.exportClause.elements) : ALL;
        found.push({ file, specifier: node.moduleSpecifier.text, names, reexport: true });
      } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
        const callee = node.expression;
        if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require"))
          found.push({ file, specifier: node.arguments[0].text, names: ALL });
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest));
  }
  return found;
}
const SOURCE_IMPORTS = sourceImports();
/** Merges names taken from one module: ALL absorbs every list. */
const mergeNames = (had, names) => (had === ALL || names === ALL ? ALL : [...(had ?? []), ...names]);
/** Each source file's importers in src/, with the names each takes, or ALL. */
function importGraph() {
  const importers = new Map();
  for (const { file, specifier, names, sideEffect } of SOURCE_IMPORTS) {
    if (!specifier.startsWith(".")) continue;
    const target = sourcePath(join(dirname(file), specifier));
    if (!importers.has(target)) importers.set(target, new Map());
    importers.get(target).set(file, mergeNames(importers.get(target).get(file), sideEffect ? [] : names));
  }
  return importers;
}
/** A file outside the folders that only one chunk imports goes in that chunk. */
const IMPORTS = importGraph();
/** The kind's file each file of one is in. */
const OWNER = new Map(Object.entries(CODE_CHUNKS).flatMap(([chunk, files]) => files.map((file) => [file, chunk])));
for (let changed = true; changed; ) {
  changed = false;
  for (const [file, by] of IMPORTS) {
    if (OWNER.has(file) || file.startsWith("src/profiles/") || !existsSync(file)) continue;
    const chunks = new Set([...by.keys()].map((importer) => OWNER.get(importer)));
    const [chunk] = chunks;
    if (chunks.size === 1 && chunk !== undefined) {
      OWNER.set(file, chunk);
      CODE_CHUNKS[chunk].push(file);
      changed = true;
    }
  }
}
const ALL_CHUNKS = { ...CHUNKS, ...CODE_CHUNKS };
/** The files of dist/bun/ beside main.js. */
const BUN_CHUNKS = Object.keys(ALL_CHUNKS).filter((chunk) => !NOT_IN_BUN.has(chunk));
/** The chunks made from the sources: each exports its files by path (a validator whole, a kind's file what the others take). */
const FROM_SOURCES = new Set(Object.keys(CODE_CHUNKS));
/** Sources outside every chunk that a chunk imports: main.cjs exports them so each module has one copy (one UsageError class, one cache). */
const SHARED = new Map();

/** Node modules every process has loaded already; any other is loaded on first use. */
const LOADED_AT_START = new Set(["fs", "path", "url", "util", "events", "buffer", "vm"]);
/** Under Bun, `node:util` and `node:url` are costly to load and a render of files needs neither, so the Bun build loads them on first use. */
const BUN_LOADED_AT_START = new Set([...LOADED_AT_START].filter((name) => name !== "util" && name !== "url"));

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

/** The names src/ imports (not as types) from each module, or ALL where a file takes the whole module or imports it for its side effects. */
function importedNames() {
  const names = new Map();
  for (const { specifier, names: taken, sideEffect, reexport } of SOURCE_IMPORTS) {
    if (reexport) continue;
    const merged = mergeNames(names.get(specifier), sideEffect ? ALL : taken);
    names.set(specifier, merged === ALL ? ALL : new Set(merged));
  }
  return names;
}
const used = importedNames();

/** A CommonJS stub whose exports load the real module on first read. The getters sit on the prototype so esbuild's `__toESM` copies nothing. */
function lazyStub(names, load) {
  const getters = names.filter((name) => name !== "__esModule").map((name) => `${JSON.stringify(name)}:{enumerable:true,get:()=>m()[${JSON.stringify(name)}]}`);
  const esModule = names.includes("__esModule") ? "__esModule:{value:true}," : "";
  return `let l;const m=()=>l??=${load};module.exports=Object.create(Object.defineProperties({},{${esModule}${getters.join(",")}}));`;
}

/** Resolves each chunked specifier and late Node module to its stub. */
function lazyModules(chunkExports, loadedAtStart, self) {
  const chunkOf = new Map(Object.entries(ALL_CHUNKS).flatMap(([chunk, specifiers]) => specifiers.map((s) => [s, chunk])));
  return {
    name: "rigging-lazy-modules",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.namespace === "rigging-lazy") return { path: args.path, external: true };
        if (chunkOf.has(args.path)) return { path: args.path, namespace: "rigging-lazy", pluginData: { chunk: chunkOf.get(args.path) } };
        if (args.path.startsWith(".") && args.resolveDir) {
          const file = sourcePath(join(args.resolveDir, args.path));
          if (chunkOf.has(file) && chunkOf.get(file) !== self) return { path: file, namespace: "rigging-lazy", pluginData: { chunk: chunkOf.get(file) } };
          if (self && !chunkOf.has(file) && file.startsWith("src/")) {
            return { path: file, namespace: "rigging-lazy", pluginData: { shared: true } };
          }
        }
        const builtin = args.path.replace(/^node:/, "");
        if (builtinModules.includes(builtin) && !loadedAtStart.has(builtin.split("/")[0]))
          return { path: `node:${builtin}`, namespace: "rigging-lazy", pluginData: { builtin } };
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "rigging-lazy" }, async (args) => {
        const { chunk, builtin, shared } = args.pluginData;
        // Constants, so a use is a plain variable rather than a getter.
        if (shared) {
          const names = await takenByKinds(args.path, self);
          if (!SHARED.has(self)) SHARED.set(self, new Map());
          SHARED.get(self).set(args.path, names);
          const take = `const m=__riggingChunk("main").__shared[${JSON.stringify(args.path)}];`;
          return {
            contents: take + names.map((name) => (name === "default" ? "export default m.default;" : `export const ${name}=m.${name};`)).join(""),
            loader: "js",
          };
        }
        if (builtin) {
          const asked = [used.get(`node:${builtin}`), used.get(builtin)];
          const names =
            asked.includes(ALL) || asked.every((a) => a === undefined)
              ? Object.getOwnPropertyNames(require(`node:${builtin}`))
              : asked.flatMap((a) => [...(a ?? [])]);
          return { contents: lazyStub([...new Set(names)], `require(${JSON.stringify(`node:${builtin}`)})`), loader: "js" };
        }
        const names = Object.hasOwn(CODE_CHUNKS, chunk) ? await takenFromKind(args.path) : Object.getOwnPropertyNames(chunkExports[chunk][args.path]);
        return { contents: lazyStub(names, `__riggingChunk(${JSON.stringify(chunk)})[${JSON.stringify(args.path)}]`), loader: "js" };
      });
    },
  };
}

// BUILD_MINIFY=0 keeps names and lines for a profile (`node --cpu-prof`); off by default.
const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: process.env.BUILD_MINIFY !== "0",
  keepNames: false,
  logLevel: "warning",
};

rmSync("dist/lib", { recursive: true, force: true });
rmSync("dist/rigging.cache", { force: true }); // an earlier layout's
mkdirSync("dist/lib", { recursive: true });

// The names source files export, read from a bundle of each without packages.
async function exportNames(files) {
  const { metafile } = await build({
    entryPoints: files.map((file) => `./${file}`),
    bundle: true,
    splitting: true,
    format: "esm",
    packages: "external",
    write: false,
    outdir: "dist/exports",
    metafile: true,
    logLevel: "warning",
  });
  return new Map(Object.values(metafile.outputs).flatMap((output) => (output.entryPoint ? [[output.entryPoint, output.exports]] : [])));
}
const sourceExports = await exportNames(Object.entries(ALL_CHUNKS).flatMap(([chunk, specifiers]) => (FROM_SOURCES.has(chunk) ? specifiers : [])));
const exportsOf = async (file) => {
  if (!sourceExports.has(file)) sourceExports.set(file, (await exportNames([file])).get(file));
  return sourceExports.get(file);
};
/** The names `from` takes from a file: only those are exported (no namespace objects). */
async function namesTaken(file, from) {
  const taken = [...(IMPORTS.get(file) ?? [])].filter(([importer]) => from(importer)).map(([, names]) => names);
  const exported = await exportsOf(file);
  if (taken.includes(ALL)) return exported;
  return [...new Set(taken.flat())].filter((name) => exported.includes(name)).sort();
}
/** What the other files take from a kind's file: main, its heads, the other kinds' files. */
const takenFromKind = (file) => namesTaken(file, (importer) => OWNER.get(importer) !== OWNER.get(file));
/** What a kind's file takes from a file outside them. */
const takenByKinds = (file, chunk) => namesTaken(file, (importer) => OWNER.get(importer) === chunk);

// Each chunk exports only the names the sources import, so esbuild drops the rest.
const chunkExports = {};
for (const [chunk, specifiers] of Object.entries(ALL_CHUNKS)) {
  const file = `dist/lib/${chunk}.cjs`;
  const whole = (s) => (used.get(s) ?? ALL) === ALL;
  const from = (s) => JSON.stringify(FROM_SOURCES.has(chunk) ? `./${s}` : s);
  const taken = Object.hasOwn(CODE_CHUNKS, chunk) ? await Promise.all(specifiers.map(takenFromKind)) : undefined;
  const names = (s, i) => taken?.[i] ?? [...used.get(s)];
  const kept = [...specifiers.keys()].filter((i) => !taken || taken[i].length > 0);
  const imports = kept.map((i) =>
    !taken && whole(specifiers[i]) ? `import*as m${i} from${from(specifiers[i])};` : `import{${names(specifiers[i], i).join(",")}}from${from(specifiers[i])};`,
  );
  const exported = kept.map((i) => `${JSON.stringify(specifiers[i])}:${!taken && whole(specifiers[i]) ? `m${i}` : `{${names(specifiers[i], i).join(",")}}`}`);
  await build({
    ...common,
    stdin: { contents: `${imports.join("")}module.exports={${exported.join(",")}};`, resolveDir: process.cwd(), sourcefile: `${chunk}.js` },
    outfile: file,
    ...(Object.hasOwn(CODE_CHUNKS, chunk)
      ? {
          plugins: [englishOnly, lazyModules(chunkExports, BUN_LOADED_AT_START, chunk)],
          define: { "import.meta.url": "__riggingModule.url", RIGGING_EXAMPLES: buildExamples() },
          banner: { js: 'var __riggingModule={get url(){return __riggingChunk("main").__moduleUrl()}};' },
        }
      : { plugins: [englishOnly] }),
    external: ["pg-native"],
  });
  // A kind's file runs only with main.cjs loaded; its stub's names are sourceExports'.
  if (!Object.hasOwn(CODE_CHUNKS, chunk)) chunkExports[chunk] = require(join(process.cwd(), file));
}

// rigging itself, for Node (run by the launcher) and for Bun (required by
// render.ts). import.meta.url is a getter so a start never pays for it.
const moduleUrl = (file) => `var __riggingModule={get url(){return require("node:url").pathToFileURL(${file}).href}};`;
// The entry exports SHARED too, by path, for the kinds' files: those of `chunks`.
const mainEntry = (entry, chunks) => {
  const merged = new Map();
  for (const chunk of chunks)
    for (const [file, names] of SHARED.get(chunk) ?? []) merged.set(file, [...new Set([...(merged.get(file) ?? []), ...names])].sort());
  const shared = [...merged.entries()].sort();
  return [
    `export * from ${JSON.stringify(`./${entry}`)};`,
    ...shared.map(([file, names], i) => `import {${names.map((name) => `${name} as s${i}_${name}`).join(",")}} from ${JSON.stringify(`./${file}`)};`),
    "export const __moduleUrl = () => import.meta.url;",
    `export const __shared = {${shared.map(([file, names], i) => `${JSON.stringify(file)}:{${names.map((name) => `${name}:s${i}_${name}`).join(",")}}`).join(",")}};`,
  ].join("\n");
};
const mainOptions = (define, banner, outfile, entry, loadedAtStart, chunks) => ({
  ...common,
  stdin: { contents: mainEntry(entry, chunks), resolveDir: process.cwd(), sourcefile: "main.js" },
  outfile,
  plugins: [englishOnly, lazyModules(chunkExports, loadedAtStart)],
  define: { "import.meta.url": "__riggingModule.url", ...define },
  banner: { js: banner },
});
await build(
  mainOptions(
    { RIGGING_BUILD: buildInfo({ binary: false }) },
    moduleUrl("__filename"),
    "dist/lib/main.cjs",
    "src/cli/main.ts",
    LOADED_AT_START,
    Object.keys(CODE_CHUNKS),
  ),
);

// Stored as the function expression the launcher compiles, so V8 reads the
// source as is instead of a joined copy. The Bun build takes esbuild's output.
const WRAPPER = ["(function (exports, require, module, __filename, __dirname, __riggingChunk) {", "\n})"];
const unwrapped = {};
for (const name of ["main", ...Object.keys(ALL_CHUNKS)]) {
  const file = `dist/lib/${name}.cjs`;
  unwrapped[name] = readFileSync(file, "utf8");
  writeFileSync(file, WRAPPER[0] + unwrapped[name] + WRAPPER[1]);
}

writeFileSync(
  "dist/rigging.cjs",
  `#!/usr/bin/env node
// rigging: runs lib/main.cjs, and each part of lib/ it asks for, compiled
// with the V8 code cache the build made for it (scripts/build.mjs).
"use strict";
const { closeSync, fstatSync, openSync, readSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const lib = join(__dirname, "lib");
const warmUp = process.env.RIGGING_WRITE_CODE_CACHE === lib;
const chunks = new Map();
// One buffer for every file read, sized for main.cjs and its cache: a file
// is read into it, its source decoded out of it and its cache read over it,
// so that a run touches that memory once. Fresh memory is dear where a page
// fault costs tens of microseconds (virtual machines): readFileSync of the
// source and of the cache took 519 page faults, this 234. Measured: a
// render 3304 -> 3129 page faults (/usr/bin/time %R; node -e 0 2167); a
// render 193.4 -> 188.8 ms of wall time (0.98x its CPU time; 1.353x ->
// 1.329x node -e 0, paired) and --version 167.7 -> 164.8 ms: medians of 60
// alternated runs of the old build and this one, from the same directory.
let scratch = Buffer.alloc(0);
/** Reads the open file into the scratch buffer and closes it. */
function read(fd, size) {
  try {
    let n = 0;
    for (let got = 1; n < size && got > 0; n += got) got = readSync(fd, scratch, n, size - n, n);
    return scratch.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
function load(name) {
  const loaded = chunks.get(name);
  if (loaded) return loaded.exports;
  const file = join(lib, name + ".cjs");
  const cache = join(lib, name + ".cache");
  const sourceFd = openSync(file, "r");
  let cacheFd;
  try { cacheFd = openSync(cache, "r"); } catch {}
  const sourceSize = fstatSync(sourceFd).size;
  const cacheSize = cacheFd === undefined ? 0 : fstatSync(cacheFd).size;
  if (scratch.length < Math.max(sourceSize, cacheSize)) scratch = Buffer.allocUnsafeSlow(Math.max(sourceSize, cacheSize));
  // (function (exports, require, module, __filename, __dirname, __riggingChunk) {...})
  const source = read(sourceFd, sourceSize).utf8Slice();
  // V8 reads the cache only while it compiles: the next file may overwrite it.
  const cachedData = cacheFd === undefined ? undefined : read(cacheFd, cacheSize);
  const script = new Script(source, { filename: file, cachedData });
  if (warmUp && (!cachedData || script.cachedDataRejected)) process.once("exit", () => writeFileSync(cache, script.createCachedData()));
  const module = { exports: {} };
  chunks.set(name, module);
  // main.cjs runs as this file (its package root and worker threads start here).
  if (name === "main") script.runInThisContext()(module.exports, require, module, __filename, __dirname, load);
  else script.runInThisContext()(module.exports, require, module, file, lib, load);
  return module.exports;
}
load("main").start();
`,
  { mode: 0o755 },
);
writeFileSync(
  "dist/rigging.mjs",
  `#!/usr/bin/env node
// rigging, for paths that name rigging.mjs: the command is rigging.cjs.
import { createRequire } from "node:module";
createRequire(import.meta.url)("./rigging.cjs");
`,
  { mode: 0o755 },
);

// Warm-ups that write each file's code cache: the first run that loads a file
// writes its cache. The values files come from the system registry.
const { SYSTEMS } = await tsImport("../src/profiles/index.ts", import.meta.url);
const warmUps = SYSTEMS.map((system) => system.warmUps ?? system.valuesKinds.map((kind) => kind.example));
const [first, ...others] = warmUps.flat();
const warm = mkdtempSync(join(tmpdir(), "rigging-build-"));
try {
  const caching = { ...process.env, RIGGING_WRITE_CODE_CACHE: join(process.cwd(), "dist", "lib") };
  const runs = [
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
  for (const [args, env] of runs) {
    const ran = spawnSync(process.execPath, ["dist/rigging.cjs", ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    if (ran.status !== 0) console.warn(`warning: rigging ${args[0]} (a warm-up) exited ${ran.status}; files it did not load have no code cache: ${ran.stderr}`);
  }
} finally {
  rmSync(warm, { recursive: true, force: true });
}

// The Bun build: the same files with precompiled bytecode, required by render.ts.
const bun = new URL("../node_modules/.bin/bun", import.meta.url).pathname;
rmSync("dist/bun", { recursive: true, force: true });
if (existsSync(bun)) {
  const staging = mkdtempSync(join(tmpdir(), "rigging-bun-"));
  try {
    // Bun writes the build's own path for __filename; name the file Bun runs.
    // Each chunk is loaded with Bun's require.
    const requireChunk = `var __riggingChunk=n=>require("./"+n+".js");`;
    const banner = `${moduleUrl('process.argv[1]??""')}${requireChunk}`;
    await build(
      mainOptions(
        { RIGGING_BUILD: buildInfo({ binary: false }) },
        banner,
        join(staging, "main.js"),
        "src/cli/render-main.ts",
        BUN_LOADED_AT_START,
        Object.keys(CODE_CHUNKS).filter((chunk) => !NOT_IN_BUN.has(chunk)),
      ),
    );
    for (const chunk of BUN_CHUNKS) writeFileSync(join(staging, `${chunk}.js`), (Object.hasOwn(CODE_CHUNKS, chunk) ? requireChunk : "") + unwrapped[chunk]);
    const entries = ["main", ...BUN_CHUNKS].map((name) => join(staging, `${name}.js`));
    const built = spawnSync(
      bun,
      [
        "build",
        ...entries,
        "--root",
        staging,
        "--target=bun",
        "--format=cjs",
        "--bytecode",
        ...(common.minify ? ["--minify"] : []),
        "--external",
        "pg-native",
        "--outdir",
        "dist/bun",
      ],
      { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" },
    );
    if (built.status !== 0) {
      rmSync("dist/bun", { recursive: true, force: true });
      console.warn(`warning: no Bun build (bun build exited ${built.status}); bun run render.ts runs the sources: ${built.stderr}`);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
} else console.warn("warning: no Bun build (node_modules/.bin/bun is missing); bun run render.ts runs the sources");

writeFileSync(STAMP, "");
