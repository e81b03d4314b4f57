// js-yaml parses far faster than the `yaml` package, which keeps positions; so
// inputs go through js-yaml first and positions are found only when reported.
// `undefined` means fall back to the `yaml` package (test/parse/source.test.ts).
import { FAILSAFE_SCHEMA, Type, load, loadAll } from "js-yaml";
import { CORE_PLAIN_TAGS as PLAIN_TAGS, type PlainTag } from "./yaml-tags.ts";

// PLAIN_TAGS are generated at build time so a valid render never loads yaml.cjs (test/ship/loading.test.ts).

/** One anchored union of all tag tests, so most scalars fail at their first character; built only when the union cannot differ. */
const ANY_TAG = PLAIN_TAGS.every((tag) => tag.test!.flags === "" && !/\\[1-9k]/.test(tag.test!.source))
  ? new RegExp(`^(?:${PLAIN_TAGS.map((tag) => `(?:${tag.test!.source})`).join("|")})`)
  : undefined;

/** The text tagOf answered last: js-yaml asks about each scalar twice in a row. */
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

/** One js-yaml type for every plain-scalar tag, so each scalar is tested once. */
const TYPES = [
  new Type("tag:yaml.org,2002:plain", {
    kind: "scalar",
    resolve: (text: unknown) => typeof text === "string" && tagOf(text) !== null,
    construct: (text: string) => tagOf(text)!.value(text),
  }),
];

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: TYPES });

/**
 * Text that goes straight to the `yaml` package, where the two packages
 * differ or only it applies a limit (false positives only cost speed).
 * Asked in parts with the verdict of `m`-flag expressions
 * (test/parse/source-fallback.test.ts): AT_START, FALLBACK_TEXT, hashAfterText, and
 * IN_FLOW where FLOW_OPEN finds a flow collection.
 */
const LINE_START = String.raw`(?:[ ]*(?:[&*!]|\?(?:[ ]|\n|$))|%|(?:---|\.\.\.)(?! *(?:\n|$)))`;
const AT_START = new RegExp(`^${LINE_START}`);
/** What a flow collection's close may end, after it as its key: here for the empty ones, which FLOW_OPEN leaves out. */
const AS_KEY = String.raw`(?:[^\n\]}]*\n)?(?:\s|#[^\n\]}]*\n)*:`;
const FALLBACK_TEXT = oneOf([
  `\\n${LINE_START}`,
  /[-:[{][ ]*[&*!]|<</,
  /[-?:][ ]*\?(?: |\n|$)/,
  // An empty entry not at a line's start: js-yaml puts the next entry of the outer sequence into it.
  /[ ]-[ ]*(?: #[^\n]*)?(?:\n|$)/,
  `[[{][ ]*[\\]}]${AS_KEY}`,
  /[\t\r\u0085\u2028\u2029\ufeff]/,
  /\\U/,
  /[|>][-+]?[0-9]/,
]);
/** A non-empty flow collection at a node's start; without one, `,` `]` `}` are text, and `?` an indicator only where a node starts. */
const FLOW_OPEN = /(?:^|\n|[-?:] |["'\]}][ ]*:)[ ]*(?:\[(?![ ]*\])|\{(?![ ]*\}))/;
const IN_FLOW = oneOf([/,[ ]*[&*!]/, /\?(?: |\n|$)/, `[\\]}]${AS_KEY}`, /[{,](?:[^\n{,]*\n)?(?:\s|#[^\n{,]*\n)*[[{]/]);

function oneOf(patterns: (string | RegExp)[]): RegExp {
  return new RegExp(patterns.map((pattern) => (typeof pattern === "string" ? pattern : pattern.source)).join("|"));
}
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

/** The expressions' verdict; a run of comment lines long enough to exhaust a backtrack stack falls back, as a wider test may. */
function fallbackText(text: string): boolean {
  try {
    return FALLBACK_TEXT.test(text) || (FLOW_OPEN.test(text) && IN_FLOW.test(text));
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}

/** One YAML document's data, or `undefined` where the `yaml` package must parse it. */
export function parseFast(text: string, maxDepth: number): unknown {
  const docs = loadFast(text, (source, options) => [load(source, options)], maxDepth);
  return docs?.[0];
}

/** Every document's data, or `undefined` where the `yaml` package must parse it (also for an empty document, which it treats by spelling). */
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

/** Whether a line may hold an implicit key past the `yaml` package's 1024-character limit. */
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

/** Whether the `yaml` package would build the same tree: within `maxDepth`, no `__proto__` key, no key that may have been null. */
function plainTree(value: unknown, level: number, maxDepth: number): boolean {
  if (level > maxDepth) return false;
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) return value.every((item) => plainTree(item, level + 1, maxDepth));
  // for-in with hasOwn, not Object.keys: no array per mapping.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === "__proto__" || key === "null") return false;
    if (!plainTree((value as Record<string, unknown>)[key], level + 1, maxDepth)) return false;
  }
  return true;
}
