// What a kustomization names, judged before kustomize sees it: only files
// inside the checked tree are read, nothing is fetched and nothing is run.
import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { UsageError } from "../core/errors.ts";
import { isRecord } from "../k8s/access.ts";
import { parseDocumentsWithPositions, type SourceDocument } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { inside } from "../parse/tree.ts";

export const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/** A reference kustomize would not resolve inside the tree, at its place. */
export interface Refusal {
  file: string;
  line: number;
  column: number;
  message: string;
  fix: string;
  /** What rigging will not do (fetch, run a program, read outside the tree), not a fault of the kustomization. */
  unsafe?: true;
}

/** More kustomizations than any repository holds: a bound on the walk, not a policy. */
const MAX_KUSTOMIZATIONS = 10_000;

const FIX_REMOTE =
  "vendor the remote base into the repository and name it by a relative path, or build it yourself and pipe the output: kubectl kustomize DIR | rigging check -";
const FIX_OUTSIDE = "name a file inside the repository (the checked tree), or check from a directory that holds both";
const FIX_RUNS = "check the kustomization's output instead: kustomize build --enable-alpha-plugins DIR | rigging check -";

/** How each key of a kustomization names files: a directory may be another kustomization. */
type Kind = "resource" | "file" | "plugin";

/** Every reference of the kustomization in `dir` and of those it names, refused where kustomize would leave the tree. */
export function refusedReferences(dir: string, tree: string): Refusal[] {
  const refusals: Refusal[] = [];
  const named = new Map<string, { ref: Reference; next: string }[]>();
  const start = realpathSync.native(dir);
  const queue = [start];
  for (let i = 0; i < queue.length && named.size < MAX_KUSTOMIZATIONS; i++) {
    const at = queue[i];
    if (named.has(at)) continue;
    const edges: { ref: Reference; next: string }[] = [];
    named.set(at, edges);
    const found = kustomizationFile(at, refusals);
    if (!found) continue;
    for (const ref of references(found)) {
      const next = judge(ref, at, tree, refusals);
      if (next) {
        queue.push(next);
        edges.push({ ref, next });
      }
    }
  }
  for (const { ref, next } of cycles(start, named))
    refusals.push({
      ...place(ref),
      message: `${JSON.stringify(ref.value)} names a kustomization that names this one again (${next}): a cycle kustomize cannot build`,
      fix: "remove one of the references so that bases form a tree",
    });
  return refusals;
}

