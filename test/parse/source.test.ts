// Inputs are read by js-yaml first (fast-yaml.ts) and by the `yaml` package
// only when that may differ or when a position is asked for. Whatever the
// text, the data must be exactly what the `yaml` package builds (numbers
// compared with Object.is, so -0 and NaN count), or the fast path must have
// stepped aside; errors stay the `yaml` package's; positions stay the same.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { CST, Document, Lexer, Scalar, visit } from "yaml";
import { describe, expect, it } from "vitest";
import { UsageError, ValuesError } from "../../src/core/errors.ts";
import { fallsBack, parseFast, parseFastStream } from "../../src/parse/fast-yaml.ts";
import { parseDocuments, parseDocumentsWithPositions, parseValuesFile, type SourceDocument } from "../../src/parse/source.ts";
import { readText } from "../../src/parse/read.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { renderSource } from "../../src/pipeline.ts";
import { runs } from "../support/runs.ts";

const RUNS = runs(400);

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

// ---------------------------------------------------------------- generators

const tricky = fc.constantFrom(
  "yes",
  "no",
  "on",
  "off",
  "y",
  "Y",
  "0o17",
  "0O17",
  "0x1F",
  "0X1F",
  "0777",
  "1_000",
  "+1",
  "+12",
  "-1",
  "-0",
  "+0",
  ".5",
  "-.5",
  "1.",
  "1.0",
  "1e3",
  "1E3",
  "-1e-3",
  "1e",
  ".inf",
  "-.Inf",
  "+.INF",
  ".nan",
  ".NaN",
  "-.nan",
  "inf",
  "nan",
  "null",
  "Null",
  "NULL",
  "nULL",
  "~",
  "",
  "true",
  "True",
  "TRUE",
  "tRue",
  "False",
  "2001-12-14",
  "2001-12-14t21:59:43.10-05:00",
  "1:20",
  ":",
  ":x",
  "x:",
  "a:b",
  "a: b",
  "- x",
  "-",
  "--",
  "---",
  "...",
  "-x",
  "? x",
  "?",
  "#",
  "#c",
  "a #b",
  "a#b",
  "x #",
  "[a]",
  "{a}",
  "a,b",
  "a, b",
  "'q'",
  '"q"',
  "'",
  '"',
  "|",
  ">",
  "@x",
  "`x",
  "=",
  "<",
  "\\",
  "\\n",
  "é",
  "日本",
  "\ud83d\ude00",
  "\u00a0",
  " lead",
  "trail ",
  " ",
  "  ",
  "a  b",
  "line\n",
  "a\nb",
  "a\n\nb",
  "\na",
  "a\n  b",
  "x\n- y",
  "k: |\n  v",
  "10.244.20.0/24",
  "5Mi",
  "0.5Gi",
);
const unicode = fc.string({ unit: "grapheme", maxLength: 8 });
const symbols = fc.string({
  unit: fc.constantFrom("a", "1", " ", "\n", ":", "#", "-", "'", '"', ",", "[", "]", "{", "}", ".", "0", "e", "\\", "é"),
  maxLength: 10,
});
const multiLine = fc.array(fc.oneof(tricky, symbols), { minLength: 2, maxLength: 4 }).map((lines) => lines.join("\n"));
const text = fc.oneof(tricky, fc.string({ maxLength: 10 }), unicode, symbols, multiLine);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, NaN, Infinity, -Infinity, 0.1, 1e21, 2 ** 53 + 2),
  fc.boolean(),
  fc.constant(null),
);

const tree = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(tricky, symbols, unicode), tie("value"), { maxKeys: 4 }),
})).value;
const mapping = fc.dictionary(fc.oneof(tricky, symbols), tree, { minKeys: 1, maxKeys: 5 });

const STYLES = [Scalar.PLAIN, Scalar.QUOTE_DOUBLE, Scalar.QUOTE_SINGLE, Scalar.BLOCK_LITERAL, Scalar.BLOCK_FOLDED] as const;

