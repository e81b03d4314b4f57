// `node bench/emit.mjs`: the fast YAML writer against the reference path, warm
// on a fleet's objects and cold in fresh processes, checking both write the same bytes.
// Environment: BENCH_EMIT_FILES, BENCH_EMIT_ROUNDS, BENCH_EMIT_COLD.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { fleetValues } from "./fleet-values.mjs";

const FILES = Number(process.env.BENCH_EMIT_FILES ?? 200);
const ROUNDS = Number(process.env.BENCH_EMIT_ROUNDS ?? 15);
const COLD = Number(process.env.BENCH_EMIT_COLD ?? 15);
const EXAMPLE = "examples/compass-runner.yaml";

const ENTRY = `
export { toYaml, toYamlReference } from "./src/emit/emit.ts";
export { parseValuesFile } from "./src/parse/source.ts";
export { renderSource } from "./src/pipeline.ts";
`;

/** One emit of one render's objects, first thing in a fresh process: prints its milliseconds. */
const COLD_SCRIPT = `
const [bundle, path, file] = process.argv.slice(1);
const m = require(bundle);
const { readFileSync } = require("node:fs");
const objects = m.renderSource(m.parseValuesFile(readFileSync(file, "utf8"), file)).objects;
const emit = m[path];
const start = process.hrtime.bigint();
for (const o of objects) emit(o);
process.stdout.write(String(Number(process.hrtime.bigint() - start) / 1e6));
`;

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];

async function main(work) {
  const bundle = join(work, "emit.cjs");
  await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile: bundle,
    logLevel: "error",
    external: ["pg-native"],
  });
  const m = await import(pathToFileURL(bundle).href);

  const inputs = [...readdirSync("examples").map((f) => join("examples", f)), "test/fixtures/upstream/values.example.json"].map((file) => [
    file,
    readFileSync(file, "utf8"),
  ]);
  fleetValues(FILES).forEach((text, i) => inputs.push([`cluster-${i}.yaml`, text]));
  const objects = inputs.flatMap(([file, text]) => m.renderSource(m.parseValuesFile(text, file)).objects);

  let bytes = 0;
  for (const o of objects) {
    const fast = m.toYaml(o);
    if (fast !== m.toYamlReference(o)) throw new Error(`the paths differ on ${o.kind} ${o.metadata.name}`);
    bytes += fast.length;
  }

  // Interleaved rounds, each path over every object, after the warm-up above.
  const samples = { toYaml: [], toYamlReference: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const path of Object.keys(samples)) {
      const emit = m[path];
      const start = process.hrtime.bigint();
      for (const o of objects) emit(o);
      samples[path].push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const fast = median(samples.toYaml);
  const reference = median(samples.toYamlReference);

  const cold = { toYaml: [], toYamlReference: [] };
  for (let round = 0; round < COLD; round++) {
    for (const path of Object.keys(cold)) {
      const r = spawnSync(process.execPath, ["-e", COLD_SCRIPT, resolve(bundle), path, EXAMPLE], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(r.stderr);
      cold[path].push(Number(r.stdout));
    }
  }
  const coldFast = median(cold.toYaml);
  const coldReference = median(cold.toYamlReference);

  const f = (n) => n.toFixed(2);
  console.log(
    [
      `Emit of ${objects.length} objects (${inputs.length} values files: the examples, the upstream example and ${FILES} fleet files), ${(bytes / 1024).toFixed(0)} KiB of YAML, median of ${ROUNDS} rounds`,
      "",
      "| path | ms per round | µs per object |",
      "| --- | ---: | ---: |",
      `| reference (toYamlReference) | ${f(reference)} | ${f((reference * 1000) / objects.length)} |`,
      `| fast (toYaml) | ${f(fast)} | ${f((fast * 1000) / objects.length)} |`,
      "",
      `fleet (warm): fast path ${f(reference / fast)}x cheaper`,
      `single render (cold, first emit of ${EXAMPLE} in a fresh process, median of ${COLD}): reference ${f(coldReference)} ms, fast ${f(coldFast)} ms, ${f(coldReference / coldFast)}x cheaper`,
      "both paths wrote the same bytes for every object",
    ].join("\n"),
  );
}

const work = mkdtempSync(join(tmpdir(), "rigging-bench-emit-"));
try {
  await main(work);
} finally {
  rmSync(work, { recursive: true, force: true });
}
