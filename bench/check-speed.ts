// `npx tsx bench/check-speed.ts [INSTALLATIONS]`: the rule catalog's CPU per
// Runner installation (self-check, check's fast and plain paths, with and without classes).
import { readFileSync } from "node:fs";
import { newAdmissionRun, type AdmissionOptions } from "../src/admission/run.ts";
import { parseValuesFile } from "../src/parse/source.ts";
import { renderSource } from "../src/pipeline.ts";
import { RunScope } from "../src/rules/engine.ts";
import { catalog } from "../src/systems/registry.ts";

const COUNT = Number(process.argv[2] ?? 100);
const ROUNDS = 4;
const template = readFileSync(new URL("../examples/compass-runner.yaml", import.meta.url), "utf8");
let next = 0;
const installation = (i: number) =>
  renderSource(
    parseValuesFile(
      template
        .replace(/^name: compass-runner$/m, `name: runner-${i}`)
        .replace(/^namespace: compass-runner$/m, `namespace: tenant-${i % 97}`)
        .replace("value: kvm-node-1", `value: kvm-node-${i}`),
      `cluster-${i}.yaml`,
    ),
  ).objects;
/** A round's installations, each new to the process. */
const fresh = () => Array.from({ length: COUNT }, () => installation(next++));
type Objects = ReturnType<typeof installation>;

function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Per installation: the minimum and the middle of `rounds` rounds, after one dropped. */
function measure(rounds: number, each: (objects: Objects) => void): { min: number; median: number } {
  const samples: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const sets = fresh();
    const ms = cpuMs(() => sets.forEach(each)) / sets.length;
    if (round > 0) samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return { min: samples[0], median: samples[Math.floor(samples.length / 2)] };
}

const selfCheck = measure(ROUNDS, (objects) => catalog.checkObjects(objects, undefined, { rendered: true }));
/** A check run whose admission stage runs with `options`. */
const runWith = (options: AdmissionOptions) => new RunScope().provide(newAdmissionRun, newAdmissionRun(options));
const fastRun = runWith({});
const fast = measure(ROUNDS, (objects) => catalog.checkObjects(objects, undefined, { run: fastRun }));
/** Per round, fresh installations for each side, the side that goes first alternating: the ratio b / a of each round (after one left out). */
function paired(rounds: number, a: (objects: Objects) => void, b: (objects: Objects) => void): number[] {
  const ratios: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const [setsA, setsB] = [fresh(), fresh()];
    let [msA, msB] = [0, 0];
    if (round % 2 === 0) {
      msA = cpuMs(() => setsA.forEach(a));
      msB = cpuMs(() => setsB.forEach(b));
    } else {
      msB = cpuMs(() => setsB.forEach(b));
      msA = cpuMs(() => setsA.forEach(a));
    }
    if (round > 0) ratios.push(msB / msA);
  }
  return ratios.sort((x, y) => x - y);
}
const noClassesRun = runWith({ byClass: false });
const classes = paired(
  2 * ROUNDS,
  (objects) => catalog.checkObjects(objects, undefined, { run: fastRun }),
  (objects) => catalog.checkObjects(objects, undefined, { run: noClassesRun }),
);
const plainRun = runWith({ plain: true });
const plain = measure(ROUNDS, (objects) => catalog.checkObjects(objects, undefined, { run: plainRun }));
const show = (m: { min: number; median: number }, unit: "µs" | "ms") =>
  unit === "µs"
    ? `min ${(m.min * 1000).toFixed(0)} µs, median ${(m.median * 1000).toFixed(0)} µs`
    : `min ${m.min.toFixed(2)} ms, median ${m.median.toFixed(2)} ms`;
console.log(`${COUNT} rendered Runner installations, CPU per installation:`);
console.log(`  render self-check:             ${show(selfCheck, "µs")}`);
console.log(`  check catalog, fast path:      ${show(fast, "ms")}`);
console.log(`  check catalog, plain path:     ${show(plain, "ms")}`);
console.log(`  plain / fast (median):         ${(plain.median / fast.median).toFixed(2)}`);
console.log(`  no classes / fast, paired:     median ${classes[Math.floor(classes.length / 2)].toFixed(2)} (${classes.map((r) => r.toFixed(2)).join(" ")})`);
