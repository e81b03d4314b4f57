// Output: a YAML stream, a JSON List, or the files of a directory (one per
// object and a kustomization.yaml; output-dir.ts writes them). All
// deterministic (G-02): the objects are serialized in the order given and
// keys in the order built.
import { createHash } from "node:crypto";
import type { K8sObject } from "./objects.ts";
import { CORE_SCHEMA, DEFAULT_SCHEMA, dump, type Type } from "js-yaml";
import { Document, type Tags } from "yaml";
import { fastYaml } from "./emit-fast.ts";
import { YAML_1_1_TESTS, YAML_1_2_TESTS } from "./yaml-tags.ts";

/**
 * Manifests are read by YAML 1.1 parsers (kubectl) and YAML 1.2 parsers
 * (kustomize, most tools). A string must not be written plain when either
 * dialect's schema would read it as something else (`yes`, `on`, `0777`,
 * `0o7`, `1_000`, `~`): the schemas' own tag tests (from the `yaml`
 * package, which also parses our inputs) decide which strings those are.
 * They are taken from the package at build time (scripts/gen-yaml-tags.ts):
 * read at module load, they loaded the package in every run (the gain is
 * in fast-yaml.ts, which did the same).
 */
const AMBIGUOUS = [...YAML_1_1_TESTS, ...YAML_1_2_TESTS];

/**
 * js-yaml's own reader (its default schema, which tools written in
 * JavaScript use) reads some plain text otherwise: more text as a date than
 * YAML 1.1 does (`2024-1-1t1:00:00+30`) and more as a number than the
 * `yaml` package's YAML 1.2 writer expects (`-0o0`, `+0x1`). Its own types
 * decide: those it tries on a plain scalar, and of them those its writer
 * (with the core schema) does not already quote.
 */
type JsYamlSchema = { compiledImplicit: Type[] };
const JS_YAML_READS = (DEFAULT_SCHEMA as unknown as JsYamlSchema).compiledImplicit;
const JS_YAML_WRITER_MISSES = JS_YAML_READS.filter((type) => !(CORE_SCHEMA as unknown as JsYamlSchema).compiledImplicit.includes(type));

/** Whether a YAML 1.1 or 1.2 reader, or js-yaml's, would take `text` written plain (by js-yaml, or else by the `yaml` package) for something else. */
const readOtherwise = (text: string, byJsYaml: boolean) =>
  AMBIGUOUS.some((test) => test.test(text)) || (byJsYaml ? JS_YAML_WRITER_MISSES : JS_YAML_READS).some((type) => type.resolve(text));
/** Characters that parsers strip or fold, and block scalars with edge whitespace. */
const FRAGILE = /[\t\r\u0085\u2028\u2029\ufeff]/;
const FRAGILE_BLOCK = /^[ \t\n]|[ \t]\n|[ \t]$|\n[ \t]+\n/;
/** Characters outside YAML's printable set, which a reader refuses unless escaped (js-yaml and kubectl's reader do). */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function needsQuotes(text: string): boolean {
  return readOtherwise(text, false) || FRAGILE.test(text) || NOT_PRINTABLE.test(text) || (text.includes("\n") && FRAGILE_BLOCK.test(text));
}

/**
 * How js-yaml writes: no anchors for shared objects (labels), no line
 * folding, and the YAML 1.2 core schema, whose fewer implicit types make
 * each string cheaper to place; what it leaves plain that a YAML 1.1 reader
 * would take for a timestamp or a merge key is caught below like the rest.
 */
const JS_YAML_OPTIONS = { noRefs: true, lineWidth: -1, schema: CORE_SCHEMA } as const;

/**
 * Whether js-yaml would write `text` plain, where a YAML 1.1 or 1.2 reader
 * would take it for something else. js-yaml quotes most such strings itself
 * ("1", "true", "yes", "0777"); the few it leaves plain ("1_000" as YAML 1.1
 * reads it) and fragile whitespace send the object to the `yaml` package.
 * The answer is kept per distinct string (keys and values apart): a fleet
 * repeats most of them.
 */
