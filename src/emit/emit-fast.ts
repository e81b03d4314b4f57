// A faster writer for the plain strings that dominate manifests; every other
// scalar is asked of js-yaml, and anything unrecognised goes to emit.ts.
// test/emit/emit-fast.test.ts holds both byte for byte equal.

/** js-yaml's form of one scalar or key; `undefined` sends the object to the reference path. */
export type Place = (scalar: string | number, key: boolean) => string | undefined;

/** Thrown through the walk when the reference path must write the object. */
const FALLBACK = Symbol("fallback");

/** Deeper than any rendered object; a cycle ends here and goes to the reference path. */
const MAX_DEPTH = 100;

/** Strings js-yaml writes plain that no YAML 1.1 or 1.2 reader takes for anything else; one character class under `*`, so linear on any input. */
const PLAIN = /^(?:\/|(?=[\s\S]{6}|[aeflnorstuyAEFLNORSTUY]{0,5}[^aeflnorstuyAEFLNORSTUY])[A-Za-z])[\w ./+=@$%^&*()<>;,!?'"`|\\[\]{}~#:-]*$/;

export function certainlyPlain(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last !== 0x20 && last !== 0x3a && PLAIN.test(text) && !text.includes(": ") && !text.includes(" #");
}

/** js-yaml's key length beyond which a pair is written explicitly (`? key`). */
const MAX_IMPLICIT_KEY = 1024;

/** Two spaces per level, as js-yaml indents (its `indent: 2`). */
const indents: string[] = [""];
function indent(level: number): string {
  while (indents.length <= level) indents.push(`${indents[indents.length - 1]}  `);
  return indents[level];
}

/** A line break and the indentation of `level`, made once per level. */
const breaks: string[] = [];
function lineBreak(level: number): string {
  return (breaks[level] ??= `\n${indent(level)}`);
}

const { getPrototypeOf, hasOwn } = Object;
const toTag = Object.prototype.toString;

/** `object` as js-yaml would write it, or `undefined` for the reference path. */
export function fastYaml(object: unknown, place: Place): string | undefined {
  try {
    const text = node(object, 0, true, place);
    return text === undefined ? "" : `${text}\n`;
  } catch (error) {
    if (error === FALLBACK) return undefined;
    throw error;
  }
}

/** Whether the last node() text starts with a line break; asking the text would make V8 flatten every level's concatenation. */
let opensLine = false;

/** js-yaml's `writeNode` in block context: the text of one value, `undefined` for a value it skips. */
function node(value: unknown, level: number, compact: boolean, place: Place): string | undefined {
  opensLine = false;
  switch (typeof value) {
    case "string":
      return scalar(value, level, place);
    case "number":
      // js-yaml writes an integer with toString(10); others (`.inf`,
      // `-0.0`, `1.5`, `1e+21`) are asked.
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
      return asked(value, false, place);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
      return undefined;
    case "object":
      if (value === null) return "null";
      if (level >= MAX_DEPTH) throw FALLBACK;
      if (Array.isArray(value)) {
        if (getPrototypeOf(value) !== Array.prototype) throw FALLBACK;
        return value.length === 0 ? "[]" : sequence(value, level, compact, place);
      }
      {
        const prototype = getPrototypeOf(value);
        if ((prototype !== Object.prototype && prototype !== null) || toTag.call(value) !== "[object Object]") throw FALLBACK;
      }
      return mapping(value as Record<string, unknown>, level, compact, place);
    default:
      throw FALLBACK;
  }
}

function asked(scalar: string | number, isKey: boolean, place: Place): string {
  const form = place(scalar, isKey);
  if (form === undefined) throw FALLBACK;
  return form;
}

function scalar(text: string, level: number, place: Place): string {
  if (text.length > 0 && certainlyPlain(text)) return text;
  const form = asked(text, false, place);
  // A literal block is indented two spaces per level, as js-yaml does.
  if (level <= 1 || form.charCodeAt(0) !== 0x7c) return form;
  return form.replace(/\n(?!\n|$)/g, `\n${indent(level - 1)}`);
}

/** Plain keys kept with their prefixes: a fleet's keys are mostly the renderers' literals, cheaper to look up than to test again. */
const plainKeys = new Map<string, PlainKey>();

/** A plain key as kept: its text (a copy), and its prefixes by variant (prefixOf). */
interface PlainKey {
  text: string;
  prefixes: string[];
}

/** A plain key, or `undefined` for a key js-yaml is asked about. */
function plainKey(text: string): PlainKey | undefined {
  let found = plainKeys.get(text);
  if (found === undefined && text.length > 0 && text.length <= MAX_IMPLICIT_KEY && certainlyPlain(text)) {
    // A copy: a key read from a values file is a slice of it, which would keep the whole text alive.
    found = { text: text.length <= 64 ? (JSON.parse(JSON.stringify(text)) as string) : text, prefixes: [] };
    if (plainKeys.size >= 10_000) plainKeys.clear();
    if (text.length <= 64) plainKeys.set(found.text, found);
  }
  return found;
}

function askedKey(text: string, place: Place): string {
  const form = asked(text, true, place);
  if (form.length > MAX_IMPLICIT_KEY) throw FALLBACK;
  return form;
}

/** What goes before a value in a block mapping, kept per plain key to save concatenations. */
function prefixOf(written: string, level: number, broken: boolean, opens: boolean, plain?: PlainKey): string {
  const variant = (level << 2) | (broken ? 2 : 0) | (opens ? 1 : 0);
  let prefix = plain?.prefixes[variant];
  if (prefix === undefined) {
    prefix = `${broken ? lineBreak(level) : ""}${written}${opens ? ":" : ": "}`;
    if (plain !== undefined) plain.prefixes[variant] = prefix;
  }
  return prefix;
}

/** What goes before an item of a block sequence, kept per variant as prefixOf keeps it for a key. */
const dashes: string[] = [];
function dashOf(level: number, broken: boolean, opens: boolean): string {
  const variant = (level << 2) | (broken ? 2 : 0) | (opens ? 1 : 0);
  return (dashes[variant] ??= `${broken ? lineBreak(level) : ""}${opens ? "-" : "- "}`);
}

/** js-yaml's `writeBlockSequence`: `undefined` items are written `null`. */
function sequence(list: readonly unknown[], level: number, compact: boolean, place: Place): string {
  let text = "";
  for (let index = 0; index < list.length; index++) {
    const item = node(list[index], level + 1, true, place) ?? "null";
    text += dashOf(level, !compact || index > 0, opensLine);
    text += item;
  }
  opensLine = !compact;
  return text;
}

/** js-yaml's `writeBlockMapping`: pairs whose value is `undefined` are left out. */
function mapping(object: Record<string, unknown>, level: number, compact: boolean, place: Place): string {
  let text = "";
  let pairs = 0;
  // for-in with hasOwn, not Object.keys: no array allocated per mapping.
  for (const name in object) {
    if (!hasOwn(object, name)) continue;
    const plain = plainKey(name);
    const written = plain === undefined ? askedKey(name, place) : plain.text;
    const value = node(object[name], level + 1, false, place);
    if (value === undefined) continue;
    text += prefixOf(written, level, !compact || pairs > 0, opensLine, plain);
    text += value;
    pairs++;
  }
  opensLine = !compact && pairs > 0;
  return pairs === 0 ? "{}" : text;
}
