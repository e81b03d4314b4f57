// Bundles the CLI for a fast start (start-up is most of a render's cost, see
// `npm run bench` and docs/performance.md):
// - dist/lib/main.cjs, one minified CommonJS file with rigging itself;
//   zod's message translations are left out (rigging words its own messages);
// - dist/lib/CHUNK.cjs, the dependencies a render does not always need (the
//   `yaml` package, zod, pg, the CEL engine, the NATS client), and each
//   system's folder, each in a file of its own. main.cjs holds a stub in each one's place that loads
//   the file when a command first reads one of its exports; Node's own
//   modules beyond those every process loads are stubbed the same way;
// - dist/rigging.cjs, the command (package.json "bin"): a CommonJS launcher
//   that compiles main.cjs, and each chunk when it is asked for, with the V8
//   code cache dist/lib/NAME.cache made here by warm-up runs, so a run skips
//   most parsing and compiling. A cache from another Node version is
//   rejected by V8 and the file is compiled as usual: slower, never wrong;
// - dist/rigging.mjs, for paths that name it: it runs dist/rigging.cjs;
// - dist/bun/main.js and its chunks, each with its bytecode (.jsc), built
//   from the same files by the pinned Bun for `bun run render.ts`; its
//   entry is src/cli/render-main.ts, the render command alone.
// - dist/kube/, the Kubernetes schemas `check` validates against
//   (scripts/gen-kube-schemas.mjs), read only by check.
// The standalone executable is scripts/build-binary.mjs (npm run build:binary).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import { tsImport } from "tsx/esm/api";
import ts from "typescript";
import { buildExamples, buildInfo } from "./build-info.mjs";
import { generateKubeSchemas, kubeSchemasFresh } from "./gen-kube-schemas.mjs";

// `--if-stale` (`npm run render`): nothing to build when the last complete
// build is newer than every file it is made from, as it is right after
// `npm ci` (whose `prepare` builds). The stamp is written last and removed
// first, so a build that failed half-way is never taken for a complete one.
const STAMP = "dist/.build-stamp";
const INPUTS = ["src", "scripts", "package.json", "package-lock.json"];
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
// check's Kubernetes schemas (dist/kube/), made again only when their packages or their script change.
if (!kubeSchemasFresh()) await generateKubeSchemas();

const require = createRequire(import.meta.url);

/**
 * The dependencies kept out of main.cjs, by the file they go to. Specifiers
 * that share code share a file (one copy of the CEL engine's classes).
 */
const CHUNKS = {
  yaml: ["yaml"],
  zod: ["zod"],
  pg: ["pg"],
  cel: ["@bufbuild/cel", "@bufbuild/cel/ext", "@bufbuild/re2"],
  nats: ["@nats-io/transport-node", "@nats-io/jetstream"],
};

/** A source file's path as the chunks name it: relative to the package root, with forward slashes. */
const sourcePath = (file) => relative(process.cwd(), file).split("\\").join("/");
/**
 * Each system's folder (src/profiles/NAME/) in a file of its own, kind-NAME:
 * its values schema, renderer, notes, rules and admission code, which a
 * render of another kind never runs. What stays in main.cjs is its head,
 * the files the commands read at start: index.ts and system.ts (kind,
 * apps, Pod Security level, shapes; they reach the rest through arrows and
 * a getter) and the constants they read, runtime.ts and ports.ts. A kind's
 * file takes the sources outside the folders from main (SHARED, below),
 * and holds its kind's generated validator (generated-validator.ts, in the
 * folder).
 * Measured against the build before (main.cjs 460 -> 277 kB, its code cache
 * 511 -> 367 kB; Bun's main.js 356 -> 172 kB, bytecode 883 -> 454 kB; a
 * Runner render adds kind-compass-runner, 137 kB, cache 208 kB): paired
 * medians of 30 alternated runs (os.wait4 user+sys, load average 1.3-1.9),
 * `node dist/rigging.cjs render` of examples/compass-runner.yaml 0.99x the
 * CPU time (-43 page faults; callgrind: the same instructions, +0.07%),
 * compass-server.yaml 1.00x (-54), rootpilot-*.yaml 0.96-0.97x (-154),
 * compass.yaml 1.02x (+81: three kinds' files), --version 0.98x (-126);
 * `bun run render.ts` of the same 0.98x (-137), 0.97x (-206), 0.93-0.96x
 * (-220 to -248), 1.01x (+103).
 */
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
/**
 * Sources that a render of one values file never runs, each set in a file of
 * its own built like a kind's (its files bundled, the sources outside every
 * chunk taken from main, a stub in main in each one's place), with the
 * files that only they import (below):
 * - fleet: rendering many files or a directory (src/cli/fleet.ts,
 *   render-stream.ts, the worker threads, output-fleet.ts); a worker thread
 *   loads it when it starts, and finds its job there;
 * - check: `check` and `fn`, with the check's own sources (src/check/);
 * - commands: the other commands but render (main.ts reads each one's run
 *   and help only when asked);
 * - admission: the CR-06 admission stage (src/admission/), which the
 *   Compass Runner's rules run only in a check: a render's self-check
 *   proves CR-06 another way (provenForRendered).
 * Measured against the build before, with init's examples kept with init
 * (src/core/build-examples.ts): main.cjs 277 -> 154 kB, its code cache
 * 367 -> 309 kB; kind-compass-runner 137 -> 107 kB, cache 208 -> 197 kB;
 * Bun's main.js 172 -> 145 kB, bytecode 454 -> 402 kB. `node
 * dist/rigging.cjs render examples/compass-runner.yaml`: 165.3 -> 162.5 M
 * instructions (callgrind, without NODE_EXTRA_CA_CERTS, with --hash-seed=1
 * --random-seed=1 --single-threaded and code caches made with the same
 * flags, so that runs repeat to the instruction; `node -e 0` is 93.3 M),
 * --version 114.5 -> 112.4 M; page faults (/usr/bin/time %R) 3066 -> 2984
 * for it, 3634 -> 3488 for compass-server.yaml, 3893 -> 3803 for
 * compass.yaml, 2960 -> 2883 for rootpilot-eks.yaml, 2585 -> 2511 for
 * --version; CPU time 0.99x (medians of 30 alternated pairs, load average
 * 5.7: the machine was shared, wall time was noise). `bun run render.ts`
 * of it, with node:url left out (src/core/ip.ts): 0.97x the CPU time
 * (process.cpuUsage at exit, medians of 20 alternated pairs, load average
 * 7), page faults 3292 -> 3203.
 */
