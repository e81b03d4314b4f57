// Time that grows linearly, asserted as a ratio against a linear fit and
// never as an absolute time. Each size is run a few times and the least
// CPU time kept (a busy machine only adds time); the fit is the smallest
// size's time scaled by size, so a constant start-up cost only lowers the
// ratio. A quadratic step shows as a ratio near the size ratio (8 from the
// first to the last of four doublings), far above the bound.
import { expect } from "vitest";
import { breathe } from "./breathe.ts";

/** How far above the linear fit a size may take: generous, for a loaded machine. */
export const LINEAR_SLACK = 3;

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The least CPU time of `runs` runs of `work`. */
function leastTime(work: () => void, runs: number): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = cpuMs();
    work();
    least = Math.min(least, cpuMs() - start);
  }
  return least;
}

/**
 * Runs `make(size)`'s work at each size (doublings) and expects each time
 * within LINEAR_SLACK of the linear fit. Returns the ratios, for messages.
 */
export function expectLinear(sizes: readonly number[], make: (size: number) => () => void, runs = 3): number[] {
  const works = sizes.map(make);
  works[0](); // warm: compiled code and caches, so the first size is not charged for them
  return judged(
    sizes,
    works.map((work) => Math.max(leastTime(work, runs), 1)),
  );
}

/**
 * `expectLinear` for work that runs for seconds: the rounds interleave the
 * sizes (a stretch of load falls on each size alike), and the test's worker
 * answers its runner between two runs (breathe.ts). Each size's input is
 * made just before its run, so only one size's input is held at a time.
 */
export async function expectLinearBreathing(sizes: readonly number[], make: (size: number) => () => void, runs = 2): Promise<number[]> {
  make(sizes[0])(); // warm
  await breathe();
  const least = sizes.map(() => Number.POSITIVE_INFINITY);
  for (let round = 0; round < runs; round++) {
    for (const [i, size] of sizes.entries()) {
      least[i] = Math.min(least[i], leastTime(make(size), 1));
      await breathe();
    }
  }
  return judged(
    sizes,
    least.map((time) => Math.max(time, 1)),
  );
}

function judged(sizes: readonly number[], times: number[]): number[] {
  const ratios = times.map((time, i) => time / ((times[0] * sizes[i]) / sizes[0]));
  const shown = sizes.map((size, i) => `${size}: ${times[i].toFixed(0)} ms (×${ratios[i].toFixed(2)} of linear)`).join(", ");
  for (const ratio of ratios) expect(ratio, shown).toBeLessThanOrEqual(LINEAR_SLACK);
  return ratios;
}
