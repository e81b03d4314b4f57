// `npm run build:binary [-- --target NAME ...] [--outfile PATH]`: standalone
// executables built by the pinned Bun, needing no file beside them.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { buildExamples, buildInfo } from "./build-info.mjs";

/** The targets people ask for, as Bun names them. */
export const TARGETS = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
};

const { values } = parseArgs({ options: { target: { type: "string", multiple: true, default: [] }, outfile: { type: "string" } } });
if (values.outfile !== undefined && values.target.length > 1) {
  console.error("error: --outfile names one executable: give at most one --target with it");
  process.exit(2);
}
for (const target of values.target) {
  if (!(target in TARGETS)) {
    console.error(`error: --target ${target}: expected one of ${Object.keys(TARGETS).join(", ")}`);
    process.exit(2);
  }
}

const bun = new URL("../node_modules/.bin/bun", import.meta.url).pathname;
if (!existsSync(bun)) {
  console.error("error: node_modules/.bin/bun is missing: run npm ci first");
  process.exit(2);
}
mkdirSync("dist", { recursive: true });

const builds =
  values.target.length === 0
    ? [{ outfile: values.outfile ?? "dist/rigging" }]
    : values.target.map((t) => ({ target: t, outfile: values.outfile ?? `dist/rigging-${t}${t.startsWith("windows") ? ".exe" : ""}` }));
// check's schemas embedded as NAME.kube (own loader, so no .json import becomes a file).
const schemas = readdirSync("kube-schemas").filter((name) => name.endsWith(".json"));
mkdirSync("dist/kube", { recursive: true });
const staged = schemas.map((name) => `dist/kube/${name.replace(/\.json$/, ".kube")}`);
schemas.forEach((name, i) => copyFileSync(`kube-schemas/${name}`, staged[i]));
process.on("exit", () => staged.forEach((file) => rmSync(file, { force: true })));
for (const { target, outfile } of builds) {
  const args = [
    "build",
    "src/cli/main.ts",
    ...staged,
    "--loader",
    ".kube:file",
    "--asset-naming",
    "[dir]/[name].[ext]",
    "--compile",
    "--minify",
    "--bytecode",
    // A command reads no .env or bunfig.toml from wherever it is run.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    // pg's optional native binding, which rigging never asks for.
    "--external",
    "pg-native",
    "--define",
    `RIGGING_BUILD=${buildInfo({ binary: true })}`,
    "--define",
    `RIGGING_EXAMPLES=${buildExamples()}`,
    "--outfile",
    outfile,
    ...(target ? [`--target=${TARGETS[target]}`] : []),
  ];
  const built = spawnSync(bun, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (built.status !== 0) {
    console.error(`error: bun build --compile${target ? ` for ${target}` : ""} exited ${built.status}:\n${built.stderr}`);
    process.exit(1);
  }
  console.error(`wrote ${outfile}`);
}