/** The files of LAZY_SOURCES that render.ts, whose build holds the render command alone, never loads. */
const NOT_IN_BUN = new Set(["check", "commands"]);
const LAZY_SOURCES = {
  fleet: ["src/cli/fleet.ts", "src/cli/render-stream.ts", "src/core/threads.ts"],
  check: ["src/cli/check.ts", "src/cli/fn.ts"],
  commands: ["explain", "schema", "init", "preflight", "pin", "diff", "completion"].map((name) => `src/cli/${name}.ts`),
  admission: ["src/admission/judge.ts"],
};
/**
 * The files made from the sources, each with the files it starts from: every
 * kind's (KIND_CHUNKS) and LAZY_SOURCES, built and loaded alike.
 */
const CODE_CHUNKS = { ...KIND_CHUNKS, ...LAZY_SOURCES };
/** An import's names when a file takes the whole module. */
const ALL = Symbol("the whole module");
/**
 * Every import of src/ that is not for types, read once with the TypeScript
 * parser: the importing file, the specifier, the names taken (or ALL for
 * `import * as`, a default import, a dynamic import() or require()), and
 * whether it is a re-export (`export ... from`) or an import for its side
 * effects alone.
 */
function sourceImports() {
  const found = [];
  const named = (elements) => elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  for (const name of readdirSync("src", { recursive: true })) {
    const file = sourcePath(join("src", String(name)));
    // src/docs/ is read by scripts/gen-docs.ts alone: it is in no bundle, so its imports place no file.
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
/**
 * Each source file's importers, the files of src/ that import or re-export
 * it, with the names each takes from it (none for an import for its side
 * effects), or ALL.
 */
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
/**
 * A source file outside the folders that only one kind's files import goes
 * in that kind's file (or that file of LAZY_SOURCES): the files the CR-06
 * judge imports are its alone, output-fleet.ts is the fleet's.
 */
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
/**
 * The sources outside every chunk that a kind's file imports, by the kind's
 * file (or other file of LAZY_SOURCES): main.cjs exports them (__shared),
 * and the kind's file takes them from there, so there is one copy of each
 * module (one UsageError class, one cache).
 */
const SHARED = new Map();

/**
 * Node's modules that every process has loaded before it runs a line of
 * rigging: imported as they are. Any other (node:crypto, node:net,
 * node:worker_threads, ...) is loaded on first use.
 */
const LOADED_AT_START = new Set(["fs", "path", "url", "util", "events", "buffer", "vm"]);
/**
 * Under Bun, Node's modules are Bun's own, each loaded on first use, and
 * `node:util` is dear: 10-17 ms of wall time to load, where `bun -e 0`
 * takes 36 ms. A render asks it only for parseArgs, which a render of files
 * alone does without (renderArgs in src/cli/render.ts), so the Bun build
 * loads it on first use like the late modules.
 * Measured with renderArgs: `bun run render.ts examples/compass-runner.yaml`
 * 0.89x the CPU time (229 -> 203 ms, medians of 30 alternated runs of the
 * old build and this one, load average 7), 3974 -> 3438 page faults.
 * `node:url` likewise: a render asked it only for domainToASCII
 * (src/core/ip.ts), which under Bun asks the global URL instead; its
 * require took 5.0-5.2 ms (Bun.nanoseconds around it, load average 5).
 * Measured with the files of LAZY_SOURCES: see there.
 */
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

/**
 * The names src/ imports (not as types) from each module, or ALL where a
 * file takes the whole module or imports it for its side effects.
 */
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

/**
 * A CommonJS module whose every export is a getter that loads the real
 * module on first read. esbuild reads an imported CommonJS module's exports
 * at each use (`import_yaml.Document`), so nothing loads before a command
 * reads an export. `__esModule` is a plain value: reading it must not load.
 * The getters sit on the stub's prototype, not on the stub: esbuild wraps
 * each import of it in `__toESM(stub, 1)`, a new object with the stub's
 * prototype and a getter copied in for each of the stub's own properties,
 * at every importing file's start (50 in main.cjs); with none of its own,
 * nothing is copied, and each name is found on the prototype. Measured: the
 * evaluation of main.cjs in a render of examples/compass-runner.yaml 8.55
 * -> 8.2 ms of CPU time and 134 -> 117 page faults (process.resourceUsage()
 * around the launcher's steps, medians of 30 alternated runs of the old
 * build and this one); the rest of the render unchanged.
 */
function lazyStub(names, load) {
  const getters = names.filter((name) => name !== "__esModule").map((name) => `${JSON.stringify(name)}:{enumerable:true,get:()=>m()[${JSON.stringify(name)}]}`);
  const esModule = names.includes("__esModule") ? "__esModule:{value:true}," : "";
  return `let l;const m=()=>l??=${load};module.exports=Object.create(Object.defineProperties({},{${esModule}${getters.join(",")}}));`;
}

/**
 * Resolves each chunked specifier, and each late Node module, to its stub.
 * In the build of a kind's file (`self`), its own files are bundled and the
 * sources outside every chunk are taken from main.cjs.
 */
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
        // Its exports as constants of the kind's file, read once when it loads:
        // a use is a plain variable, not a getter of main's namespace object.
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
          // The names src/ imports from it, under either spelling; all where a file takes the whole module.
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

// The names source files export (a chunked file's stub, a shared file's
// constants), read from a bundle of each with the packages left out.
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
/**
 * The names of a source file that its importers `from` take: a kind's file
 * exports, and main's __shared holds, only those (no namespace objects).
 */
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

// The chunks: each exports its modules by specifier, with only the names the
// sources import from them, so that esbuild leaves out the rest (zod's `z`
// alone is a third of the package).
const chunkExports = {};
for (const [chunk, specifiers] of Object.entries(ALL_CHUNKS)) {
  const file = `dist/lib/${chunk}.cjs`;
  const whole = (s) => (used.get(s) ?? ALL) === ALL;
  const from = (s) => JSON.stringify(FROM_SOURCES.has(chunk) ? `./${s}` : s);
  // A kind's file exports of each of its files what the others take, and nothing of one they do not import.
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
          // The module URL is main's (the package root). The examples, for init (src/core/build-examples.ts).
          define: { "import.meta.url": "__riggingModule.url", RIGGING_EXAMPLES: buildExamples() },
          banner: { js: 'var __riggingModule={get url(){return __riggingChunk("main").__moduleUrl()}};' },
        }
      : { plugins: [englishOnly] }),
    external: ["pg-native"],
  });
  // A kind's file runs only with main.cjs loaded; its stub's names are sourceExports'.
  if (!Object.hasOwn(CODE_CHUNKS, chunk)) chunkExports[chunk] = require(join(process.cwd(), file));
}

