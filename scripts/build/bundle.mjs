// esbuild's part: each chunk of dist/lib/, then main.cjs, which exports the
// sources the chunks share so each module has one copy.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";
import { buildExamples, buildInfo } from "../build-info.mjs";
import { ALL, seams } from "./chunks.mjs";
import { englishOnly, lazyModules } from "./lazy.mjs";

const require = createRequire(import.meta.url);

// BUILD_MINIFY=0 keeps names and lines for a profile (`node --cpu-prof`); off by default.
export const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: process.env.BUILD_MINIFY !== "0",
  keepNames: false,
  logLevel: "warning",
};

/** Node modules loaded at start, for Node and for Bun. */
export const LOADED_AT_START = new Set(seams.NODE_AT_START);
export const BUN_LOADED_AT_START = new Set(seams.NODE_AT_START.filter((name) => !seams.BUN_LATE.includes(name)));

/** The names source files export, read from a bundle of each without packages. */
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

/** The state the builds share: the plan, each package chunk's exports, and the sources each chunk takes from main.cjs. */
export async function startBundle(plan) {
  const sourceExports = await exportNames(Object.values(plan.codeChunks).flat());
  const exportsOf = async (file) => {
    if (!sourceExports.has(file)) sourceExports.set(file, (await exportNames([file])).get(file));
    return sourceExports.get(file);
  };
  /** The names `from` takes from a file: only those are exported (no namespace objects). */
  const namesTaken = async (file, from) => {
    const taken = [...(plan.importers.get(file) ?? [])].filter(([importer]) => from(importer)).map(([, names]) => names);
    const exported = await exportsOf(file);
    if (taken.includes(ALL)) return exported;
    return [...new Set(taken.flat())].filter((name) => exported.includes(name)).sort();
  };
  const { owner } = plan;
  return {
    plan,
    chunkExports: {},
    shared: new Map(),
    /** What the other files take from a chunk's file: main, the heads, the other chunks' files. */
    takenFromKind: (file) => namesTaken(file, (importer) => owner.get(importer) !== owner.get(file)),
    /** What a chunk's files take from a file outside them. */
    takenByKinds: (file, chunk) => namesTaken(file, (importer) => owner.get(importer) === chunk),
  };
}

/** A chunk's entry: it imports the names the sources take from each of its files or specifiers and exports them by path. */
async function chunkEntry(bundle, chunk, specifiers) {
  const { codeChunks, used } = bundle.plan;
  const fromSources = Object.hasOwn(codeChunks, chunk);
  const whole = (s) => (used.get(s) ?? ALL) === ALL;
  const from = (s) => JSON.stringify(fromSources ? `./${s}` : s);
  const taken = fromSources ? await Promise.all(specifiers.map(bundle.takenFromKind)) : undefined;
  const names = (s, i) => taken?.[i] ?? [...used.get(s)];
  const kept = [...specifiers.keys()].filter((i) => !taken || taken[i].length > 0);
  const imports = kept.map((i) =>
    !taken && whole(specifiers[i]) ? `import*as m${i} from${from(specifiers[i])};` : `import{${names(specifiers[i], i).join(",")}}from${from(specifiers[i])};`,
  );
  const exported = kept.map((i) => `${JSON.stringify(specifiers[i])}:${!taken && whole(specifiers[i]) ? `m${i}` : `{${names(specifiers[i], i).join(",")}}`}`);
  return `${imports.join("")}module.exports={${exported.join(",")}};`;
}

/** Builds every chunk into dist/lib/; each exports only the names the sources import, so esbuild drops the rest. */
export async function buildChunks(bundle) {
  rmSync("dist/lib", { recursive: true, force: true });
  rmSync("dist/rigging.cache", { force: true }); // an earlier layout's
  mkdirSync("dist/lib", { recursive: true });
  const { allChunks, codeChunks } = bundle.plan;
  for (const [chunk, specifiers] of Object.entries(allChunks)) {
    const file = `dist/lib/${chunk}.cjs`;
    const fromSources = Object.hasOwn(codeChunks, chunk);
    await build({
      ...common,
      stdin: { contents: await chunkEntry(bundle, chunk, specifiers), resolveDir: process.cwd(), sourcefile: `${chunk}.js` },
      outfile: file,
      ...(fromSources
        ? {
            plugins: [englishOnly, lazyModules(bundle, BUN_LOADED_AT_START, chunk)],
            define: { "import.meta.url": "__riggingModule.url", RIGGING_EXAMPLES: buildExamples() },
            banner: { js: 'var __riggingModule={get url(){return __riggingChunk("main").__moduleUrl()}};' },
          }
        : { plugins: [englishOnly] }),
      external: ["pg-native"],
    });
    // A source chunk runs only with main.cjs loaded; its stub's names are read from the sources.
    if (!fromSources) bundle.chunkExports[chunk] = require(join(process.cwd(), file));
  }
}

/** import.meta.url as a getter, so a start never pays for it. */
export const moduleUrl = (file) => `var __riggingModule={get url(){return require("node:url").pathToFileURL(${file}).href}};`;

/** The entry, exporting also the sources that `chunks` take from main, by path. */
function mainEntry(bundle, entry, chunks) {
  const merged = new Map();
  for (const chunk of chunks)
    for (const [file, names] of bundle.shared.get(chunk) ?? []) merged.set(file, [...new Set([...(merged.get(file) ?? []), ...names])].sort());
  const shared = [...merged.entries()].sort();
  return [
    `export * from ${JSON.stringify(`./${entry}`)};`,
    ...shared.map(([file, names], i) => `import {${names.map((name) => `${name} as s${i}_${name}`).join(",")}} from ${JSON.stringify(`./${file}`)};`),
    "export const __moduleUrl = () => import.meta.url;",
    `export const __shared = {${shared.map(([file, names], i) => `${JSON.stringify(file)}:{${names.map((name) => `${name}:s${i}_${name}`).join(",")}}`).join(",")}};`,
  ].join("\n");
}

/** Builds rigging itself from `entry`, for Node (run by the launcher) or for Bun (required by render.ts). */
export async function buildMain(bundle, { banner, outfile, entry, loadedAtStart, chunks }) {
  await build({
    ...common,
    stdin: { contents: mainEntry(bundle, entry, chunks), resolveDir: process.cwd(), sourcefile: "main.js" },
    outfile,
    plugins: [englishOnly, lazyModules(bundle, loadedAtStart)],
    define: { "import.meta.url": "__riggingModule.url", RIGGING_BUILD: buildInfo({ binary: false }) },
    banner: { js: banner },
  });
}

/**
 * Stores each file of dist/lib/ as the function expression the launcher
 * compiles, so V8 reads the source as is; returns esbuild's output, by name, for the Bun build.
 */
export function wrapForLauncher(names) {
  const [head, tail] = ["(function (exports, require, module, __filename, __dirname, __riggingChunk) {", "\n})"];
  const unwrapped = {};
  for (const name of names) {
    const file = `dist/lib/${name}.cjs`;
    unwrapped[name] = readFileSync(file, "utf8");
    writeFileSync(file, head + unwrapped[name] + tail);
  }
  return unwrapped;
}
