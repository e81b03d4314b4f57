// Where an overlay's patch put a value: kustomize's transformer annotations
// name the kustomizations whose patches touched an object, and the patch that
// holds the built value at a finding's path is the line a person edits.
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { dig, isRecord } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";
import type { SourceDocument } from "../parse/source.ts";

const TRANSFORMATIONS_KEY = "alpha.config.kubernetes.io/transformations";
const PATCH_KINDS = new Set(["PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer"]);
/** A transformations annotation lists a few entries per overlay; a longer one is not read. */
const ANNOTATION_MAX = 65_536;
/** The keys kustomize's strategic merge matches list items by, in the order they are tried. */
const MERGE_KEYS = ["name", "mountPath", "containerPort", "devicePath", "topologyKey", "ip"];

export interface Place {
  file: string;
  line: number;
  column: number;
}

/** Reads a file's documents once per check; undefined when unreadable. */
export type Documents = (file: string) => SourceDocument[] | undefined;

/** The place in a patch file (or an inline patch's entry) that set the value at `path`, or undefined. */
export function patchPlace(
  object: K8sObject,
  path: readonly PropertyKey[],
  root: string,
  documents: Documents,
  named: (file: string) => string,
): Place | undefined {
  const built = dig(object, path);
  if (built === undefined) return undefined;
  // The last kustomization to patch the object wins: tried first.
  for (const kustomization of patchingKustomizations(object).reverse()) {
    const file = named(join(root, kustomization));
    const doc = documents(file)?.[0];
    if (!doc || !isRecord(doc.data)) continue;
    for (const entry of patchEntries(doc.data).reverse()) {
      const found = entry.file
        ? inFile(documents(join(dirname(file), entry.file)), object, path, built, entry.targeted)
        : inline(entry.text, object, path, built, entry.targeted);
      if (found === "inline") return at(doc, entry.at);
      if (found) return found;
    }
  }
  return undefined;
}

/** The kustomizations (relative to the build's root) whose patch transformers touched the object, in the order applied. */
function patchingKustomizations(object: K8sObject): string[] {
  const text = (object.metadata?.annotations as Record<string, unknown> | undefined)?.[TRANSFORMATIONS_KEY];
  if (typeof text !== "string" || text.length > ANNOTATION_MAX) return [];
  let entries: unknown;
  try {
    entries = parse(text, { maxAliasCount: 0 });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of Array.isArray(entries) ? entries : []) {
    if (!isRecord(entry) || !isRecord(entry.configuredBy) || !PATCH_KINDS.has(entry.configuredBy.kind as string)) continue;
    const file = entry.configuredIn;
    if (typeof file === "string" && file !== "" && !out.includes(file)) out.push(file);
  }
  return out;
}

interface Entry {
  /** A patch file, relative to the kustomization. */
  file?: string;
  /** An inline patch's text. */
  text?: string;
  /** Whether the entry selects its objects by `target` (the patch's own name need not match). */
  targeted: boolean;
  at: (string | number)[];
}

function patchEntries(kustomization: Record<string, unknown>): Entry[] {
  const out: Entry[] = [];
  for (const key of ["patchesStrategicMerge", "patchesJson6902", "patches"]) {
    const list = kustomization[key];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, i) => {
      if (typeof entry === "string")
        out.push(entry.includes("\n") ? { text: entry, targeted: false, at: [key, i] } : { file: entry, targeted: false, at: [key, i] });
      else if (isRecord(entry)) {
        const targeted = isRecord(entry.target);
        if (typeof entry.path === "string") out.push({ file: entry.path, targeted, at: [key, i, "path"] });
        else if (typeof entry.patch === "string") out.push({ text: entry.patch, targeted, at: [key, i, "patch"] });
      }
    });
  }
  return out;
}

function inFile(docs: SourceDocument[] | undefined, object: K8sObject, path: readonly PropertyKey[], built: unknown, targeted: boolean): Place | undefined {
  for (const doc of [...(docs ?? [])].reverse()) {
    const inside = patchPath(doc.data, object, path, built, targeted);
    if (inside) return at(doc, inside);
  }
  return undefined;
}

function inline(text: string | undefined, object: K8sObject, path: readonly PropertyKey[], built: unknown, targeted: boolean): "inline" | undefined {
  if (text === undefined) return undefined;
  try {
    return patchPath(parse(text, { maxAliasCount: 0 }), object, path, built, targeted) ? "inline" : undefined;
  } catch {
    return undefined;
  }
}

function at(doc: SourceDocument, path: readonly PropertyKey[]): Place | undefined {
  const where = doc.locate(path);
  return where.line === undefined ? undefined : { file: doc.file, line: where.line, column: where.column ?? 1 };
}

/** The path inside a patch (strategic merge or JSON 6902) that sets the built value, or undefined. */
function patchPath(patch: unknown, object: K8sObject, path: readonly PropertyKey[], built: unknown, targeted: boolean): PropertyKey[] | undefined {
  if (Array.isArray(patch)) return jsonPatchPath(patch, path, built);
  if (!isRecord(patch) || patch.kind !== object.kind) return undefined;
  const name = isRecord(patch.metadata) ? patch.metadata.name : undefined;
  // A name prefix or suffix leaves the patch's name inside the built one.
  if (!targeted && (typeof name !== "string" || !String(object.metadata?.name ?? "").includes(name))) return undefined;
  const mapped = mergePath(patch, object, path);
  return mapped && covers(dig(patch, mapped), built) ? mapped : undefined;
}

/** `path` of the built object as it reads in a strategic-merge patch: list items matched by their merge key. */
function mergePath(patch: unknown, object: unknown, path: readonly PropertyKey[]): PropertyKey[] | undefined {
  const out: PropertyKey[] = [];
  let p = patch;
  let b = object;
  for (const segment of path) {
    if (typeof segment === "number") {
      if (!Array.isArray(p) || !Array.isArray(b)) return undefined;
      const item = b[segment];
      const key = MERGE_KEYS.find((k) => isRecord(item) && (typeof item[k] === "string" || typeof item[k] === "number"));
      const index = key ? p.findIndex((x) => isRecord(x) && x[key] === (item as Record<string, unknown>)[key]) : p.length === b.length ? segment : -1;
      if (index === -1) return undefined;
      out.push(index);
      p = p[index];
      b = item;
    } else {
      if (!isRecord(p) || !isRecord(b) || !(segment in p)) return undefined;
      out.push(segment);
      p = p[segment as string];
      b = b[segment as string];
    }
  }
  return out;
}

/** A JSON patch operation that adds or replaces the value at `path`, or a value that holds it. */
function jsonPatchPath(ops: unknown[], path: readonly PropertyKey[], built: unknown): PropertyKey[] | undefined {
  const segments = path.map(String);
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i];
    if (!isRecord(op) || (op.op !== "add" && op.op !== "replace") || typeof op.path !== "string") continue;
    const target = op.path
      .split("/")
      .slice(1)
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
    if (target.length > segments.length || target.some((s, j) => s !== segments[j])) continue;
    const rest = path.slice(target.length);
    if (covers(dig(op.value, rest), built)) return [i, "value", ...rest];
  }
  return undefined;
}

/** Whether every value the patch sets is the built one (a map patch merges into what the base had). */
function covers(patch: unknown, built: unknown): boolean {
  if (patch === undefined) return false;
  if (isRecord(patch) && isRecord(built)) return Object.keys(patch).every((k) => covers(patch[k], built[k]));
  return JSON.stringify(patch) === JSON.stringify(built);
}