// rigging itself, once for Node and once for Bun: the Node bundle is run by
// the launcher, whose file is its import.meta.url (where the package root
// and worker threads are found); the Bun one is required by render.ts and
// loads its chunks with Bun's own require. import.meta.url is a getter,
// worked out when read (the package root, a worker thread), not at every
// start: 0.2-0.3 ms of a Node start, about 1 ms of a Bun one (pathToFileURL's
// first call, timed alone).
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

// Each file of dist/lib/ is stored as the function expression the launcher
// compiles: reading it gives V8 the source as it is, where joining the
// wrapper on at run time made a second copy of main.cjs's 440 kB to flatten.
// Measured: compile with the code cache 22 ms -> 14.5 ms (median of 8 fresh
// processes each, node -e with hrtime around readFileSync and new Script).
// The Bun build takes the files as esbuild wrote them.
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

// The warm-ups: a render to stdout, the run the caches are for (its
// caches hold the functions it compiled), then a check of a rendered set,
// which loads the CEL engine for the admission policies. A file's cache is
// written by the first warm-up that loads it. The values files rendered are
// each system's warm-ups, from the registry (src/rules/system.ts).
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

// The Bun build: the same files, each with precompiled bytecode, required by
// render.ts; main.js loads a chunk with Bun's require, which reads its bytecode.
const bun = new URL("../node_modules/.bin/bun", import.meta.url).pathname;
rmSync("dist/bun", { recursive: true, force: true });
if (existsSync(bun)) {
  const staging = mkdtempSync(join(tmpdir(), "rigging-bun-"));
  try {
    // Bun's bundler writes the build's own path in for __filename. Nothing
    // in this build reads the module URL (its examples are built in, and it
    // runs on one thread), so it names the file Bun runs: render.ts.
    // main.js, and each kind's file (which takes main's exports and its sibling chunks), load a chunk with Bun's require.
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
