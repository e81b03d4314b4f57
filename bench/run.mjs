// `npm run bench`: a render's cost against the runtimes' start-up and
// `kubectl kustomize` in the same run, and a fleet's; checks each target of
// docs/performance.md and writes bench/results.json. Compare ratios, not times.
// Environment: BENCH_REPS, BENCH_FLEETS, BENCH_FLEET_REPS, BENCH_MEMORY=0.
// Each fleet's output is also checked by `kubeconform -strict` (bench/kubeconform.mjs).
// Fleets write to disk and to /dev/shm so file creation and rendering separate;
// bench/read-floor.mjs gives the parse floor no check can go below.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fleetValues } from "./fleet-values.mjs";
import { kubeconform, kubeconformLines, kubeconformRatios, prepareKubeconform } from "./kubeconform.mjs";
import { differential, differentialLines } from "./differential.mjs";

const REPS = Number(process.env.BENCH_REPS ?? 15);
const FLEETS = (process.env.BENCH_FLEETS ?? "1000,10000").split(",").map(Number).filter(Boolean);
const FLEET_REPS = Number(process.env.BENCH_FLEET_REPS ?? 3);
const MEMORY = process.env.BENCH_MEMORY !== "0";
const EXAMPLE = "examples/compass-runner.yaml";
const NODE = process.execPath;
const RIGGING = "dist/rigging.cjs";
// The standalone executable, from `npm run build:binary`.
const BINARY = "dist/rigging";
const BUN = existsSync("node_modules/.bin/bun") ? "node_modules/.bin/bun" : which("bun");
const KUBECTL = which("kubectl");
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
/** The targets of docs/performance.md. */
const TARGET = {
  nodeRender: 1.3,
  bunRender: 0.6,
  binaryRender: 0.5,
  fleetPerStart: 180,
  fleetRssMiB: 200,
  checkPerReadFloor: 3.5,
  fleetFiles: 10000,
  // `rigging check` beside `kubeconform -strict` on the same output: wall at every fleet size, peak RSS at fleetFiles.
  checkWallPerKubeconform: 1.0,
  checkRssPerKubeconform: 1.5,
};
/** Baseline starts taken around each fleet, so that its rate pairs with the load of its own moment. */
const FLEET_BASE_REPS = 5;
/** kubeconform's binary, once its schemas are there; undefined skips its rows. */
let kubeconformBinary;

const work = mkdtempSync(join(tmpdir(), "rigging-bench-"));
const notes = [];
const results = {
  date: new Date().toISOString(),
  machine: { node: process.version, bun: BUN ? run([BUN, "--version"]).trim() : undefined, cpus: cpus().length, loadAverage: loadavg() },
  env: { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS !== undefined, NODE_OPTIONS: process.env.NODE_OPTIONS ?? "" },
  reps: REPS,
  targets: [],
  starts: {},
  ratios: {},
  fleets: [],
  notes,
};