const answered = { key: new Map<string, boolean>(), value: new Map<string, boolean>() };
function misreadByJsYaml(text: string, key: boolean): boolean {
  const memo = key ? answered.key : answered.value;
  let misread = memo.get(text);
  if (misread === undefined) {
    misread =
      FRAGILE.test(text) ||
      (text.includes("\n") && FRAGILE_BLOCK.test(text)) ||
      (readOtherwise(text, true) && !/^['"]/.test(key ? dump({ [text]: 0 }, JS_YAML_OPTIONS) : dump(text, JS_YAML_OPTIONS)));
    if (memo.size > 50_000) memo.clear();
    memo.set(text, misread);
  }
  return misread;
}

function anyStringMisread(value: unknown): boolean {
  if (typeof value === "string") return misreadByJsYaml(value, false);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(anyStringMisread);
  for (const key in value) {
    if (misreadByJsYaml(key, true) || anyStringMisread((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * js-yaml writes a document that is the string `...` (or starts with `... `),
 * or a key of its top mapping that does, plain at the start of a line, where
 * it ends the document: such an object goes to the `yaml` package too, which
 * writes it as text.
 */
const DOCUMENT_END = /^\.\.\.(?: |$)/;
function endsDocument(object: unknown): boolean {
  if (typeof object === "string") return DOCUMENT_END.test(object);
  if (object === null || typeof object !== "object" || Array.isArray(object)) return false;
  return Object.keys(object).some((key) => DOCUMENT_END.test(key));
}

/** js-yaml's double-quoted form of a string: one line, every character that is not printable escaped. */
const DOUBLE_QUOTED = { ...JS_YAML_OPTIONS, forceQuotes: true, quotingType: '"' } as const;
const doubleQuoted = (text: string) => dump(text, DOUBLE_QUOTED).slice(0, -1);

/**
 * The `yaml` package's schema, where a string that needs quotes is written
 * in js-yaml's double quotes: the package's own leave some characters that
 * are not printable unescaped (DEL, U+FFFE), and over lines they write a line
 * of one space (`a\n \nb`, 40 characters or more) as an escaped backslash.
 */
const quotingStrings = (tags: Tags): Tags =>
  tags.map((tag) =>
    typeof tag === "object" && tag.tag === "tag:yaml.org,2002:str" && "stringify" in tag && tag.stringify
      ? {
          ...tag,
          stringify: (item, ...rest) => (typeof item.value === "string" && needsQuotes(item.value) ? doubleQuoted(item.value) : tag.stringify!(item, ...rest)),
        }
      : tag,
  );

/**
 * js-yaml writes block YAML several times faster than the `yaml` package
 * (see docs/performance.md), and emitting is most of a fleet's cost. Rendered
 * objects rarely hold a string that js-yaml would leave misreadable; when one does, the
 * `yaml` package writes that object, double-quoting exactly those strings
 * (keys included) and those with characters that are not printable, the
 * way js-yaml quotes. No anchors for shared objects (labels), no line folding.
 */
export function toYamlReference(object: unknown): string {
  if (!endsDocument(object) && !anyStringMisread(object)) return dump(object, JS_YAML_OPTIONS);
  const doc = new Document(object, { version: "1.2", aliasDuplicateObjects: false, customTags: quotingStrings });
  // Its own double quotes (where it chooses them) on one line as well.
  return doc.toString({ lineWidth: 0, doubleQuotedMinMultiLineLength: Infinity });
}

/**
 * Values js-yaml writes in single quotes whatever else they hold: one line
 * of printable ASCII that starts with a character a plain scalar cannot
 * start with (its isPlainSafeFirst: an indicator, `-`, or a space). Such a
 * string is never plain, never a block (no line break, no line width), and
 * never double-quoted (nothing to escape), so js-yaml's chooseScalarStyle
 * answers STYLE_SINGLE, and a quoted string is read as a string by every
 * reader. Many of the strings that are not certainly plain (CEL, JSON,
 * flags) are such, and are placed without asking js-yaml.
 */
const QUOTED_ANYWAY = /^[-?:,[\]{}#&*!|=>'"%@` ][\x20-\x7e]*$/;

/**
 * js-yaml's form of one scalar for the fast path (emit-fast.ts), or
 * `undefined` where a reader would misread what js-yaml writes (the object
 * then goes to the reference path, which quotes it). Kept per distinct
 * string, keys and values apart, within a budget of characters: a fleet
 * repeats most strings, and hostile input repeats long ones. Single-quoted
 * forms (QUOTED_ANYWAY) are kept too: the policies' CEL expressions and
 * lists repeat in every Runner installation.
 */
const placed = { key: new Map<string, string | null>(), value: new Map<string, string | null>() };
const PLACED_BUDGET = 8 * 1024 * 1024;
let placedChars = 0;
function place(scalar: string | number, key: boolean): string | undefined {
  if (typeof scalar === "number") return dump(scalar, JS_YAML_OPTIONS).slice(0, -1);
  const memo = key ? placed.key : placed.value;
  let form = memo.get(scalar);
  if (form === undefined) {
    form =
      !key && QUOTED_ANYWAY.test(scalar)
        ? `'${scalar.replace(/'/g, "''")}'`
        : misreadByJsYaml(scalar, key)
          ? null
          : key
            ? keyForm(scalar)
            : dump(scalar, JS_YAML_OPTIONS).slice(0, -1);
    placedChars += scalar.length + (form?.length ?? 0);
    if (placedChars > PLACED_BUDGET || memo.size >= 50_000) {
      placed.key.clear();
      placed.value.clear();
      placedChars = scalar.length + (form?.length ?? 0);
    }
    memo.set(scalar, form);
  }
  return form ?? undefined;
}

/** A key as js-yaml writes it before `: `; `null` for a key it writes as `? key` (over 1,024 characters). */
function keyForm(text: string): string | null {
  const pair = dump({ [text]: 0 }, JS_YAML_OPTIONS);
  return pair.startsWith("? ") ? null : pair.slice(0, -": 0\n".length);
}

/**
 * The YAML of one object: what toYamlReference writes, byte for byte
 * (test/core/emit-fast.test.ts), cheaper because most strings are placed
 * without asking js-yaml (emit-fast.ts).
 */
export function toYaml(object: unknown): string {
  return toYamlFast(object) ?? toYamlReference(object);
}

/** The fast path alone: `undefined` where toYaml hands the object to the reference path. */
export function toYamlFast(object: unknown): string | undefined {
  return endsDocument(object) ? undefined : fastYaml(object, place);
}

export function toYamlStream(objects: readonly K8sObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join("");
}

/** A `v1 List`, which `kubectl apply -f` accepts like a stream. */
export function toJsonList(objects: readonly K8sObject[]): string {
  return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2)}\n`;
}

/**
 * A file name that stays inside its directory: no separator, no `..`, not
 * hidden (object names are DNS subdomains, so rendered names always match).
 */
export const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * File names are bounded so that every one fits a file system's 255-byte
 * limit with room for the writer's temporary names: an object name may be
 * 253 characters long. A longer name keeps its first characters and ends in
 * a hash of the whole, so it stays distinct and deterministic (G-02).
 */
export const MAX_FILE_NAME = 200;

export function fileNameOf(object: K8sObject, index: number): string {
  const ordinal = String(index + 1).padStart(2, "0");
  const full = `${ordinal}-${object.kind.toLowerCase()}-${object.metadata.name}.yaml`;
  // An unsafe name is left whole, for the writer to refuse.
  if (full.length <= MAX_FILE_NAME || !SAFE_FILE_NAME.test(full)) return full;
  const hash = createHash("sha256").update(full).digest("hex").slice(0, 12);
  return `${full.slice(0, MAX_FILE_NAME - hash.length - 6)}-${hash}.yaml`;
}

/** The kustomization.yaml of a rendered directory, listing its files in apply order. */
export function kustomizationOf(resources: readonly string[]): string {
  return toYaml({
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    // Keep the apply-safe order rendered here instead of kustomize's own.
    sortOptions: { order: "fifo" },
    resources,
  });
}

/** The files of a rendered directory, by name, in apply order. */
export function directoryFiles(objects: readonly K8sObject[]): Map<string, string> {
  const files = new Map<string, string>();
  objects.forEach((object, index) => files.set(fileNameOf(object, index), toYaml(object)));
  files.set("kustomization.yaml", kustomizationOf([...files.keys()]));
  return files;
}
