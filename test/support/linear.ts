// Time that grows linearly, asserted as a ratio against a linear fit and
// never as an absolute time. The fit is the smallest size's CPU time scaled
// by size, so a constant start-up cost only lowers the ratio; a quadratic
// step shows as a ratio near the size ratio (8 from a size to eight times
// it), far above the bound. Each size's least CPU time over a few
// interleaved rounds counts (a busy machine only adds time): the smallest
// size's every round, a larger size's again only while it is above the
// bound, so a linear step costs one run of each larger size and a
// quadratic one fails after every round. linear.test.ts runs a quadratic
// scan through both forms.
import { expect } from "vitest";
import { breathe } from "./breathe.ts";

/** How far above the linear fit a size may take: generous, for a loaded machine. */
export const LINEAR_SLACK = 3;

/** The CPU time (ms, at least 1: below, it is noise) of one run of `work`: the process's, so a busy machine adds little. */
function cpuTime(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return Math.max((used.user + used.system) / 1000, 1);
}

/** Each size's time over the linear fit from the smallest. */
const ratiosOf = (sizes: readonly number[], times: readonly number[]) => times.map((time, i) => time / ((times[0] * sizes[i]) / sizes[0]));

/**
 * Whether size `i` is run (again) this round: the smallest every round, as
 * the fit stands on its least time and it costs least; another size on its
 * first round, then only while it is above the bound.
 */
const worthAnotherRun = (sizes: readonly number[], least: readonly number[], i: number) =>
  i === 0 || least[i] === Number.POSITIVE_INFINITY || ratiosOf(sizes, least)[i] > LINEAR_SLACK;

/**
 * Runs `make(size)`'s work at each size (the smallest first) and expects
 * each time within LINEAR_SLACK of the linear fit, taking each size's least
 * time of up to `rounds` rounds. Returns the ratios, for messages.
 */
export function expectLinear(sizes: readonly number[], make: (size: number) => () => void, rounds = 3): number[] {
  const works = sizes.map(make);
  works[0](); // warm: compiled code and caches, so the first size is not charged for them
  const least = sizes.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < rounds; round++)
    for (const [i, work] of works.entries()) if (worthAnotherRun(sizes, least, i)) least[i] = Math.min(least[i], cpuTime(work));
  return judged(sizes, least);
}

/**
 * `expectLinear` for work that runs for seconds: the test's worker answers
 * its runner between two runs (breathe.ts), and each size's input is made
 * just before its run, so that only one size's input is held at a time.
 */
export async function expectLinearBreathing(sizes: readonly number[], make: (size: number) => () => void, rounds = 2): Promise<number[]> {
  make(sizes[0])(); // warm
  await breathe();
  const least = sizes.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < rounds; round++) {
    for (const [i, size] of sizes.entries()) {
      if (!worthAnotherRun(sizes, least, i)) continue;
      least[i] = Math.min(least[i], cpuTime(make(size)));
      await breathe();
    }
  }
  return judged(sizes, least);
}

function judged(sizes: readonly number[], times: number[]): number[] {
  const ratios = ratiosOf(sizes, times);
  const shown = sizes.map((size, i) => `${size}: ${times[i].toFixed(1)} ms (×${ratios[i].toFixed(2)} of linear)`).join(", ");
  for (const ratio of ratios) expect(ratio, shown).toBeLessThanOrEqual(LINEAR_SLACK);
  return ratios;
}
