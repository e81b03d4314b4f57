// The fast YAML path (toYaml, through src/emit/emit-fast.ts) must write
// exactly what the reference path (toYamlReference: js-yaml, and the `yaml`
// package for what a reader would misread) writes, for every object rigging
// renders and for generated data full of near-miss strings; and what it
// writes must read back as the same data with js-yaml and with the `yaml`
// package in YAML 1.1 (kubectl's dialect) and YAML 1.2.
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { load } from "js-yaml";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { toYaml, toYamlFast, toYamlReference } from "../../src/emit/emit.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { runs } from "../support/runs.ts";

/** The null, boolean and special float words of YAML 1.1 and 1.2, and some that are neither. */
const WORDS = [
  "y",
  "yes",
  "n",
  "no",
  "true",
  "false",
  "on",
  "off",
  "null",
  "nan",
  "inf",
  ".inf",
  "-.inf",
  "+.inf",
  ".nan",
  "~",
  "<<",
  "=",
  "none",
  "nil",
  "yess",
  "onn",
  "nulll",
  "falsey",
];
const keyword = fc
  .constantFrom(...WORDS)
  .chain((word) =>
    fc.oneof(fc.constant(word), fc.constant(word.toUpperCase()), fc.constant(word.charAt(0).toUpperCase() + word.slice(1)), fc.mixedCase(fc.constant(word))),
  );

const sign = fc.constantFrom("", "+", "-");
/** Numbers as text, in every notation either dialect (or js-yaml) reads. */
const numeric = fc.oneof(
  fc.tuple(sign, fc.stringMatching(/^[0-9]{1,8}$/)).map(([s, d]) => s + d),
  fc.tuple(sign, fc.constantFrom("0x", "0X", "0o", "0O", "0b", "0B", "0"), fc.stringMatching(/^[0-9a-fA-F_]{1,6}$/)).map(([s, p, d]) => s + p + d),
  fc.stringMatching(/^[-+]?[0-9][0-9_]{0,6}$/),
  fc.stringMatching(/^[-+]?(?:[0-9]{0,3}\.[0-9_]{0,3}|[0-9]{1,3})(?:[eE][-+]?[0-9]{1,3})?$/),
  fc.stringMatching(/^[-+]?[0-9_]{1,3}(?::[0-9_]{1,2}){1,3}(?:\.[0-9_]{0,2})?$/),
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom(
    "1e3",
    "1E3",
    "1e",
    "1.",
    ".5",
    "+.5",
    "-0",
    "0.",
    "1_000",
    "0777",
    "0o7",
    "0x1f",
    "0b101",
    "5Mi",
    "0.5Gi",
    "250m",
    "1.2.3",
    "10.244.20.0/24",
    "1:20",
    "190:20:30.15",
    "1e+21",
  ),
);

/** Dates and times, as YAML 1.1 timestamps and near them. */
const date = fc.oneof(
  fc
    .date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true })
    .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10), d.toISOString().replace("T", " "), d.toISOString().replace("Z", "+05:00"))),
  fc.stringMatching(/^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ][0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,3})?(?: ?(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$/),
);

const INDICATORS = [
  "-",
  "?",
  ":",
  ",",
  "[",
  "]",
  "{",
  "}",
  "#",
  "&",
  "*",
  "!",
  "|",
  ">",
  "'",
  '"',
  "%",
  "@",
  "`",
  "- ",
  "? ",
  ": ",
  " #",
  " ",
  "  ",
  "\t",
  "<<",
  "=",
  "~",
  "\\",
  "/",
  ".",
  "---",
  "...",
];
const word = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9]{1,6}$/), keyword, numeric);
/** An indicator at the start, in the middle or at the end of a word, or alone. */
const indicated = fc.tuple(fc.oneof(word, fc.constant("")), fc.constantFrom(...INDICATORS), fc.oneof(word, fc.constant(""))).map(([a, i, b]) => a + i + b);

/** Characters a writer must escape, or that readers strip or fold. */
const CONTROLS = [
  ...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)),
  "\u007f",
  "\u0085",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\ufffe",
  "\uffff",
  "\ud800",
  "\udc00",
];
const controlled = fc.tuple(fc.oneof(word, fc.constant("")), fc.constantFrom(...CONTROLS), fc.oneof(word, fc.constant(""))).map(([a, c, b]) => a + c + b);

const unicode = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom("é", "日本", "\ud83d\ude00", "Ünïcödé", "a\u00a0b", "\u00a0", "ǅ"),
);

/** Lines around 1,024 characters (js-yaml's limit for a plain key), and longer. */
const long = fc.oneof(
  fc.tuple(fc.integer({ min: 1015, max: 1030 }), fc.constantFrom("a", "'", "-", "é", "\u0001", "a b")).map(([n, head]) => head + "a".repeat(n - head.length)),
  fc.string({ minLength: 1000, maxLength: 3000, unit: fc.constantFrom("a", "b", " ", ":", "#", "-") }),
);

