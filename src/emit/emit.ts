// Output as a YAML stream, a JSON List or a directory's files, deterministic
// (G-02): objects and keys in the order built.
import { createHash } from "node:crypto";
import type { K8sObject } from "../k8s/objects.ts";
import { CORE_SCHEMA, DEFAULT_SCHEMA, dump, type Type } from "js-yaml";
import { Document, type Tags } from "yaml";
import { fastYaml } from "./emit-fast.ts";
import { YAML_1_1_TESTS, YAML_1_2_TESTS } from "../parse/yaml-tags.ts";

/** Strings either YAML dialect would read as something else (`yes`, `0777`) must not be written plain; the `yaml` package's own tag tests decide. */
const AMBIGUOUS = [...YAML_1_1_TESTS, ...YAML_1_2_TESTS];

/** js-yaml's own reader takes more plain text as dates or numbers; its own implicit types decide those. */
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

/** How js-yaml writes: no anchors, no folding, the YAML 1.2 core schema. */
const JS_YAML_OPTIONS = { noRefs: true, lineWidth: -1, schema: CORE_SCHEMA } as const;

/** Whether js-yaml would write `text` plain where some reader misreads it; kept per distinct string since a fleet repeats most. */
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

/** A document or top-level key starting with `...` would end the document when written plain, so it goes to the `yaml` package. */
const DOCUMENT_END = /^\.\.\.(?: |$)/;
function endsDocument(object: unknown): boolean {
  if (typeof object === "string") return DOCUMENT_END.test(object);
  if (object === null || typeof object !== "object" || Array.isArray(object)) return false;
  return Object.keys(object).some((key) => DOCUMENT_END.test(key));
}

/** js-yaml's double-quoted form of a string: one line, every character that is not printable escaped. */
const DOUBLE_QUOTED = { ...JS_YAML_OPTIONS, forceQuotes: true, quotingType: '"' } as const;
const doubleQuoted = (text: string) => dump(text, DOUBLE_QUOTED).slice(0, -1);

/** The `yaml` package's schema with js-yaml's double quotes, since its own leave some non-printable characters unescaped. */
const quotingStrings = (tags: Tags): Tags =>
  tags.map((tag) =>
    typeof tag === "object" && tag.tag === "tag:yaml.org,2002:str" && "stringify" in tag && tag.stringify
      ? {
          ...tag,
          stringify: (item, ...rest) => (typeof item.value === "string" && needsQuotes(item.value) ? doubleQuoted(item.value) : tag.stringify!(item, ...rest)),
        }
      : tag,
  );

/** The reference writer: the `yaml` package, quoting exactly the strings js-yaml would leave misreadable. Slower, so used only when needed. */
export function toYamlReference(object: unknown): string {
  if (!endsDocument(object) && !anyStringMisread(object)) return dump(object, JS_YAML_OPTIONS);
  const doc = new Document(object, { version: "1.2", aliasDuplicateObjects: false, customTags: quotingStrings });
  // Its own double quotes (where it chooses them) on one line as well.
  return doc.toString({ lineWidth: 0, doubleQuotedMinMultiLineLength: Infinity });
}

/** Strings js-yaml always single-quotes, placed without asking it. */
const QUOTED_ANYWAY = /^[-?:,[\]{}#&*!|=>'"%@` ][\x20-\x7e]*$/;

/**
 * js-yaml's form of one scalar for emit-fast.ts, kept per distinct string
 * within a character budget (a fleet repeats most; hostile input repeats long ones).
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

/** The YAML of one object, byte for byte toYamlReference's, by the faster path. */
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

/** A file name that stays inside its directory: no separator, `..` or leading dot. */
export const SAFE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Bounded under the 255-byte name limit with room for temporary names; longer names end in a hash so they stay distinct and deterministic (G-02). */
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
