// An expression that differs from a parsed one only in its string literals
// gets a copy of that one's syntax tree with its own contents
// (src/admission/literals.ts). The real CEL parser is the oracle: on
// every expression of rigging's rendered policies and the check corpus, with
// generated literal contents, the copied tree must equal the tree the
// parser builds.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "@bufbuild/cel";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { instantiate, splitLiterals, templateOf, type Parsed } from "../../src/admission/literals.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT } from "../support/cli.ts";
import { runs } from "../support/runs.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check", "compass-runner");
const rendered = (): K8sObject[] => renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;

/** Every CEL expression of the admission policies among `objects`. */
function expressionsOf(objects: K8sObject[]): string[] {
  return objects
    .filter((o) => o.kind === "ValidatingAdmissionPolicy")
    .flatMap((o) =>
      ["matchConditions", "variables", "validations"].flatMap((f) =>
        ((o.spec as Record<string, { expression?: unknown }[]>)?.[f] ?? []).map((e) => e.expression),
      ),
    )
    .filter((e): e is string => typeof e === "string");
}

const corpus = readdirSync(CORPUS)
  .filter((f) => f.endsWith(".yaml"))
  .flatMap((f) => expressionsOf(parseAllDocuments(readFileSync(join(CORPUS, f), "utf8")).map((d) => d.toJS())));
const EXPRESSIONS = [
  ...new Set([
    ...expressionsOf(rendered()),
    ...corpus,
    `'single' + "double" + '' + "" == "x"`,
    `{"a": 'b', 'c': ["d", 'e']}["a"] == 'b'`,
    `request.name in ["a", "b", "c"] && request.namespace != ''`,
    `"it's" + 'say "hi"' == "x"`,
  ]),
];

/** The template with `contents` in its literals, in order. */
function fill(template: string, contents: string[]): string {
  let i = 0;
  return template.replace(/""|''/g, (pair) => pair[0] + contents[i++] + pair[0]);
}

describe("splitting an expression into its template and literals", () => {
  it("keeps every character outside the literals and empties each literal", () => {
    expect(splitLiterals(`a == "x" || b in ['y', "z z"]`)).toEqual({
      template: `a == "" || b in ['', ""]`,
      literals: [
        { start: 5, value: "x" },
        { start: 18, value: "y" },
        { start: 23, value: "z z" },
      ],
    });
    expect(splitLiterals("a.b == 1")).toEqual({ template: "a.b == 1", literals: [] });
  });

  it.each([
    ["an escape", `a == "x\\ny"`],
    ["a raw string", `a == r"x"`],
    ["a bytes literal", `a == b'x'`],
    ["a tripled quote", `a == """x"""`],
    ["a tripled single quote", `a == '''x'''`],
    ["a comment", `a == 1 // it's "x"`],
    ["an unterminated literal", `a == "x`],
    ["a character beyond printable ASCII", `a == "é"`],
    ["a tab in a literal", `a == "x\ty"`],
  ])("leaves an expression with %s whole", (_what, text) => {
    expect(splitLiterals(text)).toBeUndefined();
  });
});

describe("a copied tree is the parser's tree", () => {
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 24 });

  it("on every expression of the rendered policies and the corpus, with generated literal contents", async () => {
    const templated = EXPRESSIONS.map((text) => ({ text, split: splitLiterals(text) })).filter((e) => e.split !== undefined);
    expect(templated.length).toBeGreaterThan(40);
    let compared = 0;
    for (const { text, split } of templated) {
      const template = templateOf(parse(text) as Parsed, split!);
      expect(template, text).toBeDefined();
      await fc.assert(
        loopProperty(fc.array(printable, { minLength: split!.literals.length, maxLength: split!.literals.length }), (raw) => {
          // A literal's content holds anything printable but its own quote and the backslash.
          const quotes = [...split!.template.matchAll(/""|''/g)].map((m) => m[0][0]);
          const contents = raw.map((c, i) => c.replaceAll(quotes[i], "").replaceAll("\\", ""));
          const other = fill(split!.template, contents);
          const again = splitLiterals(other);
          if (!again) return; // a `//` in a literal: parsed whole, never copied
          expect(again.template).toBe(split!.template);
          expect(instantiate(template!, again)).toEqual((parse(other) as Parsed).expr);
          compared++;
        }),
        { numRuns: runs(8) },
      );
      // The copies share the template's untouched nodes: it is still the parser's tree.
      expect(template!.expr).toEqual((parse(text) as Parsed).expr);
    }
    expect(compared).toBeGreaterThan(200);
  });

  it("is not made where the tree shows a string constant the literals do not account for", () => {
    const split = splitLiterals(`a == "x"`)!;
    const parsed = parse(`a == "x"`) as Parsed;
    expect(templateOf(parsed, { ...split, literals: [{ start: split.literals[0].start, value: "other" }] })).toBeUndefined();
    expect(templateOf(parsed, { ...split, literals: [] })).toBeUndefined();
    expect(templateOf(parsed, { ...split, literals: [{ start: 0, value: "x" }] })).toBeUndefined();
  });
});