/** The references that close a cycle, found by a depth-first walk from `start` (iterative: a deep chain is no stack risk). */
function cycles(start: string, named: Map<string, { ref: Reference; next: string }[]>): { ref: Reference; next: string }[] {
  const found: { ref: Reference; next: string }[] = [];
  const state = new Map<string, "open" | "done">([[start, "open"]]);
  const stack: { at: string; edge: number }[] = [{ at: start, edge: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const edge = named.get(top.at)?.[top.edge++];
    if (!edge) {
      state.set(top.at, "done");
      stack.pop();
    } else if (state.get(edge.next) === "open") found.push(edge);
    else if (!state.has(edge.next)) {
      state.set(edge.next, "open");
      stack.push({ at: edge.next, edge: 0 });
    }
  }
  return found;
}

/** Where a reference is written: its value, or with `key` its key. */
function place(ref: Reference, key = false): { file: string; line: number; column: number } {
  const at = ref.doc.locate(ref.path, { key });
  return { file: ref.doc.file, line: at.line ?? 1, column: at.column ?? 1 };
}

export interface LocalReferences {
  file?: string;
  kustomizations: string[];
  files: string[];
  /** Only `resources` that are local files (as `render -o` writes it): its build is those files as they are. */
  plain: boolean;
}

/** Keys of a kustomization that change nothing in what its resources hold (sortOptions: only their order). */
const PLAIN_KEYS = new Set(["apiVersion", "kind", "metadata", "resources", "sortOptions"]);

/** What a kustomization names inside the machine's files, as real paths: kustomizations (directories) and files; kustomize-refused names left out. */
export function localReferences(dir: string): LocalReferences {
  const found = kustomizationFile(dir, []);
  const out: LocalReferences = { kustomizations: [], files: [], plain: false };
  if (!found) return out;
  out.file = found.file;
  let plain = Object.keys(found.data as Record<string, unknown>).every((key) => PLAIN_KEYS.has(key));
  for (const ref of references(found)) {
    plain &&= ref.kind === "resource" && ref.path[0] === "resources";
    if (ref.kind === "plugin" || remoteForm(ref.value)) {
      plain = false;
      continue;
    }
    try {
      const real = realpathSync.native(resolve(dir, ref.value));
      const stat = statSync(real);
      if (stat.isDirectory() && ref.kind === "resource") out.kustomizations.push(real);
      else if (stat.isFile()) out.files.push(real);
      plain &&= stat.isFile();
    } catch {
      plain = false;
    }
  }
  out.plain = plain;
  return out;
}

/** The kustomization file of a directory, parsed; a FIFO or device there is refused, never opened. */
function kustomizationFile(dir: string, refusals: Refusal[]): SourceDocument | undefined {
  const name = KUSTOMIZATION_FILES.find((n) => existsSync(join(dir, n)));
  if (!name) return undefined;
  const file = join(dir, name);
  if (!statSync(file).isFile()) {
    refusals.push({ file, line: 1, column: 1, message: `${name} is not a regular file (a FIFO, socket or device), not read`, fix: "make it a regular file" });
    return undefined;
  }
  try {
    const [doc] = parseDocumentsWithPositions(readText(file), file);
    return doc && isRecord(doc.data) ? doc : undefined;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    refusals.push({ file, line: 1, column: 1, message: error.message, fix: "make it a valid kustomization (kubectl kustomize DIR says what is wrong)" });
    return undefined;
  }
}

interface Reference {
  doc: SourceDocument;
  path: (string | number)[];
  value: string;
  kind: Kind;
}

/** The strings a kustomization names files with, key by key (kustomize's v1beta1 fields and their deprecated forms). */
function references(doc: SourceDocument): Reference[] {
  const data = doc.data as Record<string, unknown>;
  const out: Reference[] = [];
  const add = (path: (string | number)[], value: unknown, kind: Kind) => {
    if (typeof value === "string") out.push({ doc, path, value, kind });
  };
  const each = (key: string, kind: Kind, field?: string) => {
    const list = data[key];
    if (!Array.isArray(list)) return;
    list.forEach((entry, i) => {
      // An entry of a list of objects written as a bare string (`patches: [file.yaml]`) names a file too.
      if (field === undefined || typeof entry === "string") add([key, i], entry, kind);
      else if (isRecord(entry)) add([key, i, field], entry[field], kind);
    });
  };
  each("resources", "resource");
  each("bases", "resource");
  each("components", "resource");
  each("crds", "file");
  each("configurations", "file");
  each("patches", "file", "path");
  each("patchesJson6902", "file", "path");
  each("replacements", "file", "path");
  for (const key of ["generators", "transformers", "validators"]) each(key, "plugin");
  // A strategic-merge entry is a file name or, spanning lines, the patch itself.
  (Array.isArray(data.patchesStrategicMerge) ? data.patchesStrategicMerge : []).forEach((entry, i) => {
    if (typeof entry === "string" && !entry.includes("\n")) add(["patchesStrategicMerge", i], entry, "file");
  });
  if (isRecord(data.openapi)) add(["openapi", "path"], data.openapi.path, "file");
  for (const key of ["configMapGenerator", "secretGenerator"]) generatorFiles(doc, data[key], key, out);
  for (const key of ["helmCharts", "helmChartInflationGenerator"]) if (data[key] !== undefined) out.push({ doc, path: [key], value: "", kind: "plugin" });
  return out;
}

/** `files: [key=path]`, `envs: [path]` and `env: path` of a ConfigMap or Secret generator. */
function generatorFiles(doc: SourceDocument, list: unknown, key: string, out: Reference[]): void {
  if (!Array.isArray(list)) return;
  list.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    for (const field of ["files", "envs"]) {
      const values = entry[field];
      if (!Array.isArray(values)) continue;
      values.forEach((v, j) => {
        if (typeof v === "string") out.push({ doc, path: [key, i, field, j], value: field === "files" ? v.slice(v.indexOf("=") + 1) : v, kind: "file" });
      });
    }
    if (typeof entry.env === "string") out.push({ doc, path: [key, i, "env"], value: entry.env, kind: "file" });
  });
}

