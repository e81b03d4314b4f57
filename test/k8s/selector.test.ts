// Label selectors as sets of requirements (metav1.LabelSelectorAsSelector).
import { describe, expect, it } from "vitest";
import { selects } from "../../src/k8s/access.ts";
import { sameSelector, selectorRequirements, selectsLabels } from "../../src/k8s/selector.ts";

const app = { "app.kubernetes.io/name": "compass-runner", tier: "kvm" };

describe("selectorRequirements", () => {
  it("reads matchLabels as In requirements, sorted, repeats merged", () => {
    expect(
      selectorRequirements({
        matchLabels: { b: "2", a: "1" },
        matchExpressions: [
          { key: "a", operator: "In", values: ["1"] },
          { key: "c", operator: "NotIn", values: ["y", "x", "y"] },
          { key: "d", operator: "Exists" },
        ],
      }),
    ).toEqual({
      requirements: [
        { key: "a", operator: "In", values: ["1"] },
        { key: "b", operator: "In", values: ["2"] },
        { key: "c", operator: "NotIn", values: ["x", "y"] },
        { key: "d", operator: "Exists", values: [] },
      ],
    });
    expect(selectorRequirements(null)).toEqual({ requirements: [] });
    expect(selectorRequirements({ matchLabels: null, matchExpressions: null })).toEqual({ requirements: [] });
  });

  it.each([
    [{ matchExpressions: [{ key: "app", operator: "in", values: ["x"] }] }, /"in" is not a valid label selector operator \(key "app"\)/],
    [{ matchExpressions: [{ key: "app", operator: "Equals", values: ["x"] }] }, /matchExpressions\[0\]: "Equals"/],
    [{ matchExpressions: [{ key: "app" }] }, /missing is not a valid label selector operator/],
    [{ matchExpressions: [{ key: "app", operator: "In", values: [] }] }, /In \(key "app"\) needs at least one value/],
    [{ matchExpressions: [{ key: "app", operator: "NotIn" }] }, /NotIn \(key "app"\) needs at least one value/],
    [{ matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] }, /Exists \(key "app"\) takes no values/],
    [{ matchExpressions: [{ key: "bad key", operator: "Exists" }] }, /key: "bad key" is not a valid label key/],
    [{ matchExpressions: [{ key: "app", operator: "In", values: [1] }] }, /values: 1 is not a valid label value/],
    [{ matchExpressions: { key: "app" } }, /matchExpressions is a list/],
    [{ matchExpressions: ["app"] }, /matchExpressions\[0\] is an object/],
    [{ matchLabels: { app: 1 } }, /matchLabels\["app"\]: 1 is not a valid label value/],
    [{ matchLabels: ["app"] }, /matchLabels is a map/],
    ["app=x", /not "app=x"/],
  ])("refuses %j", (selector, message) => {
    const r = selectorRequirements(selector);
    expect("error" in r && r.error).toMatch(message);
    expect(selectsLabels(selector, app)).toBe(false);
  });
});

describe("selectsLabels", () => {
  it("evaluates each operator as the API server does", () => {
    expect(selectsLabels({}, app)).toBe(true);
    expect(selectsLabels(undefined, app)).toBe(true);
    expect(selectsLabels({ matchLabels: { tier: "kvm" } }, app)).toBe(true);
    expect(selectsLabels({ matchLabels: { tier: "gpu" } }, app)).toBe(false);
    expect(selectsLabels({ matchExpressions: [{ key: "tier", operator: "In", values: ["gpu", "kvm"] }] }, app)).toBe(true);
    expect(selectsLabels({ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["kvm"] }] }, app)).toBe(false);
    expect(selectsLabels({ matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, app)).toBe(true);
    expect(selectsLabels({ matchExpressions: [{ key: "tier", operator: "Exists" }] }, app)).toBe(true);
    expect(selectsLabels({ matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] }, app)).toBe(false);
    expect(selectsLabels({ matchExpressions: [{ key: "zone", operator: "DoesNotExist", values: null }] }, app)).toBe(true);
  });

  it("is what access.ts's selects answers", () => {
    for (const selector of [{}, null, { matchLabels: { tier: "kvm" } }, { matchExpressions: [{ key: "tier", operator: "Bogus" }] }, "x"]) {
      expect(selects(selector, app)).toBe(selectsLabels(selector, app));
    }
  });
});

describe("sameSelector", () => {
  it("finds equal the selectors that select the same labels", () => {
    const pairs: [unknown, unknown][] = [
      [{ matchLabels: { a: "x" } }, { matchExpressions: [{ key: "a", operator: "In", values: ["x"] }] }],
      [{ matchLabels: { a: "x", b: "y" } }, { matchLabels: { b: "y" }, matchExpressions: [{ key: "a", operator: "In", values: ["x", "x"] }] }],
      [{ matchExpressions: [{ key: "a", operator: "In", values: ["x", "y"] }] }, { matchExpressions: [{ key: "a", operator: "In", values: ["y", "x"] }] }],
      [
        { matchLabels: { a: "x" } },
        {
          matchExpressions: [
            { key: "a", operator: "Exists" },
            { key: "a", operator: "In", values: ["x", "z"] },
            { key: "a", operator: "NotIn", values: ["z"] },
          ],
        },
      ],
      [{}, null],
      [
        {
          matchExpressions: [
            { key: "a", operator: "In", values: ["x"] },
            { key: "a", operator: "DoesNotExist" },
          ],
        },
        { matchLabels: { a: "x", b: "" }, matchExpressions: [{ key: "b", operator: "NotIn", values: [""] }] },
      ],
    ];
    for (const [a, b] of pairs) {
      expect(sameSelector(a, b), `${JSON.stringify(a)} = ${JSON.stringify(b)}`).toBe(true);
      expect(sameSelector(b, a)).toBe(true);
    }
  });

  it("tells apart selectors that select different labels", () => {
    const pairs: [unknown, unknown][] = [
      [{ matchLabels: { a: "x" } }, { matchLabels: { a: "y" } }],
      [{ matchLabels: { a: "x" } }, { matchExpressions: [{ key: "a", operator: "Exists" }] }],
      [
        { matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] },
        {
          matchExpressions: [
            { key: "a", operator: "Exists" },
            { key: "a", operator: "NotIn", values: ["x"] },
          ],
        },
      ],
      [{ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, {}],
      [{ matchLabels: { a: "x" } }, { matchLabels: { a: "x", b: "y" } }],
      [{ matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] }, { matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] }],
    ];
    for (const [a, b] of pairs) expect(sameSelector(a, b), `${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`).toBe(false);
  });

  it("takes linear time on many requirements", () => {
    const values = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
    const a = {
      matchExpressions: [
        { key: "a", operator: "In", values },
        { key: "a", operator: "NotIn", values: values.slice(1) },
      ],
    };
    const started = Date.now();
    expect(sameSelector(a, { matchLabels: { a: "v0" } })).toBe(true);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
