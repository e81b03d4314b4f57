// Why this module exists: speed. The `yaml` package keeps every node's source
// range, which a diagnostic needs, but parsing with it costs about ten times
// js-yaml's `load`, and a fleet parses a thousand values files that almost
// never report anything. So an input is parsed here by js-yaml first, with a
// schema built from the `yaml` package's own YAML 1.2 core tags; positions
// are re-derived by the `yaml` package on the first diagnostic (source.ts).
//
// Whatever js-yaml might read differently goes to the `yaml` package instead,
// which also words every error: `undefined` below means "fall back". Falling
// back costs only speed, a divergence would cost correctness, so the checks
// are conservative (test/core/source.test.ts compares the two on random texts).
import { FAILSAFE_SCHEMA, Type, load, loadAll } from "js-yaml";
import { CORE_PLAIN_TAGS as PLAIN_TAGS, type PlainTag } from "./yaml-tags.ts";

// The plain-scalar tags of the YAML 1.2 core schema (null, bool, int,
// float), in the `yaml` package's order: the first whose `test` matches a
// plain scalar resolves it; a plain scalar that none matches is a string.
// They are taken from the package at build time (scripts/gen-yaml-tags.ts),
// with the value each tag's `resolve` gives: read from the package at
// module load, they loaded it in every run, `--version` too. With emit.ts
// the same way, a valid render loads no yaml.cjs (test/ship/loading.test.ts).
// Measured: render of examples/compass-runner.yaml 191 -> 185 M instructions,
// `--version` 121 -> 118 M (callgrind, mean of 3, without NODE_EXTRA_CA_CERTS);
// CPU time 0.97x for both (medians of 20 alternated runs, old and new build).

/**
 * Whether any tag's test matches a text: one test, anchored at the start,
 * which most scalars (keys, names) fail at their first characters. Built
 * from the tests themselves, where none has flags or back-references that
 * would make the union differ; otherwise every test is asked.
 */
const ANY_TAG = PLAIN_TAGS.every((tag) => tag.test!.flags === "" && !/\\[1-9k]/.test(tag.test!.source))
  ? new RegExp(`^(?:${PLAIN_TAGS.map((tag) => `(?:${tag.test!.source})`).join("|")})`)
  : undefined;

/**
 * The text tagOf answered last, and its tag: js-yaml asks about one scalar
 * once to resolve it and once more to construct it, the same string each time,
 * which this answers at once (keeping one scalar, and the text it is a
 * slice of, until the next).
 *
 * Measured: the last scalar, with emit-fast.ts's plain keys, took 6.6% of
 * the instructions of a fleet of 1,000 files (callgrind). The Map of tags
 * by text it replaces (with ANY_TAG) still cost about 3% of a fleet's CPU
 * profile, its lookups missing the cache between one file and the next:
 * without it parseFast takes 10% to 18% less time on fleet values files
 * (alternated rounds of 100 fresh texts).
 */
let lastText: string | undefined;
let lastTag: PlainTag | null = null;

/** The tag the `yaml` package gives a plain scalar: the first whose test matches; `null` for a string. */
function tagOf(text: string): PlainTag | null {
  if (text === lastText) return lastTag;
  const tag = ANY_TAG?.test(text) === false ? null : (PLAIN_TAGS.find((candidate) => candidate.test!.test(text)) ?? null);
  lastText = text;
  lastTag = tag;
  return tag;
}

/**
 * One js-yaml type for every plain-scalar tag: it claims exactly the plain
 * scalars some tag's test matches, and builds the value the first matching
 * tag's own `resolve` gives. js-yaml tries its implicit types in order on
 * each plain scalar and only builds the value (the type's name is never
 * read back), so one type reads as one type per tag name did, asked once
 * instead of once per name for each string. Measured: reading and
 * parsing the 2,000 files of a 1,000-installation fleet's output as
 * `check` does (readText, parseManifests) took 977-1,099 ms of CPU against
 * 1,084-1,205 ms with one type per name, less in four of five alternated
 * pairs of processes.
 */
