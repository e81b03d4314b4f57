// `npm run bench`: what a render costs, measured against the runtimes' own
// start-up and `kubectl kustomize` in the same run, and what a fleet costs.
// Prints a table and writes bench/results.json. Figures are medians; the
// ratios to the baselines of the same run are what to compare across runs.
//
// Environment: BENCH_REPS (process starts, default 15), BENCH_FLEETS
// (default "1000,10000"), BENCH_FLEET_REPS (default 3 for fleets <= 1000).
// Fleets write their output to the temp directory's disk and, where there is
// one, to /dev/shm (memory): creating a file per object costs more than
// rendering it on a busy disk, and the two rows tell the costs apart.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const REPS = Number(process.env.BENCH_REPS ?? 15);
const FLEETS = (process.env.BENCH_FLEETS ?? "1000,10000").split(",").map(Number).filter(Boolean);
const FLEET_REPS = Number(process.env.BENCH_FLEET_REPS ?? 3);
const EXAMPLE = "examples/compass-runner.yaml";
const NODE = process.execPath;
const BUN = existsSync("node_modules/.bin/bun") ? "node_modules/.bin/bun" : which("bun");
const KUBECTL = which("kubectl");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const work = mkdtempSync(join(tmpdir(), "rigging-bench-"));
const notes = [];
const results = { date: new Date().toISOString(), machine: { node: process.version, cpus: (await import("node:os")).cpus().length }, reps: REPS, starts: {}, ratios: {}, fleets: [], notes };

async function main() {
  if (!existsSync("dist/rigging.mjs")) throw new Error("dist/rigging.mjs is missing: run node scripts/build.mjs first");
  const single = join(work, "single");
  run([NODE, "dist/rigging.mjs", "render", EXAMPLE, "-o", single]);

  // What the bundle's two dependencies cost to load on their own.
  const zodOnly = join(work, "zod-only.cjs");
  const yamlOnly = join(work, "yaml-only.cjs");
  await build({ stdin: { contents: 'require("zod").z.string().parse("x")', resolveDir: process.cwd() }, bundle: true, minify: true, platform: "node", format: "cjs", outfile: zodOnly, logLevel: "error" });
  await build({ stdin: { contents: 'require("yaml").parse("a: 1")', resolveDir: process.cwd() }, bundle: true, minify: true, platform: "node", format: "cjs", outfile: yamlOnly, logLevel: "error" });

  const commands = {
    "node -e 0": [NODE, "-e", "0"],
    "node: rigging render": [NODE, "dist/rigging.mjs", "render", EXAMPLE],
    "node: rigging --version": [NODE, "dist/rigging.mjs", "--version"],
    "node: zod alone (bundled)": [NODE, zodOnly],
    "node: yaml alone (bundled)": [NODE, yamlOnly],
  };
  if (BUN) {
    commands["bun -e 0"] = [BUN, "-e", "0"];
    commands["bun: render.ts"] = [BUN, "run", "render.ts", EXAMPLE];
    // What render.ts costs when it runs the TypeScript sources (an edited
    // tree, or no Bun build): through env(1), which adds about a millisecond.
    commands["bun: render.ts from the sources"] = ["env", "RIGGING_FROM_SOURCES=1", BUN, "run", "render.ts", EXAMPLE];
    commands["bun: rigging render (bundle)"] = [BUN, "dist/rigging.mjs", "render", EXAMPLE];
  } else notes.push("bun not found: Bun rows skipped");
  if (KUBECTL) commands["kubectl kustomize"] = [KUBECTL, "kustomize", single];
  else notes.push("kubectl not found: kustomize row skipped");

  // Interleaved rounds, so that a busy moment on the machine hits all alike.
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round < REPS; round++) {
    for (const [name, argv] of Object.entries(commands)) samples[name].push(timed(argv).ms);
  }
  for (const [name, list] of Object.entries(samples)) results.starts[name] = { medianMs: round1(median(list)), minMs: round1(Math.min(...list)) };

  const ms = (name) => results.starts[name]?.medianMs;
  const ratio = (a, b) => (ms(a) && ms(b) ? Math.round((ms(a) / ms(b)) * 100) / 100 : undefined);
  results.ratios = {
    "node render / node -e 0 (target <= 2)": ratio("node: rigging render", "node -e 0"),
    "bun render.ts / kubectl kustomize (target <= 1)": ratio("bun: render.ts", "kubectl kustomize"),
    "bun render (bundle) / kubectl kustomize": ratio("bun: rigging render (bundle)", "kubectl kustomize"),
    "bun render.ts / bun -e 0": ratio("bun: render.ts", "bun -e 0"),
    "node render / kubectl kustomize": ratio("node: rigging render", "kubectl kustomize"),
  };

  const hasCheck = spawnSync(NODE, ["dist/rigging.mjs", "check", "--help"], { stdio: "ignore" }).status === 0;
  if (!hasCheck) notes.push("this build has no `check` command: the check rows are skipped");
  const places = [["disk", work]];
  if (existsSync("/dev/shm")) places.push(["memory", mkdtempSync("/dev/shm/rigging-bench-")]);
  try {
    for (const [where, dir] of places) {
      const rows = FLEETS.map((size) => ({ where, ...fleet(size, hasCheck, dir) }));
      results.fleets.push(...rows);
      const [small, large] = rows;
      if (small && large) results.ratios[`fleet ${large.files} / fleet ${small.files} wall, output on ${where} (linear = ${large.files / small.files})`] = Math.round((large.render.wallMs / small.render.wallMs) * 100) / 100;
    }
  } finally {
    for (const [, dir] of places.slice(1)) rmSync(dir, { recursive: true, force: true });
  }

  writeFileSync("bench/results.json", JSON.stringify(results, null, 2) + "\n");
  print();
}