/** One document written by the `yaml` package, each scalar and collection in a chosen style. */
const written = fc
  .record({
    value: fc.oneof(mapping, tree),
    styles: fc.array(fc.constantFrom(...STYLES), { minLength: 1, maxLength: 8 }),
    flows: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
    indent: fc.integer({ min: 1, max: 4 }),
    indentSeq: fc.boolean(),
    lineWidth: fc.constantFrom(0, 12, 80),
  })
  .map(({ value, styles, flows, indent, indentSeq, lineWidth }) => {
    const doc = new Document(value, { version: "1.2" });
    let s = 0;
    let f = 0;
    visit(doc, {
      Scalar: (_, node) => void (node.type = styles[s++ % styles.length]),
      Map: (_, node) => void (node.flow = flows[f++ % flows.length]),
      Seq: (_, node) => void (node.flow = flows[f++ % flows.length]),
    });
    return doc.toString({ indent, indentSeq, lineWidth, minContentWidth: 0 });
  });

/** Flow collections put together by hand: scalars plain, quoted or bare, with assorted spacing. */
const gap = fc.constantFrom("", " ", "  ", "\n", "\n  ", "\n ", " # c\n  ");
const flowScalar = fc.oneof(
  text,
  text.map((s) => JSON.stringify(s)),
  text.map((s) => `'${s.replaceAll("'", "''")}'`),
  fc.double().map(String),
  fc.integer().map(String),
);
const flow = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, flowScalar, tie("seq"), tie("map")),
  seq: fc
    .record({ items: fc.array(tie("node"), { maxLength: 4 }), gap, trailing: fc.boolean() })
    .map(({ items, gap, trailing }) => `[${gap}${items.join(`,${gap}`)}${trailing && items.length ? "," : ""}]`),
  map: fc
    .record({ pairs: fc.array(fc.tuple(flowScalar, fc.constantFrom(": ", ":", " : ", ":\n  "), tie("node")), { maxLength: 4 }), gap })
    .map(({ pairs, gap }) => `{${gap}${pairs.map(([k, colon, v]) => `${k}${colon}${v}`).join(`,${gap}`)}}`),
})).node as fc.Arbitrary<string>;
const flowDocument = fc.oneof(
  flow,
  fc.array(fc.tuple(flowScalar, flow), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}: ${v}`).join("\n")),
);

/** Streams of one to three documents, and texts one or two characters away from valid ones. */
const stream = fc
  .record({
    docs: fc.array(fc.oneof(written, flowDocument), { minLength: 1, maxLength: 3 }),
    start: fc.constantFrom("", "---\n", "--- \n"),
    end: fc.constantFrom("", "\n", "\n...\n"),
  })
  .map(
    ({ docs, start, end }) =>
      start +
      docs
        .map((d) => (d.endsWith("\n") ? d : `${d}\n`))
        .join("---\n")
        .replace(/\n$/, end || "\n"),
  );
const edited = fc
  .record({
    text: fc.oneof(written, flowDocument),
    edits: fc.array(
      fc.tuple(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom("", " ", "\n", "-", ":", "#", "'", '"', "[", "]", "{", "}", ",", "|", ">", "\\", ".", "0", "e", "---", "- ", ": ", "\n  "),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  })
  .map(({ text, edits }) =>
    edits.reduce((t, [where, insert]) => {
      const at = Math.floor(where * t.length);
      return t.slice(0, at) + insert + t.slice(at + (insert === "" || where < 0.5 ? 1 : 0));
    }, text),
  );

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

// ---------------------------------------------------------------- positions

/** Every path to a key or an item, and under each mapping a key that is not there. */
function pathsOf(value: unknown, at: PropertyKey[] = []): PropertyKey[][] {
  const out: PropertyKey[][] = [at];
  if (value === null || typeof value !== "object") return out;
  if (!Array.isArray(value)) out.push([...at, "no-such-key"]);
  for (const [key, child] of Object.entries(value)) out.push(...pathsOf(child, [...at, Array.isArray(value) ? Number(key) : key]));
  return out;
}

function expectSamePositions(fast: SourceDocument, slow: SourceDocument): void {
  for (const path of pathsOf(slow.data)) {
    expect(fast.locate(path), path.join(".")).toEqual(slow.locate(path));
    expect(fast.locate(path, { key: true }), path.join(".")).toEqual(slow.locate(path, { key: true }));
  }
}

const EXAMPLES = readdirSync("examples")
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => ({ file: `examples/${name}`, text: readFileSync(`examples/${name}`, "utf8") }));

describe("positions of fast-read documents", () => {
  it.each(EXAMPLES.map((e) => [e.file, e] as const))("%s: every key path is located where the yaml package locates it", (_, { file, text }) => {
    expect(parseFast(text, LIMITS.depth), "the example takes the fast path").toBeDefined();
    expectSamePositions(parseValuesFile(text, file), parseDocumentsWithPositions(text, file)[0]);
  });

  it("locates each document of a stream in its own document", () => {
    const text = EXAMPLES.map((e) => `---\n# ${e.file}\n${e.text}`).join("");
    expect(parseFastStream(text, LIMITS.depth)).toBeDefined();
    const fast = parseDocuments(text, "stream.yaml");
    const slow = parseDocumentsWithPositions(text, "stream.yaml");
    expect(fast).toHaveLength(EXAMPLES.length);
    fast.forEach((doc, index) => expectSamePositions(doc, slow[index]));
  });

  it("locates nothing while a valid values file renders", () => {
    for (const { file, text } of EXAMPLES) {
      const parsed = parseValuesFile(text, file);
      const source: SourceDocument = {
        file,
        data: parsed.data,
        locate: () => {
          throw new Error(`${file}: located on a success path (a second parse per file)`);
        },
      };
      expect(renderSource(source).objects.length).toBeGreaterThan(0);
    }
  });
});