async function main() {
  if (!existsSync(RIGGING)) throw new Error(`${RIGGING} is missing: run node scripts/build.mjs first`);
  const single = join(work, "single");
  run([NODE, RIGGING, "render", EXAMPLE, "-o", single]);

  const commands = {
    "node -e 0": [NODE, "-e", "0"],
    "node: rigging render": [NODE, RIGGING, "render", EXAMPLE],
    "node: rigging --version (load only)": [NODE, RIGGING, "--version"],
  };
  // NODE_EXTRA_CA_CERTS is a fixed start-up cost that moves the ratio, so both
  // sides are also timed without it.
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    commands["node -e 0, without NODE_EXTRA_CA_CERTS"] = ["env", "-u", "NODE_EXTRA_CA_CERTS", NODE, "-e", "0"];
    commands["node: rigging render, without NODE_EXTRA_CA_CERTS"] = ["env", "-u", "NODE_EXTRA_CA_CERTS", NODE, RIGGING, "render", EXAMPLE];
  }
  if (BUN) {
    commands["bun -e 0"] = [BUN, "-e", "0"];
    commands["bun: bun run render.ts"] = [BUN, "run", "render.ts", EXAMPLE];
    // What render.ts costs when it runs the TypeScript sources (an edited tree, or no Bun build), through env(1).
    commands["bun: render.ts from the sources"] = ["env", "RIGGING_FROM_SOURCES=1", BUN, "run", "render.ts", EXAMPLE];
  } else notes.push("bun not found: the Bun rows and target are skipped");
  if (existsSync(BINARY)) commands["binary: dist/rigging render"] = [BINARY, "render", EXAMPLE];
  else notes.push(`${BINARY} not found (npm run build:binary): its row and target are skipped`);
  if (KUBECTL) commands["kubectl kustomize (the same objects)"] = [KUBECTL, "kustomize", single];
  else notes.push("kubectl not found: the kustomize row and the Bun target are skipped");

  // Interleaved rounds, so that a busy moment on the machine hits all alike.
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round < REPS; round++) {
    for (const [name, argv] of Object.entries(commands)) samples[name].push(timed(argv).ms);
  }
  for (const [name, list] of Object.entries(samples)) results.starts[name] = { medianMs: round1(median(list)), minMs: round1(Math.min(...list)) };

  const ms = (name) => results.starts[name]?.medianMs;
  const ratio = (a, b) => (ms(a) && ms(b) ? round2(ms(a) / ms(b)) : undefined);
  results.ratios = {
    "node render / node -e 0": ratio("node: rigging render", "node -e 0"),
    "node --version / node -e 0": ratio("node: rigging --version (load only)", "node -e 0"),
    "node render / node -e 0, without NODE_EXTRA_CA_CERTS": ratio(
      "node: rigging render, without NODE_EXTRA_CA_CERTS",
      "node -e 0, without NODE_EXTRA_CA_CERTS",
    ),
    "bun run render.ts / kubectl kustomize": ratio("bun: bun run render.ts", "kubectl kustomize (the same objects)"),
    "bun run render.ts / bun -e 0": ratio("bun: bun run render.ts", "bun -e 0"),
    "node render / kubectl kustomize": ratio("node: rigging render", "kubectl kustomize (the same objects)"),
    "binary render / node -e 0": ratio("binary: dist/rigging render", "node -e 0"),
  };
  for (const [name, value] of Object.entries(results.ratios)) if (value === undefined) delete results.ratios[name];
  target("one Node render of examples/compass-runner.yaml", "x node -e 0", results.ratios["node render / node -e 0"], "<=", TARGET.nodeRender);
  target(
    "bun run render.ts examples/compass-runner.yaml",
    "x kubectl kustomize",
    results.ratios["bun run render.ts / kubectl kustomize"],
    "<=",
    TARGET.bunRender,
  );

  target("the standalone executable's render of the same file", "x node -e 0", results.ratios["binary render / node -e 0"], "<=", TARGET.binaryRender);

  if (FLEETS.length > 0) kubeconformBinary = prepareKubeconform(notes);
  const places = [["disk", work]];
  if (MEMORY && existsSync("/dev/shm")) places.push(["memory", mkdtempSync("/dev/shm/rigging-bench-")]);
  try {
    for (const [where, dir] of places) {
      const rows = FLEETS.map((size) => ({ where, ...fleet(size, dir) }));
      results.fleets.push(...rows);
      for (const row of rows) Object.assign(results.ratios, kubeconformRatios(row));
      const [small, large] = rows;
      if (small && large)
        results.ratios[`fleet ${large.files} / fleet ${small.files} wall, output on ${where} (linear = ${large.files / small.files})`] = round2(
          large.render.wallMs / small.render.wallMs,
        );
    }
  } finally {
    for (const [, dir] of places.slice(1)) rmSync(dir, { recursive: true, force: true });
  }
  const big = results.fleets.find((f) => f.where === "disk" && f.files === TARGET.fleetFiles);
  const what = `${TARGET.fleetFiles.toLocaleString("en")} values files`;
  if (big) {
    target(`a fleet of ${what} rendered to disk, self-checked`, "installations per node -e 0", big.render.perNodeStart, ">=", TARGET.fleetPerStart);
    target(`that fleet's peak RSS`, "MiB", big.render.peakRssMiB, "<", TARGET.fleetRssMiB);
    const checkToFloor = big.check?.wallMs ? round2(big.check.wallMs / big.readFloor.wallMs) : undefined;
    target(`rigging check of its ${TARGET.fleetFiles.toLocaleString("en")} installations`, "x its read floor", checkToFloor, "<=", TARGET.checkPerReadFloor);
    results.ratios[`check of the ${TARGET.fleetFiles} installations / reading and parsing their files alone (wall)`] = checkToFloor;
  } else notes.push(`no fleet of ${what} on disk in BENCH_FLEETS: its targets are not measured`);
  kubeconformTargets(big);
  results.agreement = differential(notes);

  writeFileSync("bench/results.json", `${JSON.stringify(results, null, 2)}\n`);
  print();
}