/** Judges one reference; returns the directory of a kustomization it names, to be judged in turn. */
function judge(ref: Reference, dir: string, tree: string, refusals: Refusal[]): string | undefined {
  const refuse = (message: string, fix: string, key = false, unsafe = false) =>
    refusals.push({ ...place(ref, key), message, fix, ...(unsafe ? { unsafe } : {}) });
  const unsafe = (message: string, fix: string, key = false) => refuse(message, fix, key, true);
  const shown = JSON.stringify(ref.value);
  if (ref.path[0] === "helmCharts" || ref.path[0] === "helmChartInflationGenerator")
    return void unsafe(
      `${ref.path[0]} runs helm: not built`,
      "render the chart with helm template and check its output: helm template ... | rigging check -",
      true,
    );
  if (ref.kind === "plugin" && ref.value.includes("\n")) {
    if (isFunction(ref.value)) unsafe(`${ref.path[0]} names an exec or container function: not run`, FIX_RUNS);
    return undefined;
  }
  const remote = remoteForm(ref.value);
  if (remote) return void unsafe(`${shown} is ${remote}: nothing is fetched`, FIX_REMOTE);
  let real: string;
  try {
    real = realpathSync.native(resolve(dir, ref.value));
  } catch {
    return void refuse(`${shown} names no file or directory in the tree`, "name a file or directory that exists in the repository");
  }
  if (!inside(real, tree)) return void unsafe(`${shown} leaves the checked tree ${tree}`, FIX_OUTSIDE);
  const stat = statSync(real);
  if (stat.isDirectory()) return ref.kind === "file" ? undefined : real;
  if (!stat.isFile()) return void refuse(`${shown} is not a regular file (a FIFO, socket or device), not read`, "make it a regular file");
  if (ref.kind === "plugin" && isFunction(readOrEmpty(real))) unsafe(`${shown} configures an exec or container function: not run`, FIX_RUNS);
  return undefined;
}

/** Why a reference is not a local path, in kustomize's own terms (its remote loader's URL forms). */
export function remoteForm(value: string): string | undefined {
  const lower = value.toLowerCase();
  if (lower.includes("://")) return "a URL";
  if (/^[a-z][a-z0-9+.-]*:/.test(lower)) return "a URL (a scheme or host prefix)";
  if (scpLike(value)) return "a git address (user@host:path)";
  if (lower.startsWith("github.com") || lower.includes("_git/")) return "a git repository address";
  if (value.includes("?")) return "a URL with a query";
  return undefined;
}

/** `user@host:path` before any `/`, found in one pass (a pattern would backtrack over a long run of `@`). */
function scpLike(value: string): boolean {
  const slash = value.indexOf("/");
  const end = slash === -1 ? value.length : slash;
  const at = value.indexOf("@");
  return at !== -1 && at < end && value.slice(at + 1, end).includes(":");
}

/** Whether a plugin's configuration asks kustomize to run a program (an exec or container function). */
function isFunction(text: string): boolean {
  return text.includes("config.kubernetes.io/function") || text.includes("config.k8s.io/function");
}

function readOrEmpty(file: string): string {
  try {
    return readText(file);
  } catch (error) {
    if (error instanceof UsageError) return "";
    throw error;
  }
}