const TYPES = [
  new Type("tag:yaml.org,2002:plain", {
    kind: "scalar",
    resolve: (text: unknown) => typeof text === "string" && tagOf(text) !== null,
    construct: (text: string) => tagOf(text)!.value(text),
  }),
];

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: TYPES });

/**
 * Text that goes straight to the `yaml` package, each a place where the two
 * packages were seen to differ or where only the `yaml` package applies a
 * limit. Most of these match harmless text too, which only costs speed.
 *
 * The patterns, each matched anywhere in the text (as one regular
 * expression with the `m` flag, test/core/source.test.ts's reference):
 * - `(?:^|[-:,[{])[ ]*[&*!]`, `^%`, `<<`: anchors, aliases (the alias
 *   limit) and tags, which YAML allows only where a node starts: at the
 *   start of a line, or after `-`, `:`, `,`, `[` or `{` and spaces (after
 *   `? `, an explicit key, see below). Elsewhere `&`, `*` and `!` are text
 *   (CEL's `&&` and `!=`, a URL's query). Directives start a line; merge
 *   keys anywhere.
 * - `[\t\r\u0085\u2028\u2029\ufeff]`: whitespace and line breaks js-yaml
 *   reads otherwise.
 * - `\?(?: |\n|$)`: explicit `? ` keys.
 * - `[\]}](?:[^\n\]}]*\n)?(?:\s|#[^\n\]}]*\n)*:` and
 *   `[{,](?:[^\n{,]*\n)?(?:\s|#[^\n{,]*\n)*[[{]`: collections as keys,
 *   which the packages name differently: before a `:`, or where a flow
 *   mapping's key starts (in flow sequences too: conservative). White
 *   space and comment lines may come between. A comment skipped here holds
 *   none of the characters a match starts at, so each character is read
 *   from one start only (with `] #] #] #...` every `]` read the rest of its
 *   line: quadratic); a start inside a comment reads the rest of its line
 *   as comment.
 * - `^(?:---|\.\.\.)(?! *(?:\n|$))`: a document marker with anything after
 *   it (`---x`, `--- a: 1`).
 * - `\S#`: a `#` not after white space: a comment to js-yaml after `"`,
 *   `]`, `{`, `,`..., an error to the `yaml` package.
 * - `\\U`: 8-digit escapes (js-yaml reads one past U+10FFFF where the
 *   `yaml` package refuses it).
 * - `[|>][-+]?[0-9]`: block scalar indentation indicators (`|2` at the top
 *   level differs).
 *
 * They are asked here in three parts, with the same verdict on every text:
 * the line-start patterns at the text's start (AT_START) and after each
 * `\n` (in FALLBACK_TEXT, which has no `m` flag), and `\S#` by finding each
 * `#` (hashAfterText). Without the `m` flag, `^` and `$` no longer see `\r`,
 * U+2028 and U+2029 as line ends; a text holding any of them falls back by
 * the whitespace pattern either way. Measured: the one expression with the
 * `m` flag took 3.8% of a `check` of 1,000 fleet installations (node
 * --cpu-prof, unminified build); these three parts take a third of its
 * time on those manifests (42 against 125 µs for a 29 kB manifests.yaml,
 * 300 of them, six rounds of process.cpuUsage): `^` with the `m` flag, and
 * `\S`, are tried at every character, where `\n` and `#` are found by a scan.
 */
