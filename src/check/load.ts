// From text to objects that remember the document and path they came from,
// so a finding names the line a person edits.
import type { Location } from "../core/diagnostic.ts";
import type { K8sObject } from "../k8s/objects.ts";
import type { SourceDocument } from "../parse/source.ts";
import { isRecord } from "../k8s/access.ts";

export interface Origin {
  file: string;
  document: SourceDocument;
  /** Where the object sits inside its document: [] or ["items", i] in a List. */
  prefix: PropertyKey[];
}

export interface Loaded {
  objects: K8sObject[];
  origins: Map<K8sObject, Origin>;
  /** Documents that are not Kubernetes objects, as `file:line: why` (exit 2). */
  problems: string[];
  /** The same problems with their place, in the same order. */
  placed: { line: number; column: number; message: string }[];
}

export function loadObjects(documents: readonly SourceDocument[]): Loaded {
  const loaded: Loaded = { objects: [], origins: new Map(), problems: [], placed: [] };
  documents.forEach((document, index) => {
    const data = document.data;
    // An empty document (`---` followed by nothing but comments) holds no object, as kubectl reads it.
    if (data === null || data === undefined) return;
    const where = `document ${index + 1}`;
    if (isList(data)) {
      data.items.forEach((item, i) => {
        const at = `${where}, items[${i}]`;
        // kubectl opens one level of List and refuses a List inside it.
        if (isList(item)) problem(loaded, document, ["items", i], `${at} is a ${item.kind} inside a ${data.kind}; kubectl does not open nested lists`);
        else add(loaded, document, typedItem(data, item), ["items", i], at);
      });
    } else add(loaded, document, data, [], where);
  });
  return loaded;
}

function add(loaded: Loaded, document: SourceDocument, data: unknown, prefix: PropertyKey[], where: string): void {
  const why = notAnObject(data);
  if (why) {
    problem(loaded, document, prefix, `${where} is not a Kubernetes object: ${why}`);
    return;
  }
  const object = data as K8sObject;
  // kustomization.yaml (as `render -o` writes it) configures a build and is
  // never applied: there is nothing in it for the rules to judge.
  if (object.apiVersion.startsWith("kustomize.config.k8s.io/")) return;
  // Config objects without metadata still reach the rules, which read it.
  if (object.metadata === undefined) object.metadata = {} as K8sObject["metadata"];
  loaded.objects.push(object);
  loaded.origins.set(object, { file: document.file, document, prefix });
}

/** `kind: List` (kubectl get -o yaml) or any `<Kind>List` with items. */
function isList(data: unknown): data is { apiVersion?: unknown; kind: string; items: unknown[] } {
  if (!isRecord(data) || typeof data.kind !== "string" || !Array.isArray(data.items)) return false;
  return data.kind === "List" || data.kind.endsWith("List");
}

/**
 * A typed list's item as kubectl decodes it (apimachinery's UnstructuredList): one with neither apiVersion nor
 * kind takes the list's apiVersion and the list's kind without "List" (v1 PodList: v1 Pod); `kind: List` gives none.
 */
function typedItem(list: { apiVersion?: unknown; kind: string }, item: unknown): unknown {
  if (!isRecord(item) || !unset(item.apiVersion) || !unset(item.kind) || list.kind === "List") return item;
  item.apiVersion = list.apiVersion;
  item.kind = list.kind.slice(0, -"List".length);
  return item;
}

const unset = (value: unknown) => value === undefined || value === null || value === "";

function notAnObject(data: unknown): string | undefined {
  if (!isRecord(data)) return `expected a mapping with apiVersion, kind and metadata, found ${describe(data)}`;
  const mistyped = ["apiVersion", "kind"].find((key) => !unset(data[key]) && typeof data[key] !== "string");
  if (mistyped) return `${mistyped} is ${describe(data[mistyped])}, not a string`;
  const missing = ["apiVersion", "kind"].filter((key) => typeof data[key] !== "string" || data[key] === "");
  const valuesFile = missing.length === 1 && missing[0] === "apiVersion";
  if (missing.length > 0) return `no ${missing.join(" and ")}${valuesFile ? " (a values file? rigging render reads those)" : ""}`;
  if (data.metadata !== undefined && !isRecord(data.metadata)) return "metadata is not a mapping";
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a sequence";
  return `a ${typeof value}`;
}

function problem(loaded: Loaded, document: SourceDocument, path: PropertyKey[], message: string): void {
  const location: Location = document.locate(path);
  loaded.problems.push(`${location.file}:${location.line ?? 1}: ${message}`);
  loaded.placed.push({ line: location.line ?? 1, column: location.column ?? 1, message });
}
