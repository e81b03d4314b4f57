// Generated YAML texts (any style, hand-made flow collections, streams and near misses) and the examples, for the parse tests of this folder.
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { Document, Scalar, visit } from "yaml";
import { runs } from "../support/runs.ts";

export const RUNS = runs(400);

/** The examples' values files, each with its text. */
export const EXAMPLES = readdirSync("examples")
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => ({ file: `examples/${name}`, text: readFileSync(`examples/${name}`, "utf8") }));

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

export const STYLES = [Scalar.PLAIN, Scalar.QUOTE_DOUBLE, Scalar.QUOTE_SINGLE, Scalar.BLOCK_LITERAL, Scalar.BLOCK_FOLDED] as const;

/** One document written by the `yaml` package, each scalar and collection in a chosen style. */
export const written = fc
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
export const flowDocument = fc.oneof(
  flow,
  fc.array(fc.tuple(flowScalar, flow), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}: ${v}`).join("\n")),
);

/** Streams of one to three documents, and texts one or two characters away from valid ones. */
export const stream = fc
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
export const edited = fc
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