const LINE_START = String.raw`(?:[ ]*[&*!]|%|(?:---|\.\.\.)(?! *(?:\n|$)))`;
const AT_START = new RegExp(`^${LINE_START}`);
const FALLBACK_TEXT = new RegExp(
  [
    `\\n${LINE_START}`,
    /[-:,[{][ ]*[&*!]|<</,
    /[\t\r\u0085\u2028\u2029\ufeff]/,
    /\?(?: |\n|$)/,
    /[\]}](?:[^\n\]}]*\n)?(?:\s|#[^\n\]}]*\n)*:/,
    /[{,](?:[^\n{,]*\n)?(?:\s|#[^\n{,]*\n)*[[{]/,
    /\\U/,
    /[|>][-+]?[0-9]/,
  ]
    .map((pattern) => (typeof pattern === "string" ? pattern : pattern.source))
    .join("|"),
);
const SPACE = /\s/;

/** Whether a `#` follows a character that is not white space (`\S#`). */
function hashAfterText(text: string): boolean {
  for (let at = text.indexOf("#", 1); at !== -1; at = text.indexOf("#", at + 1)) if (!SPACE.test(text[at - 1])) return true;
  return false;
}

/** Whether a text goes to the `yaml` package without being read by js-yaml (also a line too long for a key). */
export function fallsBack(text: string): boolean {
  return AT_START.test(text) || fallbackText(text) || hashAfterText(text) || hasLongLine(text);
}

/** FALLBACK_TEXT's verdict; a run of comment lines long enough to exhaust its backtrack stack falls back, as a wider test may. */
function fallbackText(text: string): boolean {
  try {
    return FALLBACK_TEXT.test(text);
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}

/**
 * The data of a text holding one YAML document, or `undefined` where the
 * `yaml` package must parse it (also for an empty text).
 */
export function parseFast(text: string, maxDepth: number): unknown {
  const docs = loadFast(text, (source, options) => [load(source, options)], maxDepth);
  return docs?.[0];
}

/**
 * The data of every document of a YAML stream, or `undefined` where the
 * `yaml` package must parse it (also when a document is empty, which that
 * package skips or keeps depending on how it is written).
 */
export function parseFastStream(text: string, maxDepth: number): unknown[] | undefined {
  return loadFast(text, (source, options) => loadAll(source, null, options), maxDepth);
}

function loadFast(
  text: string,
  parse: (text: string, options: { schema: typeof SCHEMA; onWarning: () => void }) => unknown[],
  maxDepth: number,
): unknown[] | undefined {
  if (fallsBack(text)) return undefined;
  let warned = false;
  let docs: unknown[];
  try {
    docs = parse(text, { schema: SCHEMA, onWarning: () => void (warned = true) });
  } catch {
    return undefined; // syntax, duplicate keys, several documents, stack overflow
  }
  if (warned || docs.length === 0) return undefined;
  for (const data of docs) if (data === null || data === undefined || !plainTree(data, 0, maxDepth)) return undefined;
  return docs;
}

/**
 * Whether a line is long enough to hold an implicit key past the 1024
 * characters the `yaml` package allows between a key's start and its `:`
 * (js-yaml has no such limit). Such keys are on one line.
 */
function hasLongLine(text: string): boolean {
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf("\n", start);
    if ((end === -1 ? text.length : end) - start >= LONG_LINE) return true;
    if (end === -1) break;
    start = end + 1;
  }
  return false;
}
const LONG_LINE = 1000;

/**
 * Whether the `yaml` package would build the same tree: no level deeper than
 * `maxDepth` (the depth error is its to word), no `__proto__` key (its to
 * refuse), and no key that may have been a null (js-yaml names it "null",
 * the `yaml` package "").
 */
function plainTree(value: unknown, level: number, maxDepth: number): boolean {
  if (level > maxDepth) return false;
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) return value.every((item) => plainTree(item, level + 1, maxDepth));
  // for-in with hasOwn, not Object.keys: no array per mapping (js-yaml's
  // mappings inherit nothing enumerable), as emit-fast.ts's mapping walks.
  // Measured with output-fleet.ts's paths (see entryOf there): 0.4% fewer
  // instructions per fleet file for both.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === "__proto__" || key === "null") return false;
    if (!plainTree((value as Record<string, unknown>)[key], level + 1, maxDepth)) return false;
  }
  return true;
}
