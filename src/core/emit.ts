// Output: a YAML stream, a JSON List, or the files of a directory (one per
// object and a kustomization.yaml; output-dir.ts writes them). All
// deterministic (G-02): the objects are serialized in the order given and
// keys in the order built.
import { createHash } from "node:crypto";
import type { K8sObject } from "./objects.ts";
import { CORE_SCHEMA, dump } from "js-yaml";
import { Document, visit } from "yaml";

/**
 * Manifests are read by YAML 1.1 parsers (kubectl) and YAML 1.2 parsers
 * (kustomize, most tools). A string must not be written plain when either
 * dialect's schema would read it as something else (`yes`, `on`, `0777`,
 * `0o7`, `1_000`, `~`): the schemas' own tag tests (from the `yaml`
 * package, which also parses our inputs) decide which strings those are.
 */
const AMBIGUOUS = ["1.1", "1.2"].flatMap((version) =>
  new Document(null, { version: version as "1.1" | "1.2" }).schema.tags.flatMap((tag) => (tag.test ? [tag.test] : [])),
);
/** Characters that parsers strip or fold, and block scalars with edge whitespace. */
const FRAGILE = /[\t\r\u0085\u2028\u2029\ufeff]/;
const FRAGILE_BLOCK = /^[ \t\n]|[ \t]\n|[ \t]$|\n[ \t]+\n/;

function needsQuotes(text: string): boolean {
  return AMBIGUOUS.some((test) => test.test(text)) || FRAGILE.test(text) || (text.includes("\n") && FRAGILE_BLOCK.test(text));
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
      (AMBIGUOUS.some((test) => test.test(text)) && !/^['"]/.test(key ? dump({ [text]: 0 }, JS_YAML_OPTIONS) : dump(text, JS_YAML_OPTIONS)));
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
 * js-yaml writes block YAML several times faster than the `yaml` package
 * (see docs/performance.md), and emitting is most of a fleet's cost. Rendered
 * objects rarely hold a string that js-yaml would leave misreadable; when one does, the
 * `yaml` package writes that object, double-quoting exactly those strings
 * (keys included). No anchors for shared objects (labels), no line folding.
 */
export function toYaml(object: unknown): string {
  if (!anyStringMisread(object)) return dump(object, JS_YAML_OPTIONS);
  const doc = new Document(object, { version: "1.2", aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && needsQuotes(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString({ lineWidth: 0 });
}

export function toYamlStream(objects: readonly K8sObject[]): string {
  return objects.map((o) => `---\n${toYaml(o)}`).join("");
}

/** A `v1 List`, which `kubectl apply -f` accepts like a stream. */
export function toJsonList(objects: readonly K8sObject[]): string {
  return JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }, null, 2) + "\n";
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