/** check against kubeconform on the same output: wall at each fleet size on disk, peak RSS at the large one. */
function kubeconformTargets(big) {
  const ratio = (a, b) => (a && b ? round2(a / b) : undefined);
  for (const f of results.fleets.filter((f) => f.where === "disk")) {
    const name = `rigging check of ${f.files.toLocaleString("en")} installations, wall`;
    target(name, "x kubeconform -strict", ratio(f.check?.wallMs, f.kubeconform?.wallMs), "<=", TARGET.checkWallPerKubeconform);
  }
  const rss = ratio(big?.check?.peakRssMiB, big?.kubeconform?.peakRssMiB);
  target(
    `rigging check of ${TARGET.fleetFiles.toLocaleString("en")} installations, peak RSS`,
    "x kubeconform -strict",
    rss,
    "<=",
    TARGET.checkRssPerKubeconform,
  );
}

/** Records one target: its value, the bound, and PASS, FAIL or NOT MEASURED. */
function target(name, unit, value, op, bound) {
  const pass = value === undefined ? undefined : op === "<=" ? value <= bound : op === "<" ? value < bound : value >= bound;
  results.targets.push({ name, value, unit, target: `${op} ${bound}`, result: pass === undefined ? "NOT MEASURED" : pass ? "PASS" : "FAIL" });
}

/** Generates `size` varied, valid CompassRunner values files. */
function generate(dir, size) {
  mkdirSync(dir);
  for (const [i, text] of fleetValues(size).entries()) writeFileSync(join(dir, `cluster-${String(i).padStart(5, "0")}.yaml`), text);
}

// Nothing is deleted until every figure is taken: some file systems skip
// recently freed inodes, so cleaning up would slow the next run's creates.
function fleet(size, place) {
  const input = join(work, `fleet-${size}`);
  if (!existsSync(input)) generate(input, size);
  const reps = size <= 1000 ? FLEET_REPS : 1;
  const renders = [];
  let output;
  const base = [];
  for (let i = 0; i < reps; i++) {
    output = join(place, `out-${size}-${i + 1}`);
    base.push(...baseStarts());
    renders.push(measured([NODE, RIGGING, "render", input, "-o", output]));
  }
  const render = pick(renders);
  const check = measured([NODE, RIGGING, "check", output], [0, 1]);
  // The same output, right after check, so that both meet the machine in the same state.
  const kc = kubeconformBinary ? kubeconform(kubeconformBinary, output, measured, notes) : undefined;
  // The Kubernetes schema alone, kubeconform's own question, right after it.
  const schemaOnly = measured([NODE, RIGGING, "check", "--schema-only", output], [0, 1]);
  // What check cannot go below: the same files read and parsed by js-yaml alone (bench/read-floor.mjs).
  const floor = measured([NODE, "bench/read-floor.mjs", output]);
  base.push(...baseStarts());
  // Installations per `node -e 0`: how many a fleet renders in the time one bare start takes, starts taken around it.
  const startMs = median(base);
  const perStart = (wallMs) => Math.round((size * startMs) / wallMs);
  const row = {
    files: size,
    reps,
    nodeStartMs: round1(startMs),
    render: { wallMs: round1(render.ms), perSecond: Math.round(size / (render.ms / 1000)), perNodeStart: perStart(render.ms), peakRssMiB: render.rssMiB },
  };
  const objects = Number(/in (\d+) object\(s\)/.exec(check.stderr)?.[1] ?? Number.NaN);
  row.check = check.ok
    ? {
        wallMs: round1(check.ms),
        perSecond: Math.round(size / (check.ms / 1000)),
        perNodeStart: perStart(check.ms),
        peakRssMiB: check.rssMiB,
        objects,
        objectsPerSecond: Math.round(objects / (check.ms / 1000)) || undefined,
      }
    : { skipped: `check ${output} exited ${check.status}: ${check.stderr.split("\n")[0]}` };
  row.schemaOnly = schemaOnly.ok
    ? { wallMs: round1(schemaOnly.ms), peakRssMiB: schemaOnly.rssMiB, objects: Number(/in (\d+) object\(s\)/.exec(schemaOnly.stderr)?.[1] ?? Number.NaN) }
    : { skipped: `check --schema-only ${output} exited ${schemaOnly.status}: ${schemaOnly.stderr.split("\n")[0]}` };
  if (row.schemaOnly.objects) row.schemaOnly.objectsPerSecond = Math.round(row.schemaOnly.objects / (schemaOnly.ms / 1000));
  if (kc) row.kubeconform = kc;
  row.readFloor = { wallMs: round1(floor.ms), perNodeStart: perStart(floor.ms) };
  if (check.ok && check.status !== 0) notes.push(`check of the ${size}-file fleet exited 1 (findings)`);
  return row;
}

