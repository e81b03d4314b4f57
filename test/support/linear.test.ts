// The linear-time harness fails what it is there to fail: a regular
// expression that scans from every start to the end (the quadratic shape the
// hardening tests guard against) at one size and eight times it, in both
// its forms; and it passes a linear scan of the same sizes' text.
import { describe, expect, it } from "vitest";
import { expectLinear, expectLinearBreathing, LINEAR_SLACK } from "./linear.ts";

/** From every start, `\s*` runs to the end before `x` fails: quadratic in the length. */
const quadratic = (size: number) => {
  const text = " ".repeat(size);
  return () => void /\s*x/.test(text);
};

/** One pass over the text. */
const linear = (size: number) => {
  const text = " ".repeat(size);
  return () => {
    let sum = 0;
    for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
    expect(sum).toBe(32 * size);
  };
};

/** The assertion the harness fails with, or "passed". */
async function failure(run: () => unknown): Promise<string> {
  try {
    await run();
    return "passed";
  } catch (error) {
    return String(error);
  }
}

describe("the linear-time harness", () => {
  it("fails a quadratic scan, with the ratios in its message", async () => {
    const message = await failure(() => expectLinear([2_000, 16_000], quadratic));
    expect(message).toMatch(/16000: [\d.]+ ms \(×[\d.]+ of linear\)/);
    const ratio = Number(/16000: [\d.]+ ms \(×([\d.]+) of linear\)/.exec(message)?.[1]);
    expect(ratio).toBeGreaterThan(LINEAR_SLACK);
  });

  it("fails a quadratic scan run breathing, round after round", async () => {
    expect(await failure(() => expectLinearBreathing([2_000, 16_000], quadratic))).toMatch(/of linear/);
  });

  it("passes a linear scan, in both forms", async () => {
    const ratios = expectLinear([2_000_000, 16_000_000], linear);
    expect(ratios[1]).toBeLessThanOrEqual(LINEAR_SLACK);
    expect(await failure(() => expectLinearBreathing([2_000_000, 16_000_000], linear))).toBe("passed");
  });
});