describe("reading files into one reused buffer", () => {
  const dir = mkdtempSync(join(tmpdir(), "rigging-read-"));
  const write = (name: string, content: string | Buffer) => {
    const file = join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  it("reads each file's own bytes, small after large, across the buffer's growth", () => {
    // Two- and three-byte characters at every offset, past 256 KiB and 1 MiB.
    const large = 'a: "é€😀"\n'.repeat(90_000);
    expect(Buffer.byteLength(large)).toBeGreaterThan(1024 * 1024);
    const small = "b: 1\n";
    for (const text of [small, large, small, "", large.slice(0, 262_144), small]) expect(readText(write("f.yaml", text))).toBe(text);
  });

  it("reads a file of exactly the limit, and refuses one byte more by its size", () => {
    const at = write("at.yaml", Buffer.alloc(LIMITS.fileBytes, "a"));
    expect(readText(at).length).toBe(LIMITS.fileBytes);
    const over = write("over.yaml", Buffer.alloc(LIMITS.fileBytes + 1, "a"));
    expect(() => readText(over)).toThrow(
      new UsageError(`${over}: ${LIMITS.fileBytes + 1} bytes is over the 8 MiB (${LIMITS.fileBytes}-byte) limit for an input file`),
    );
  });

  it("refuses a directory, a missing file and a binary file with today's messages", () => {
    const sub = join(dir, "sub.yaml");
    mkdirSync(sub);
    expect(() => readText(sub)).toThrow(new UsageError(`${sub}: is a directory, expected a file`));
    expect(() => readText(join(dir, "missing.yaml"))).toThrow(new UsageError(`${join(dir, "missing.yaml")}: cannot read: no such file`));
    expect(() => readText(join(dir, "missing", "x.yaml"))).toThrow(new UsageError(`${join(dir, "missing", "x.yaml")}: cannot read: no such file`));
    const binary = write("bin.yaml", Buffer.from([0x61, 0, 0x62]));
    expect(() => readText(binary)).toThrow(new UsageError(`${binary}: is a binary file, expected YAML or JSON text`));
  });
});

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
