// Inputs are read by js-yaml first (fast-yaml.ts) and by the `yaml` package
// only when that may differ or when a position is asked for. Whatever the
// text, the data must be exactly what the `yaml` package builds (numbers
// compared with Object.is, so -0 and NaN count), or the fast path must have
// stepped aside; errors stay the `yaml` package's; positions stay the same.
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { CST, Document, Lexer, Scalar, visit } from "yaml";
import { describe, expect, it } from "vitest";
import { UsageError, ValuesError } from "../../src/core/errors.ts";
import { parseFast, parseFastStream } from "../../src/parse/fast-yaml.ts";
import { parseDocuments, parseDocumentsWithPositions, parseValuesFile } from "../../src/parse/source.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { RUNS, STYLES, written, flowDocument, stream, edited } from "./source-helpers.ts";

/** The first difference between two data trees, or undefined when they are identical. */
function difference(a: unknown, b: unknown, at = "$"): string | undefined {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return Object.is(a, b) ? undefined : `${at}: ${String(a)} (${typeof a}) is not ${String(b)} (${typeof b})`;
  }
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: not the same kind of collection`;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.join("\u0000") !== keysB.join("\u0000")) return `${at}: keys ${JSON.stringify(keysA)} are not ${JSON.stringify(keysB)}`;
  for (const key of keysA) {
    const found = difference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
    if (found) return found;
  }
  return undefined;
}

type Reference = { data: unknown[] } | { error: string };

/** What the `yaml` package alone makes of a text: every document's data, or the error users see. */
function reference(text: string): Reference {
  try {
    return { data: parseDocumentsWithPositions(text, "in.yaml").map((doc) => doc.data) };
  } catch (error) {
    if (error instanceof UsageError) return { error: error.message };
    throw error;
  }
}

let fastTaken = 0;

/** The property: the fast path agrees with the `yaml` package, or it falls back; so do the public functions. */
function expectAgreement(text: string): void {
  const expected = reference(text);
  const stream = parseFastStream(text, LIMITS.depth);
  if (stream !== undefined) {
    fastTaken++;
    expect("data" in expected ? undefined : expected.error, `the fast path read what the yaml package refuses: ${JSON.stringify(text)}`).toBeUndefined();
    expect(difference(stream, (expected as { data: unknown[] }).data), JSON.stringify(text)).toBeUndefined();
  }
  const one = parseFast(text, LIMITS.depth);
  if (one !== undefined) {
    expect("data" in expected && expected.data.length, JSON.stringify(text)).toBe(1);
    expect(difference(one, (expected as { data: unknown[] }).data[0]), JSON.stringify(text)).toBeUndefined();
  }
  let got: Reference;
  try {
    got = { data: parseDocuments(text, "in.yaml").map((doc) => doc.data) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    got = { error: error.message };
  }
  if ("error" in expected) expect(got).toEqual(expected);
  else expect(difference((got as { data: unknown[] }).data, expected.data), JSON.stringify(text)).toBeUndefined();
}

/** What the `yaml` package's lexer finds that the fast path must hand over: node properties, directives, explicit keys. */
function handedOver(text: string): boolean {
  const tokens = [...new Lexer().lex(text)];
  // A plain scalar's source follows its marker, and may start with `?` (`?:`) without being an indicator.
  return tokens.some((token, at) => HANDED_OVER.has(CST.tokenType(token) ?? "") && (at === 0 || CST.tokenType(tokens[at - 1]) !== "scalar"));
}
const HANDED_OVER = new Set(["anchor", "alias", "tag", "directive-line", "explicit-key-ind"]);
describe("the fast YAML path", () => {
  it("reads texts the yaml package writes in any scalar and collection style as the yaml package reads them, or falls back", async () => {
    fastTaken = 0;
    // The fast path takes about one text in three.
    await fc.assert(loopProperty(written, expectAgreement), { numRuns: RUNS });
    // Not vacuous: most of these texts are read by js-yaml.
    expect(fastTaken).toBeGreaterThan(RUNS / 4);
  });

  it("reads hand-written flow collections as the yaml package does, or falls back", async () => {
    fastTaken = 0;
    await fc.assert(loopProperty(flowDocument, expectAgreement), { numRuns: RUNS });
    expect(fastTaken).toBeGreaterThan(RUNS / 10);
  });

  it("reads streams of documents, and texts edited into near misses, as the yaml package does, or falls back", async () => {
    fastTaken = 0;
    // The fast path takes about one text in seven.
    await fc.assert(loopProperty(fc.oneof(stream, edited), expectAgreement), { numRuns: RUNS });
    expect(fastTaken).toBeGreaterThan(RUNS / 10);
  });

  it("falls back for every anchor, alias, tag, directive and explicit key the yaml package's lexer finds, and reads `&`, `*` and `!` elsewhere", async () => {
    // The oracle is the `yaml` package's own lexer: where it sees a node
    // property, the fast path must have stepped aside (the alias limit and
    // tags are the `yaml` package's); where `&`, `*` and `!` are only text
    // (CEL's `&&` and `!=`), the fast path reads it, and agrees.
    const property = fc.constantFrom("&x ", "*x", "!t ", "!!str ", "&&", "!=", " * ", "&", "!", "*", "%", "% x", "&x\n", "!\n");
    const withProperties = fc
      .record({
        text: fc.oneof(written, flowDocument),
        inserts: fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), property), { minLength: 1, maxLength: 3 }),
      })
      .map(({ text, inserts }) =>
        inserts.reduce((t, [where, insert]) => {
          const at = Math.floor(where * t.length);
          return t.slice(0, at) + insert + t.slice(at);
        }, text),
      );
    // ...and values holding those characters as text, in every scalar style.
    const asText = fc
      .record({
        value: fc.dictionary(
          fc.constantFrom("a", "expr", "url", "note"),
          fc.constantFrom("a && b", "x != y", "2 * 3", "hi!", "a&b", "p?q=1&r=*", "*x", "&x", "!t", "x: &y", "- *z", "!", "&", "*"),
          { minKeys: 1, maxKeys: 4 },
        ),
        style: fc.constantFrom(...STYLES),
      })
      .map(({ value, style }) => {
        const doc = new Document(value, { version: "1.2" });
        visit(doc, { Scalar: (_, node) => void (node.type = style) });
        return doc.toString();
      });
    let propertiesSeen = 0;
    fastTaken = 0;
    await fc.assert(
      loopProperty(fc.oneof(withProperties, asText), (text) => {
        if (handedOver(text)) {
          propertiesSeen++;
          expect(parseFastStream(text, LIMITS.depth), JSON.stringify(text)).toBeUndefined();
        }
        expectAgreement(text);
      }),
      { numRuns: RUNS * 2 },
    );
    // Not vacuous: both kinds of text were met.
    expect(propertiesSeen).toBeGreaterThan(RUNS / 10);
    expect(fastTaken).toBeGreaterThan(RUNS / 10);
  });

  it("reads CEL in block plain and quoted scalars on the fast path, as the yaml package does; explicit keys and node properties fall back", async () => {
    // `, !x`, `a ? b : c`, `l[0] : x` are text outside a flow collection:
    // in block documents written plain or quoted, the fast path reads them.
    const fast = [
      '!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath) || v.hostPath.path in ["/a", "/b"])',
      "object.spec.containers.all(c, !has(c.securityContext) || !c.securityContext.privileged)",
      'has(request.subResource) ? request.subResource : ""',
      '(has(r.s) ? r.s : "") in ["", "status"]',
      "a ? b : c ? d : e",
      "x ? l[0] : m[1]",
      "l[0] :z",
      "f(a, *b) && g(c, &d) && h(e, ? f)",
      "{a, !b}",
      "[x, *y, &z]",
      "a, !b: c",
      "x, ?",
      "p ?",
      "l.all(k, k in m && m[k] == n[k])",
    ];
    // Text the fast path may hand over (`: !c` inside quotes, a map after `: `), read alike either way.
    const either = ["a ? b : !c", 'x ? {"a": 1} : {"b": 2}', "? a", "!a, !b", "- !x", "[!a]", "x - !y", "? !x : y"];
    const cel = (list: string[]) => fc.array(fc.constantFrom(...list), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(" && "));
    const documentOf = (value: unknown, style: (typeof STYLES)[number], flow: boolean, lineWidth: number) => {
      const doc = new Document(value, { version: "1.2" });
      visit(doc, {
        Scalar: (_, node) => void (node.type = style),
        Map: (_, node) => void (node.flow = flow),
        Seq: (_, node) => void (node.flow = flow),
      });
      return doc.toString({ lineWidth, minContentWidth: 0 });
    };
    const shaped = (values: fc.Arbitrary<string>) =>
      fc.oneof(
        fc.dictionary(fc.constantFrom("expression", "message", "a, !b", "x ? y"), values, { minKeys: 1, maxKeys: 3 }),
        fc.array(fc.record({ expression: values, reason: fc.constantFrom("Forbidden", "x ? y : z") }), { minLength: 1, maxLength: 3 }),
      );
    const onFastPath = fc
      .record({ value: shaped(cel(fast)), style: fc.constantFrom(Scalar.PLAIN, Scalar.QUOTE_DOUBLE, Scalar.QUOTE_SINGLE) })
      .map(({ value, style }) => documentOf(value, style, false, 0));
    const anyShape = fc
      .record({ value: shaped(cel([...fast, ...either])), style: fc.constantFrom(...STYLES), flow: fc.boolean(), lineWidth: fc.constantFrom(0, 20, 80) })
      .map(({ value, style, flow, lineWidth }) => documentOf(value, style, flow, lineWidth));
    await fc.assert(
      loopProperty(onFastPath, (text) => {
        expect(parseFastStream(text, LIMITS.depth), JSON.stringify(text)).toBeDefined();
        expectAgreement(text);
      }),
      { numRuns: RUNS },
    );
    let handed = 0;
    await fc.assert(
      loopProperty(anyShape, (text) => {
        if (handedOver(text)) {
          handed++;
          expect(parseFastStream(text, LIMITS.depth), JSON.stringify(text)).toBeUndefined();
        }
        expectAgreement(text);
      }),
      { numRuns: RUNS },
    );
    expect(handed).toBeGreaterThan(0);
  });

  it("reads texts made of YAML's indicators as the yaml package does, or falls back, and hands over what its lexer takes for a property or a key", async () => {
    const piece = fc.constantFrom(
      ...["a", "x", "1", ".", " ", "  ", "\n", "\n  ", "\n- ", "- ", "-", ": ", ":", " : ", ",", ", ", "?", "? ", " ? ", "x ?\n", "#", " #"],
      ...["!", "!t ", "&", "&x ", "*", "*x", "[", "]", "{", "}", "[]", "{}", "'", '"', "'x'", '"k":', "|", ">", "k: ", "\n  k: ", "---\n"],
      ...["- [", ": [", ": {", "] :", "} :", "a, !b", "c ? d : e", "l[0] :", "? !", ", &", ", *", ", ?"],
    );
    let taken = 0;
    await fc.assert(
      loopProperty(
        fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join("")),
        (text) => {
          if (parseFastStream(text, LIMITS.depth) === undefined) return expectAgreement(text);
          taken++;
          expect(handedOver(text), JSON.stringify(text)).toBe(false);
          expectAgreement(text);
        },
      ),
      { numRuns: RUNS * 5 },
    );
    expect(taken).toBeGreaterThan(0);
  });

  it.each([
    ["a CEL expression", "expression: object.a != 'x' && !has(object.b) || 2 * 3 > 5\n"],
    ["a URL with a query", "url: https://example.com/a?b=1&c=*\n"],
    ["text after a word", "note: hi! &amp; more\n- a\n"],
  ])("reads %s with `&`, `*` or `!` inside it", (_, text) => {
    if (!text.includes("- a")) expect(parseFast(text, LIMITS.depth)).toBeDefined();
    expectAgreement(text);
  });

  it("resolves plain scalars exactly as the YAML 1.2 core schema does", () => {
    const cases: [string, unknown][] = [
      ["null", null],
      ["~", null],
      ["", null],
      ["Null", null],
      ["nULL", "nULL"],
      ["true", true],
      ["False", false],
      ["yes", "yes"],
      ["on", "on"],
      ["y", "y"],
      ["0o17", 15],
      ["0O17", "0O17"],
      ["0x1F", 31],
      ["0X1F", "0X1F"],
      ["-0x1", "-0x1"],
      ["012", 12],
      ["1_000", "1_000"],
      ["+12", 12],
      ["-0", -0],
      ["+0", 0],
      ["1e3", 1000],
      ["1.", 1],
      [".5", 0.5],
      ["-0.0", -0],
      [".inf", Infinity],
      ["-.Inf", -Infinity],
      [".NaN", NaN],
      ["-.nan", "-.nan"],
      ["2001-12-14", "2001-12-14"],
      ["0b101", "0b101"],
      ["1:20", "1:20"],
      // biome-ignore lint/correctness/noPrecisionLoss: the number is meant to lose precision, as YAML readers do
      ["12345678901234567890", 12345678901234567890],
    ];
    for (const [plain, value] of cases) {
      const data = parseFast(`k: ${plain}\n`, LIMITS.depth) as { k: unknown };
      expect(data, plain).toBeDefined();
      expect(Object.is(data.k, value), `${plain} -> ${String(data.k)}`).toBe(true);
      expectAgreement(`k: ${plain}\n- ${plain}\n`);
      expectAgreement(`- ${plain}\n- [${plain}]\n- {${plain}: ${plain}}\n`);
    }
  });

  it.each([
    ["an anchor and an alias", "a: &x [1]\nb: *x\n"],
    ["an anchor and an alias in a sequence", "- &x a\n- *x\n"],
    ["an anchor and an alias in flow", '[&x a, *x, {k: *x}, {"j":*x}]\n'],
    ["an anchor on its own line", "a:\n  &x\n  b\nc: *x\n"],
    ["a tag in a sequence", "- !foo x\n"],
    ["a tag in flow", "[a,!!str 1]\n"],
    ["an anchor right after a flow mapping's brace", "{&k c: 1}\n"],
    ["a tag right after a flow sequence's bracket", "[!!str 1]\n"],
    ["an anchor after a sequence dash and spaces", "-   &k c\n"],
    ["a tag after an explicit value indicator", "a:    !!str 1\n"],
    ["a tag", "a: !!str 1\n"],
    ["an unknown tag", "a: !foo x\n"],
    ["a directive", "%YAML 1.2\n---\na: 1\n"],
    ["a merge key", "a: {b: 1}\nc:\n  <<: {d: 2}\n"],
    ["a tab", "a:\tb\n"],
    ["a carriage return", "a: b\r\nc: d\r\n"],
    ['a null key (js-yaml names it null, the yaml package "")', "~: x\nk: 1\n"],
    ["an empty key", "{: x}\n"],
    ["a collection as a key", "[a]: b\n"],
    ["an explicit key", "? a\n: b\n"],
    ["a document marker glued to content", "---x: y\n"],
    ["content on the document marker line", "--- a: 1\n"],
    ["a comment glued to a quoted scalar", 'a: "x"#c\n'],
    ["a comment glued to a flow comma", "[a,#c\n b]\n"],
    ["an indentation indicator at the top level", "|2\n  - x\n"],
    ["an escape past U+10FFFF", 'a: "\\U00110000"\n'],
    ["a key whose : is more than 1024 characters from its start", `a${" ".repeat(1100)}: b\n`],
    ["an empty entry of a compact nested sequence (js-yaml puts the next entry into it)", "- -\n- x\n"],
    ["an empty entry of an indented sequence", " -\n- \n"],
    ["a duplicate key", "a: 1\nb: 2\na: 3\n"],
    ["an empty document", "a: 1\n---\n"],
    ["a __proto__ key", "a:\n  __proto__: {x: 1}\n"],
    ["nesting past the depth limit", `x: ${"[".repeat(LIMITS.depth + 1)}${"]".repeat(LIMITS.depth + 1)}\n`],
  ])("falls back for %s, and then reads it as the yaml package does", (_, text) => {
    expect(parseFast(text, LIMITS.depth)).toBeUndefined();
    expect(parseFastStream(text, LIMITS.depth)).toBeUndefined();
    expectAgreement(text);
  });

  it("falls back for two documents where a values file holds one, and reads them as a stream", () => {
    const text = "a: 1\n---\nb: 2\n";
    expect(parseFast(text, LIMITS.depth)).toBeUndefined();
    expect(parseFastStream(text, LIMITS.depth)).toEqual([{ a: 1 }, { b: 2 }]);
    expectAgreement(text);
  });

  it("keeps today's errors, which the yaml package words", () => {
    const refusal = (text: string, file: string) => {
      try {
        parseValuesFile(text, file);
      } catch (error) {
        if (error instanceof UsageError) return error.message;
        throw error;
      }
      throw new Error(`${file} was accepted`);
    };
    expect(refusal("a: 1\nb: 2\na: 3\n", "dup.yaml")).toBe(
      "dup.yaml:3:1 not valid YAML: Map keys must be unique: a repeats a of line 1, column 1, the same key",
    );
    expect(refusal("a: 1\n---\nb: 2\n", "two.yaml")).toBe("two.yaml: holds 2 YAML documents, a values file holds one");
    expect(refusal("- a\n", "seq.yaml")).toBe("seq.yaml: expected a mapping of values keys at the top level");
    expect(refusal("# nothing\n", "empty.yaml")).toBe("empty.yaml: is empty, expected a values mapping with a top-level kind");
    expect(
      refusal(
        `a: &x 1\nb: [${Array(LIMITS.aliases + 1)
          .fill("*x")
          .join(", ")}]\n`,
        "alias.yaml",
      ),
    ).toBe(`alias.yaml: Excessive alias count indicates a resource exhaustion attack (the limit is ${LIMITS.aliases} alias expansions per document)`);
    expect(refusal(`x: ${"[".repeat(LIMITS.depth + 1)}${"]".repeat(LIMITS.depth + 1)}\n`, "deep.yaml")).toBe(
      `deep.yaml: nested deeper than the limit of ${LIMITS.depth} levels`,
    );
    expect(() => parseValuesFile("kind: CompassRunner\nserver:\n  __proto__: {polluted: yes}\n", "proto.yaml")).toThrow(ValuesError);
    try {
      parseValuesFile("kind: CompassRunner\nserver:\n  __proto__: {polluted: yes}\n", "proto.yaml");
    } catch (error) {
      expect((error as ValuesError).diagnostics).toEqual([
        expect.objectContaining({ id: "G-01", path: "server.__proto__", location: { file: "proto.yaml", line: 3, column: 3 } }),
      ]);
    }
  });
});
