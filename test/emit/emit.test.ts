// Rendered YAML must read back as the same data in YAML 1.2 and in YAML 1.1
// (kubectl's dialect, where `yes`, `on` and `0777` are not strings).
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { toYaml } from "../../src/emit/emit.ts";
import { runs } from "../support/runs.ts";

const tricky = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "n",
    "~",
    "null",
    "Null",
    "true",
    "False",
    "0777",
    "0x1f",
    "1:20",
    "1e3",
    ".inf",
    "-.inf",
    ".nan",
    "1_000",
    "+1",
    "-",
    "- a",
    "? x",
    "a: b",
    "a #b",
    "#c",
    "&a",
    "*a",
    "!t",
    "|",
    ">",
    "%x",
    "@x",
    "`x",
    "[a]",
    "{a}",
    "a,b",
    "'q'",
    '"q"',
    "x:",
    "key: ",
    "a\tb",
    "\ttab",
    "line\n",
    "a\nb",
    "a\n\n",
    "\na",
    "  lead\nx",
    "x\n  y",
    "trailing \n",
    "\r\n",
    "\u0000",
    "\u007f",
    "\u0085",
    "\u2028",
    "\ufeff",
    "é",
    "日本",
    "\ud83d\ude00",
    "a b",
    "a  b",
    "2024-01-01",
    "=",
    "<<",
    "1e",
    "1E",
    "1E3",
    "5Mi",
    "0.5Gi",
    "1.5",
    "1.2.3",
    "10.244.20.0/24",
    "1.2.3.4",
    "--x",
    "-x",
    "-1",
    "-.5",
    "(a)",
    "a #b",
    "a# b",
    "/",
    "//",
    "a:b",
    "a:",
    "a :b",
    "x  y",
    "a [b]",
    "a {b}",
    "a, b",
    "a|b",
    "x!",
    "0o7",
    "0b1",
    "1_0",
    "12:30",
    "12:30:45",
    "2001-12-14t21:59:43.10-05:00",
    "Yes please",
    "n/a",
    "01-a.yaml",
    "2024-a",
    "1-e3",
    "1-",
    '["a"]',
    'it\'s "x"',
    "'",
    '"',
    "a\"b'c",
  ),
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("a", " ", "\n", ":", "#", "-", "'", '"', "\t", "0", "y") }),
);

const data = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie("value"), { maxKeys: 4 }),
})).value;

const normalize = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("toYaml", () => {
  it("round-trips any plain data through YAML 1.2 and YAML 1.1 parsers", async () => {
    await fc.assert(
      loopProperty(data, (value) => {
        const text = toYaml(value);
        expect(normalize(parse(text))).toEqual(normalize(value));
        expect(normalize(parse(text, { version: "1.1" }))).toEqual(normalize(value));
      }),
      { numRuns: runs(500) },
    );
  });

  it("quotes what YAML 1.1 would read as something else", () => {
    expect(toYaml({ a: "yes", b: "0777", c: "on", d: "x", e: "1:20", f: "1e3" })).toBe("a: 'yes'\nb: '0777'\nc: 'on'\nd: x\ne: '1:20'\nf: '1e3'\n");
    // js-yaml would leave these plain; YAML 1.1 reads them as numbers.
    expect(toYaml({ "1_000": "1_000", ok: "x" })).toBe('"1_000": "1_000"\nok: x\n');
  });
});