function baseStarts() {
  return Array.from({ length: FLEET_BASE_REPS }, () => timed([NODE, "-e", "0"]).ms);
}

/** Runs under /usr/bin/time -v when present, for the peak RSS. */
function measured(argv, okCodes = [0], keepStdout = false) {
  const withTime = TIME ? [TIME, "-v", ...argv] : argv;
  const r = timed(withTime, true, keepStdout);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const ok = okCodes.includes(r.status);
  if (!ok && okCodes.length === 1) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return { ...r, ok, rssMiB: rss ? round1(Number(rss[1]) / 1024) : undefined };
}

function timed(argv, keepStderr = false, keepStdout = false) {
  const start = process.hrtime.bigint();
  const stdio = ["ignore", keepStdout ? "pipe" : "ignore", keepStderr ? "pipe" : "ignore"];
  const r = spawnSync(argv[0], argv.slice(1), { stdio, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function which(name) {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const round1 = (n) => Math.round(n * 10) / 10;
const round2 = (n) => Math.round(n * 100) / 100;
const pick = (runs) => [...runs].sort((a, b) => a.ms - b.ms)[runs.length >> 1];

function print() {
  const lines = ["Targets (docs/performance.md)", "", "| target | measured | bound | result |", "| --- | ---: | ---: | --- |"];
  for (const t of results.targets) lines.push(`| ${t.name} | ${t.value ?? "-"} ${t.unit} | ${t.target} | ${t.result} |`);
  const base = results.starts["node -e 0"].medianMs;
  const bunBase = results.starts["bun -e 0"]?.medianMs;
  lines.push("", `One process start (median of ${REPS}, ms; load average ${results.machine.loadAverage.map((l) => l.toFixed(1)).join(" ")} at the start)`, "");
  lines.push("| command | median ms | min ms | x node -e 0 | x bun -e 0 |", "| --- | ---: | ---: | ---: | ---: |");
  for (const [name, s] of Object.entries(results.starts)) {
    lines.push(`| ${name} | ${s.medianMs} | ${s.minMs} | ${(s.medianMs / base).toFixed(2)} | ${bunBase ? (s.medianMs / bunBase).toFixed(1) : "-"} |`);
  }
  lines.push("", "| ratio | value |", "| --- | ---: |");
  for (const [name, value] of Object.entries(results.ratios)) lines.push(`| ${name} | ${value ?? "-"} |`);
  lines.push(
    "",
    "Fleets in one process (rigging render DIR -o OUT, then rigging check OUT; the read floor is node bench/read-floor.mjs OUT: the files check reads, parsed by js-yaml alone)",
    "",
  );
  lines.push(
    "| output on | files | node -e 0 ms | render wall ms | renders/s | per node -e 0 | peak RSS MiB | check wall ms | checks/s | per node -e 0 | check peak RSS MiB | read floor wall ms | per node -e 0 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const f of results.fleets) {
    const c = f.check && !f.check.skipped ? f.check : undefined;
    lines.push(
      `| ${f.where} | ${f.files} | ${f.nodeStartMs} | ${f.render.wallMs} | ${f.render.perSecond} | ${f.render.perNodeStart} | ${f.render.peakRssMiB ?? "-"} | ${c?.wallMs ?? "-"} | ${c?.perSecond ?? "-"} | ${c?.perNodeStart ?? "-"} | ${c?.peakRssMiB ?? "-"} | ${f.readFloor.wallMs} | ${f.readFloor.perNodeStart} |`,
    );
  }
  lines.push(...kubeconformLines(results.fleets));
  lines.push(...differentialLines(results.agreement));
  const skippedChecks = results.fleets.flatMap((f) => [f.check?.skipped, f.schemaOnly?.skipped].filter(Boolean));
  for (const note of [...notes, ...skippedChecks]) lines.push(`note: ${note}`);
  lines.push("", "(written to bench/results.json)");
  console.log(lines.join("\n"));
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