/** Generates `size` varied, valid CompassRunner values files. */
function generate(dir, size) {
  mkdirSync(dir);
  const template = readFileSync(EXAMPLE, "utf8");
  for (let i = 0; i < size; i++) {
    const ns = `tenant-${i % 97}`;
    const text = template
      .replace(/^name: compass-runner$/m, `name: runner-${i}`)
      .replace(/^namespace: compass-runner$/m, `namespace: ${ns}`)
      .replace(/^  namespace: compass-runner$/m, `  namespace: ${ns}`)
      .replace("value: kvm-node-1", `value: kvm-node-${i}`)
      .replace("serverAddr: https://compass-server.compass.svc", `serverAddr: https://compass-server.compass-${i % 13}.svc`)
      .replace("serverName: compass.example.com", `serverName: compass-${i}.example.com`)
      .replace("tokenExpirationSeconds: 3600", `tokenExpirationSeconds: ${600 + (i % 80000)}`)
      .replace("cidr: 10.244.20.0/24", `cidr: 10.${i % 256}.${(i >> 8) % 256}.0/24`);
    writeFileSync(join(dir, `cluster-${String(i).padStart(5, "0")}.yaml`), text);
  }
}

// Nothing is deleted until every figure is taken: on a file system that
// skips recently freed inodes when it creates files (ext4 without a journal
// does, for a minute or more), deleting one run's output would slow the
// next run's file creation, and measure the bench's own clean-up.
function fleet(size, hasCheck, place) {
  const input = join(work, `fleet-${size}`);
  if (!existsSync(input)) generate(input, size);
  const reps = size <= 1000 ? FLEET_REPS : 1;
  const renders = [];
  let output;
  for (let i = 0; i < reps; i++) {
    output = join(place, `out-${size}-${i + 1}`);
    renders.push(measured([NODE, "dist/rigging.mjs", "render", input, "-o", output]));
  }
  const render = pick(renders);
  const row = { files: size, reps, render: { wallMs: round1(render.ms), rendersPerSecond: Math.round(size / (render.ms / 1000)), peakRssMiB: render.rssMiB } };
  if (hasCheck) {
    const check = measured([NODE, "dist/rigging.mjs", "check", output], [0, 1]);
    row.check = check.ok ? { wallMs: round1(check.ms), filesPerSecond: Math.round(size / (check.ms / 1000)), peakRssMiB: check.rssMiB } : { skipped: `check ${output} exited ${check.status}: ${check.stderr.split("\n")[0]}` };
  }
  return row;
}

/** Runs under /usr/bin/time -v when present, for the peak RSS. */
function measured(argv, okCodes = [0]) {
  const withTime = TIME ? [TIME, "-v", ...argv] : argv;
  const r = timed(withTime, true);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const ok = okCodes.includes(r.status);
  if (!ok && okCodes.length === 1) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return { ...r, ok, rssMiB: rss ? round1(Number(rss[1]) / 1024) : undefined };
}

function timed(argv, keepStderr = false) {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", keepStderr ? "pipe" : "ignore"], encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, stderr: r.stderr ?? "" };
}

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
}

function which(name) {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const round1 = (n) => Math.round(n * 10) / 10;
const pick = (runs) => [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1];

function print() {
  const lines = [];
  const base = results.starts["node -e 0"].medianMs;
  const bunBase = results.starts["bun -e 0"]?.medianMs;
  lines.push(`One process start (median of ${REPS}, ms)`, "");
  lines.push("| command | median ms | min ms | x node -e 0 | x bun -e 0 |", "| --- | ---: | ---: | ---: | ---: |");
  for (const [name, s] of Object.entries(results.starts)) {
    lines.push(`| ${name} | ${s.medianMs} | ${s.minMs} | ${(s.medianMs / base).toFixed(2)} | ${bunBase ? (s.medianMs / bunBase).toFixed(1) : "-"} |`);
  }
  lines.push("", "| ratio | value |", "| --- | ---: |");
  for (const [name, value] of Object.entries(results.ratios)) lines.push(`| ${name} | ${value ?? "-"} |`);
  lines.push("", "Fleets in one process (rigging render DIR -o OUT)", "", "| output on | files | wall ms | renders/s | peak RSS MiB | check wall ms | check files/s | check peak RSS MiB |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const f of results.fleets) {
    const c = f.check && !f.check.skipped ? f.check : undefined;
    lines.push(`| ${f.where} | ${f.files} | ${f.render.wallMs} | ${f.render.rendersPerSecond} | ${f.render.peakRssMiB ?? "-"} | ${c?.wallMs ?? "-"} | ${c?.filesPerSecond ?? "-"} | ${c?.peakRssMiB ?? "-"} |`);
  }
  for (const note of [...notes, ...results.fleets.filter((f) => f.check?.skipped).map((f) => f.check.skipped)]) lines.push(`note: ${note}`);
  lines.push("", "(written to bench/results.json)");
  console.log(lines.join("\n"));
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
