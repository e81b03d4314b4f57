// fallsBack, the fast YAML path's test of what it hands to the yaml package, against the same test written plainly as expressions with the `m` flag.
import { readFileSync, readdirSync } from "node:fs";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { describe, expect, it } from "vitest";
import { fallsBack } from "../../src/parse/fast-yaml.ts";
import { RUNS, EXAMPLES, written, flowDocument } from "./source-helpers.ts";

describe("the fast path's fallback test", () => {
  // The test written plainly, expressions with the `m` flag: the parts
  // fallsBack asks must refuse exactly the texts these refuse. Without a
  // non-empty flow collection (FLOW), `,` `]` `}` are text and `?` is an
  // indicator only where a node starts.
  const ALWAYS = new RegExp(
    [
      /(?:^|[-:[{])[ ]*[&*!]|^%|<</,
      /(?:^|[-?:])[ ]*\?(?: |\n|$)/,
      /[ ]-[ ]*(?: #[^\n]*)?(?:\n|$)/,
      /[[{][ ]*[\]}](?:[^\n\]}]*\n)?(?:\s|#[^\n\]}]*\n)*:/,
      /[\t\r\u0085\u2028\u2029\ufeff]/,
      /^(?:---|\.\.\.)(?! *(?:\n|$))/,
      /\S#/,
      /\\U/,
      /[|>][-+]?[0-9]/,
    ]
      .map((pattern) => pattern.source)
      .join("|"),
    "m",
  );
  const FLOW = /(?:^|[-?:] |["'\]}][ ]*:)[ ]*(?:\[(?![ ]*\])|\{(?![ ]*\}))/m;
  const IN_FLOW = new RegExp(
    [/,[ ]*[&*!]/, /\?(?: |\n|$)/, /[\]}](?:[^\n\]}]*\n)?(?:\s|#[^\n\]}]*\n)*:/, /[{,](?:[^\n{,]*\n)?(?:\s|#[^\n{,]*\n)*[[{]/]
      .map((pattern) => pattern.source)
      .join("|"),
  );
  const reference = (text: string) => ALWAYS.test(text) || (FLOW.test(text) && IN_FLOW.test(text)) || text.split("\n").some((line) => line.length >= 1000);

  /** Every character or pair a pattern starts, ends or turns at; line breaks and white space of every kind. */
  const piece = fc.constantFrom(
    ..."\n \n-:,[{]}&*!%<?#\\U|>+09.a\"'\t\r\u0085\u2028\u2029\ufeff\u00a0\u3000\v\f\u200a",
    "---",
    "...",
    "<<",
    "\n  ",
    ": ",
    "- ",
    "? ",
    "|2",
    ">-1",
    " #",
    "\\U0001",
    "\n#",
    "\n---\n",
    "[]",
    "{ }",
    ", !",
    " ? ",
    "] :",
  );
  const near = fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join(""));
  const TEXTS = [
    ...EXAMPLES.map((e) => e.text),
    ...readdirSync("test/fixtures/check/compass-runner")
      .filter((n) => n.endsWith(".yaml"))
      .map((n) => readFileSync(`test/fixtures/check/compass-runner/${n}`, "utf8")),
  ];
  /** Real manifests and values files with a few pieces put in. */
  const insertedInto = fc
    .record({
      text: fc.constantFrom(...TEXTS),
      edits: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.oneof(piece, near)), { minLength: 1, maxLength: 3 }),
    })
    .map(({ text, edits }) =>
      edits.reduce((t, [where, insert]) => t.slice(0, Math.floor(where * t.length)) + insert + t.slice(Math.floor(where * t.length)), text),
    );

  it("refuses exactly the texts the expressions with the `m` flag refuse", async () => {
    let refused = 0;
    let taken = 0;
    await fc.assert(
      loopProperty(fc.oneof(near, insertedInto, written, flowDocument), (text) => {
        const verdict = reference(text);
        expect(fallsBack(text)).toBe(verdict);
        if (verdict) refused++;
        else taken++;
      }),
      { numRuns: RUNS * 10 },
    );
    expect(refused).toBeGreaterThan(RUNS);
    expect(taken).toBeGreaterThan(RUNS);
  });

  it("reads the real manifests and values files as before, and a few texts at each line-start pattern's edge", () => {
    for (const text of TEXTS) expect(fallsBack(text)).toBe(reference(text));
    const edges = [
      "&a x",
      "x\n&a y",
      "x\r&a y",
      "x\u2028*a",
      "--- \r",
      "---\r\n",
      "...\u2029",
      "? \r",
      "x?\u2028",
      "a\u00a0#",
      "a\v#",
      "#",
      "a #",
      "a#",
      "%",
      "x\n%",
      "x\r%",
    ];
    for (const text of edges) expect(fallsBack(text)).toBe(reference(text));
    expect(edges.filter((text) => fallsBack(text))).toHaveLength(13);
  });
});