/** Several lines, with blanks leading and trailing, and empty lines. */
const multiline = fc
  .tuple(
    fc.array(fc.oneof(fc.constant(""), fc.constantFrom(" ", "  ", "\t", " x", "  y", "x ", "#c", "- a"), word, indicated), { minLength: 1, maxLength: 5 }),
    fc.constantFrom("", "\n", "\n\n", " ", " \n", "\n ", "\t", "\n\n\n"),
    fc.constantFrom("", "\n", " ", "  "),
  )
  .map(([lines, end, start]) => start + lines.join("\n") + end);

const text = fc.oneof(
  fc.constant(""),
  keyword,
  numeric,
  date,
  indicated,
  controlled,
  unicode,
  long,
  multiline,
  fc.string({ unit: fc.constantFrom("a", " ", "\n", ":", "#", "-", "'", '"', "\t", "0", "y", "|", ">") }),
  // Strings rigging renders: names, labels, images, flags, quantities.
  fc.constantFrom(
    "compass-runner",
    "app.kubernetes.io/name",
    "ghcr.io/acme/runner:1.2.3@sha256:abc",
    "--egress-allow=api.github.com",
    "RuntimeDefault",
    "/var/run/secrets",
    "8704Mi",
    "!has(object.spec.x) || object.a == 'b'",
  ),
);

const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, 0.5, 1e21, 1e-7, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity),
);

const data = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(text, tie("value"), { maxKeys: 5, noNullPrototype: false }),
})).value;

/** Data as JSON sees it: NaN and infinities become null, `undefined` is left out (in a list: null). */
const normalize = (value: unknown) => JSON.parse(JSON.stringify(value) ?? "null");

describe("the fast YAML path", () => {
  it("writes what the reference path writes, byte for byte, and what it writes reads back the same in YAML 1.1 and 1.2", async () => {
    let answered = 0;
    let cases = 0;
    await fc.assert(
      loopProperty(data, (value) => {
        cases++;
        const reference = toYamlReference(value);
        const fast = toYamlFast(value);
        if (fast !== undefined) {
          answered++;
          expect(fast).toBe(reference);
        }
        const text = toYaml(value);
        expect(text).toBe(reference);
        if (value === undefined) return;
        const expected = normalize(value);
        expect(normalize(load(text))).toEqual(expected);
        expect(normalize(parse(text, { version: "1.1" }))).toEqual(expected);
        expect(normalize(parse(text, { version: "1.2" }))).toEqual(expected);
      }),
      { numRuns: runs(4000) },
    );
    // The comparison above is only worth something if the fast path wrote
    // most of the documents itself (the rest hold a string the reference
    // path must quote, a date most often).
    expect(answered).toBeGreaterThan(cases / 2);
  });

  it("writes a string placed before as it did the first time, as key and as value, the single-quoted ones included", () => {
    const strings = [
      '["system:masters"]',
      "!variables.isPod || variables.isChange",
      '{"a": "b"}',
      "'quoted' and 'more'",
      "- item",
      "? key",
      ": colon",
      "# hash",
      "& anchor",
      "* alias",
      "| pipe",
      "> fold",
      "% percent",
      "@ at",
      "` tick",
      '"double"',
      "=",
      " space first",
      "plain words",
      "a: b",
      "yes",
      "0777",
      "multi\nline",
    ];
    for (let round = 0; round < 3; round++) {
      for (const text of strings) {
        const object = { [text]: text, list: [text, { [text]: [text] }], nested: { inner: text } };
        expect({ text, round, yaml: toYaml(object) }).toEqual({ text, round, yaml: toYamlReference(object) });
      }
    }
  });

  it("writes every object of every example, and of the upstream values.example.json, itself and as the reference path does", () => {
    const files = [...readdirSync("examples").map((f) => `examples/${f}`), "test/fixtures/upstream/values.example.json"];
    let objects = 0;
    for (const file of files) {
      for (const object of renderSource(parseValuesFile(readFileSync(file, "utf8"), file)).objects) {
        objects++;
        expect({ file, kind: object.kind, yaml: toYamlFast(object) }).toEqual({ file, kind: object.kind, yaml: toYamlReference(object) });
      }
    }
    expect(objects).toBeGreaterThan(50);
  });

  it("leaves to the reference path what it cannot write: a key over 1,024 characters, a misread string, a value that is not plain data, a cycle", () => {
    expect(toYamlFast({ ["k".repeat(1025)]: 1 })).toBeUndefined();
    expect(toYamlFast({ k: "1_000" })).toBeUndefined();
    expect(toYamlFast({ k: new Date(0) })).toBeUndefined();
    expect(toYamlFast({ k: new Map() })).toBeUndefined();
    expect(toYamlFast({ k: 1n })).toBeUndefined();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(toYamlFast(cycle)).toBeUndefined();
  });
});
