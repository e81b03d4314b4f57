// intstr.GetScaledValueFromIntOrPercent: maxSurge, maxUnavailable and friends as replica counts.
import { describe, expect, it } from "vitest";
import { percentOf, scaledValue } from "../../src/k8s/int-or-string.ts";

describe("scaledValue", () => {
  it("scales percentages of the total, rounding as asked", () => {
    expect(scaledValue("0%", 4, true)).toBe(0);
    expect(scaledValue("25%", 4, true)).toBe(1);
    expect(scaledValue("25%", 3, true)).toBe(1);
    expect(scaledValue("25%", 3, false)).toBe(0);
    expect(scaledValue("100%", 7, false)).toBe(7);
    expect(scaledValue("+10%", 10, false)).toBe(1);
    expect(scaledValue("-10%", 10, false)).toBe(-1);
    expect(scaledValue("007%", 100, false)).toBe(7);
    expect(scaledValue("33%", 3, true)).toBe(1);
    expect(scaledValue("150%", 2, true)).toBe(3);
  });

  it("takes integers as they are", () => {
    expect(scaledValue(0, 4, true)).toBe(0);
    expect(scaledValue(3, 4, false)).toBe(3);
    expect(scaledValue(-1, 4, false)).toBe(-1);
  });

  it("is undefined where Kubernetes returns an error", () => {
    for (const bad of [
      "25",
      "",
      "%",
      "2.5%",
      " 25%",
      "25 %",
      "25%%",
      "x%",
      "0x10%",
      "1_0%",
      null,
      undefined,
      true,
      1.5,
      2 ** 31,
      {},
      "99999999999999999999%",
    ]) {
      expect(scaledValue(bad, 4, true), JSON.stringify(bad)).toBeUndefined();
    }
    expect(percentOf("9223372036854775807%")).toBe(9223372036854775807n);
    expect(percentOf("9223372036854775808%")).toBeUndefined();
  });

  it("takes linear time", () => {
    const started = Date.now();
    expect(scaledValue(`${"0".repeat(500_000)}5%`, 100, true)).toBe(5);
    expect(scaledValue(`${"1".repeat(500_000)}%`, 100, true)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
