// Near-miss strings and keys, each written by hand as a person reads it, must be what both the fast and the reference YAML path write.
import { describe, expect, it } from "vitest";
import { toYaml, toYamlReference } from "../../src/emit/emit.ts";

/**
 * Near misses, each written out by hand from js-yaml's rules (and the
 * reference path's double quotes for what js-yaml would leave misreadable):
 * `[value, how it is written after "k: "]`.
 */
const VALUES: [unknown, string][] = [
  // YAML 1.1 booleans js-yaml quotes for compatibility; other spellings are no words.
  ["yes", "'yes'"],
  ["Yes", "'Yes'"],
  ["YES", "'YES'"],
  ["yEs", "yEs"],
  ["y", "'y'"],
  ["N", "'N'"],
  ["on", "'on'"],
  ["oN", "oN"],
  ["OFF", "'OFF'"],
  ["true", "'true'"],
  ["tRue", "tRue"],
  ["FALSE", "'FALSE'"],
  ["falsey", "falsey"],
  ["null", "'null'"],
  ["NuLL", "NuLL"],
  ["~", "'~'"],
  ["", "''"],
  // Numbers: js-yaml quotes what its YAML 1.2 schema reads as one, and the
  // sexagesimal form; `1_000` (YAML 1.1 reads 1000) and a timestamp it would
  // leave plain, so the reference path double-quotes them.
  ["0400", "'0400'"],
  ["0o17", "'0o17'"],
  ["0x1F", "'0x1F'"],
  ["1e3", "'1e3'"],
  ["-1.5", "'-1.5'"],
  [".inf", "'.inf'"],
  [".iNf", ".iNf"],
  ["1:20", "'1:20'"],
  ["1_000", '"1_000"'],
  ["2001-12-14", '"2001-12-14"'],
  ["<<", '"<<"'],
  ["8704Mi", "8704Mi"],
  ["1.2.3", "1.2.3"],
  ["10.244.20.0/24", "10.244.20.0/24"],
  // Indicators at the start, in the middle and at the end.
  ["-a", "'-a'"],
  ["a-", "a-"],
  ["- a", "'- a'"],
  ["=", "'='"],
  ["a: b", "'a: b'"],
  ["a:b", "a:b"],
  ["a:", "'a:'"],
  [":a", "':a'"],
  ["a #b", "'a #b'"],
  ["a#b", "a#b"],
  ["#x", "'#x'"],
  ["a,b", "a,b"],
  ["[a]", "'[a]'"],
  ["a[b]", "a[b]"],
  ["{a}", "'{a}'"],
  ["&a", "'&a'"],
  ["a &b *c !d", "a &b *c !d"],
  ["|", "'|'"],
  ["%x", "'%x'"],
  ["@x", "'@x'"],
  ["`x", "'`x'"],
  ["it's", "it's"],
  ["'q'", "'''q'''"],
  ['"q"', `'"q"'`],
  ["/var/run", "/var/run"],
  // Blanks at the ends.
  [" x", "' x'"],
  ["x ", "'x '"],
  ["a  b", "a  b"],
  // Characters that are escaped; a tab the reference path double-quotes.
  ["a\u0001b", '"a\\x01b"'],
  ["a\u007fb", '"a\\x7Fb"'],
  ["a\u00a0b", '"a\\_b"'],
  ["a\tb", '"a\\tb"'],
  ["é", "é"],
  ["日本", "日本"],
  // Several lines: a literal block, its chomping from the final line breaks;
  // edge blanks go to the reference path, which double-quotes.
  ["a\nb", "|-\n  a\n  b"],
  ["a\n", "|\n  a"],
  ["a\n\n", "|+\n  a\n"],
  ["a\n\nb", "|-\n  a\n\n  b"],
  ["\na", '"\\na"'],
  [" a\nb", '" a\\nb"'],
  ["a \nb", '"a \\nb"'],
  // A line of one space, in a string long enough that the `yaml` package
  // would break its own double quotes over lines (and misread it): one line.
  [`${"x".repeat(40)}\n \n\tz`, `"${"x".repeat(40)}\\n \\n\\tz"`],
  // Numbers, booleans, null, empty collections; `undefined` in a list is null.
  [1, "1"],
  [-0, "-0.0"],
  [0.5, "0.5"],
  [1e21, "1e+21"],
  [1e-7, "1.e-7"],
  [NaN, ".nan"],
  [-Infinity, "-.inf"],
  [true, "true"],
  [null, "null"],
  [{}, "{}"],
  [[], "[]"],
];

/** Keys, as written before ": 1". */
const KEYS: [string, string][] = [
  ["kind", "kind"],
  ["yes", "'yes'"],
  ["", "''"],
  ["app.kubernetes.io/name", "app.kubernetes.io/name"],
  ["a: b", "'a: b'"],
  ["a\nb", '"a\\nb"'],
  ["1_000", '"1_000"'],
  ["k".repeat(1024), "k".repeat(1024)],
];

describe("near-miss strings, written as read by a person", () => {
  it.each(VALUES.map(([value, written]) => [JSON.stringify(value) ?? String(value), value, written]))("%s", (_, value, written) => {
    const expected = `k: ${written}\n`;
    expect(toYamlReference({ k: value })).toBe(expected);
    expect(toYaml({ k: value })).toBe(expected);
  });

  it.each(KEYS.map(([key, written]) => [JSON.stringify(key).slice(0, 40), key, written]))("key %s", (_, key, written) => {
    expect(toYamlReference({ [key]: 1 })).toBe(`${written}: 1\n`);
    expect(toYaml({ [key]: 1 })).toBe(`${written}: 1\n`);
  });

  it("a key over 1,024 characters is written explicitly", () => {
    expect(toYaml({ ["k".repeat(1025)]: 1 })).toBe(`? ${"k".repeat(1025)}\n: 1\n`);
  });

  it("nesting: lists under their key, compact mappings in lists, literal blocks indented with their level, pairs of undefined left out", () => {
    const cases: [unknown, string][] = [
      [{ a: { b: "x\ny" } }, "a:\n  b: |-\n    x\n    y\n"],
      [{ a: ["x\ny", "z"] }, "a:\n  - |-\n    x\n    y\n  - z\n"],
      [["x\n\ny"], "- |-\n  x\n\n  y\n"],
      [[{ a: 1, b: 2 }], "- a: 1\n  b: 2\n"],
      [[[1, 2]], "- - 1\n  - 2\n"],
      [{ a: [{ b: [1] }] }, "a:\n  - b:\n      - 1\n"],
      [{ a: undefined, b: 1 }, "b: 1\n"],
      [{ a: [undefined] }, "a:\n  - null\n"],
      // Beside a string the reference path must quote (`1_000`), characters
      // that are not printable are escaped as js-yaml escapes them.
      [{ a: "1_000", b: "x\u007fy", c: "x\ufffey", d: "x\u0085" }, 'a: "1_000"\nb: "x\\x7Fy"\nc: "x\\uFFFEy"\nd: "x\\N"\n'],
      [{ a: { b: undefined } }, "a: {}\n"],
      [{ a: {}, b: [] }, "a: {}\nb: []\n"],
      ["x", "x\n"],
      ["a\nb", "|-\n  a\n  b\n"],
      [1, "1\n"],
    ];
    for (const [value, expected] of cases) {
      expect(toYamlReference(value)).toBe(expected);
      expect(toYaml(value)).toBe(expected);
    }
  });
});
