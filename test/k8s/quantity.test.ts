// resource.Quantity as apimachinery reads, compares and writes it. The canonical
// forms here are ones a real kube-apiserver stores (test/cluster/quantity.test.ts
// checks them against it); the rest follows quantity.go line by line.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonical, compareQuantity, parseQuantity, QUANTITY_ERRORS, quantityEquals, quantityProblem, toBytes, toMilli } from "../../src/k8s/quantity.ts";
import { runs } from "../support/runs.ts";

/** An unexpanded shell variable, as a template left unrendered leaves it. */
const SHELL_VAR = ["$", "{VAR}"].join("");

const q = (text: string | number) => {
  const parsed = parseQuantity(text);
  if (parsed === undefined) throw new Error(`not a quantity: ${text}`);
  return parsed;
};

describe("canonical: the text the API server stores", () => {
  it.each([
    ["1000m", "1"],
    ["2048Mi", "2Gi"],
    ["0.5", "500m"],
    ["1e3", "1e3"],
    ["10e2", "1e3"],
    ["1.5Gi", "1536Mi"],
    ["0.5Ki", "512"],
    ["0.1Ki", "102400m"],
    ["1024Ki", "1Mi"],
    ["01Ki", "01Ki"],
    ["+5", "+5"],
    ["1.500k", "1.500k"],
    ["1000000k", "1G"],
    ["0.1m", "100u"],
    ["0.5n", "1n"],
    ["1e-1000000", "1e-9"],
    ["1000E", "1"],
    ["8Ei", "9223372036854775807"],
    ["000", "0"],
    ["+", "0"],
    ["Ki", "0"],
    [" 2Gi ", "2Gi"],
    ["-1.5", "-1500m"],
    ["-2048Mi", "-2Gi"],
  ])("%j is stored as %j", (input, stored) => {
    expect(canonical(q(input))).toBe(stored);
  });

  it("reads YAML numbers as the JSON kubectl sends", () => {
    expect(canonical(q(2))).toBe("2");
    expect(canonical(q(0.5))).toBe("500m");
    expect(canonical(q(1e21))).toBe("1e+21");
    expect(canonical(q(1.5e-7))).toBe("150e-9");
    expect(parseQuantity(Number.NaN)).toBeUndefined();
    expect(parseQuantity(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe("syntax errors", () => {
  it.each([
    ["512MB", QUANTITY_ERRORS.format],
    [SHELL_VAR, QUANTITY_ERRORS.format],
    ["1 Gi", QUANTITY_ERRORS.format],
    ["\t1", QUANTITY_ERRORS.format],
    ["", QUANTITY_ERRORS.format],
    ["1Kib", QUANTITY_ERRORS.format],
    ["1ki", QUANTITY_ERRORS.suffix],
    ["1e", QUANTITY_ERRORS.suffix],
    ["1e99999999999999999999", QUANTITY_ERRORS.suffix],
    [".e-10", QUANTITY_ERRORS.numeric],
  ])("%j: %s", (input, error) => {
    expect(parseQuantity(input)).toBeUndefined();
    expect(quantityProblem(input)).toBe(error);
  });

  it("refuses what is not a string or a number", () => {
    for (const value of [null, undefined, true, {}, [], ["1"]]) expect(parseQuantity(value)).toBeUndefined();
    expect(quantityProblem("1Gi")).toBeUndefined();
  });
});

describe("compared by value", () => {
  it("finds equal spellings equal", () => {
    for (const [a, b] of [
      ["2048Mi", "2Gi"],
      ["1000m", "1"],
      ["0.5", "500m"],
      ["1e3", "1k"],
      [1, "1"],
      ["1024", "1Ki"],
      ["1e-1000000", "1n"],
      ["0", "-0.0e5"],
    ] as const) {
      expect(quantityEquals(q(a), q(b)), `${a} = ${b}`).toBe(true);
    }
  });

  it("orders by value, whatever the suffix and however far apart", () => {
    const ordered = ["-1Ei", "-1", "0", "1n", "1u", "1m", "1", "1k", "1Ki", "1M", "1Mi", "1G", "1Gi", "1e999999999", "1e1000000000"];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) {
        expect(compareQuantity(q(ordered[i]), q(ordered[j])), `${ordered[i]} vs ${ordered[j]}`).toBe(Math.sign(i - j));
      }
    }
    expect(compareQuantity(q("1Gi"), q("1G"))).toBe(1);
    expect(compareQuantity(q("12345678901234567890"), q("12345678901234567891"))).toBe(-1);
  });
});

describe("Value() and MilliValue()", () => {
  it("round up, as Kubernetes does", () => {
    expect(toBytes(q("1Gi"))).toBe(1073741824n);
    expect(toBytes(q("100m"))).toBe(1n);
    expect(toMilli(q("100m"))).toBe(100n);
    expect(toMilli(q("0.1m"))).toBe(1n);
    expect(toBytes(q("1.5Gi"))).toBe(1610612736n);
    expect(toBytes(q("0.1Ki"))).toBe(103n);
    expect(toBytes(q("-1.5"))).toBe(-2n); // int64Amount: away from zero
    expect(toBytes(q("-1.5e-10"))).toBe(1n); // inf.Dec: scale_int.go truncates then adds one
  });

  it("is undefined where Go's int64 overflows", () => {
    expect(toBytes(q("1000E"))).toBeUndefined();
    expect(toMilli(q("1Ei"))).toBeUndefined();
    expect(toBytes(q("8Ei"))).toBe(9223372036854775807n);
    expect(toBytes(q("1e1000000000"))).toBeUndefined();
    expect(toBytes(q("0e-1000000"))).toBe(0n);
  });
});

describe("hostile input", () => {
  it("takes linear time on long text", () => {
    const started = Date.now();
    for (const text of [
      "1".repeat(200_000),
      `${"1".repeat(200_000)}Ki`,
      `0.${"0".repeat(200_000)}1`,
      `1e${"9".repeat(200_000)}`,
      `1e-${"0".repeat(200_000)}5`,
      "0".repeat(200_000),
      `${"k".repeat(200_000)}!`,
      `1${"e".repeat(200_000)}`,
      `${"9".repeat(100_000)}.${"9".repeat(100_000)}e-2147483648`,
    ]) {
      const parsed = parseQuantity(text);
      if (parsed !== undefined) {
        canonical(parsed);
        toBytes(parsed);
        compareQuantity(parsed, q("1"));
      }
    }
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("never throws, and what it writes reads back as the same value", () => {
    const chars = fc.constantFrom(..."0123456789.+-eEinumkKMGTP ".split(""));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 24 }), (text) => {
        const parsed = parseQuantity(text);
        if (parsed === undefined) return;
        const written = canonical(parsed);
        toBytes(parsed);
        toMilli(parsed);
        const again = parseQuantity(written);
        expect(again, `${text} → ${written}`).toBeDefined();
        // Go writes DecimalSI values past E without their exponent (1000E is "1"); anything else reads back equal.
        const pastExa = parsed.format === "DecimalSI" && (compareQuantity(parsed, q("1000E")) >= 0 || compareQuantity(parsed, q("-1000E")) <= 0);
        if (!pastExa) expect(quantityEquals(again!, parsed), `${text} → ${written}`).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
  });
});
