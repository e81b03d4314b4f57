// How many cases a property test draws. Each test names the count worth
// its time (what it can still find); RUNS in the environment multiplies
// every one of them at once, for a deeper search: RUNS=10 draws ten times
// as many. The seed stays fixed (setup.ts), so a larger RUNS draws the same
// first cases and more. Never below 1: a test's checks that its cases
// reached what they test (some counts of cases) assume its full count.

/** RUNS, a number of at least 1; 1 when unset. */
export function runsFactor(env: string | undefined): number {
  if (env === undefined || env === "") return 1;
  const factor = Number(env);
  if (!Number.isFinite(factor) || factor < 1) throw new Error(`RUNS multiplies every property test's runs: a number of at least 1, not ${JSON.stringify(env)}`);
  return factor;
}

const FACTOR = runsFactor(process.env.RUNS);

/** `n` cases, multiplied by RUNS. */
export const runs = (n: number): number => Math.round(n * FACTOR);
