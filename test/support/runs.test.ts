// RUNS multiplies every property test's count, and a mistyped RUNS stops
// the run instead of silently drawing some other number of cases.
import { describe, expect, it } from "vitest";
import { runs, runsFactor } from "./runs.ts";

describe("RUNS", () => {
  it.each([
    [undefined, 1],
    ["", 1],
    ["1", 1],
    ["2.5", 2.5],
    ["10", 10],
  ])("%j multiplies by %d", (env, factor) => {
    expect(runsFactor(env)).toBe(factor);
  });

  it.each(["0.5", "0", "-1", "ten", "Infinity"])("%j is refused", (env) => {
    expect(() => runsFactor(env)).toThrow(/a number of at least 1, not/);
  });

  it("multiplies a test's count", () => {
    expect(runs(300)).toBe(Math.round(300 * runsFactor(process.env.RUNS)));
    expect(runs(300)).toBeGreaterThanOrEqual(300);
  });
});
