// Layered values with Helm's rules (files in order, then each --set); every
// value keeps its layer so a refusal names the file and line that set it.
import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { formatLocation, type Location } from "../core/diagnostic.ts";
import { UsageError } from "../core/errors.ts";
import { applySet, parseSet, type Segment, setLabel } from "./set-values.ts";
import { parseValuesFile, type SourceDocument } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { inside, treeOf } from "../parse/tree.ts";
import { isRecord } from "../k8s/access.ts";

export interface SetArgument {
  flag: "--set" | "--set-string";
  arg: string;
}

interface Layer {
  /** The file's document, or undefined for a --set argument. */
  doc?: SourceDocument;
  label: string;
}

/** The layer that last wrote a value, and the origins of the values under it. */
class Origin {
  children?: Map<Segment, Origin>;
  constructor(public layer: number) {}
  child(key: Segment, layer: number): Origin {
    this.children ??= new Map();
    let found = this.children.get(key);
    if (!found) this.children.set(key, (found = new Origin(layer)));
    return found;
  }
}

const name = (file: string) => (file === "-" ? "<stdin>" : file);

export interface LoadOptions {
  /** The tree a values file's `base:` may name (--values-root); by default each named file's tree (src/parse/tree.ts). */
  valuesRoot?: string;
}

/** Where the files a values file names may be: their real paths must be inside `real`. */
interface Root {
  real: string;
  /** How a message names it: `--values-root DIR`, or the tree and the file named. */
  shown: string;
}

/** `files` layered in order, their `base:` files first, then `sets`. */
export function loadValues(files: readonly string[], sets: readonly SetArgument[] = [], options: LoadOptions = {}): SourceDocument {
  const layers: Layer[] = [];
  const given = options.valuesRoot === undefined ? undefined : givenRoot(options.valuesRoot);
  for (const file of files) layers.push(...fileLayers(file, [], () => given ?? defaultRoot(file)));
  if (layers.length === 1 && sets.length === 0) return layers[0].doc!;
  refuseMixedKinds(layers);
  const data: Record<string, unknown> = {};
  const root = new Origin(0);
  layers.forEach((layer, index) => merge(data, layer.doc!.data as Record<string, unknown>, index, root, index === 0));
  for (const { flag, arg } of sets) {
    const label = setLabel(flag, arg);
    const index = layers.push({ label }) - 1;
    for (const assignment of parseSet(arg, flag === "--set-string", flag)) {
      const made = applySet(data, assignment, label);
      record(root, assignment.path, index, assignment.value === null && typeof assignment.path.at(-1) === "string", made);
    }
  }
  const top = layers[layers.length - sets.length - 1];
  return {
    file: top.doc!.file,
    data,
    locate(path, options): Location {
      const layer = layers[originOf(root, path)];
      return layer.doc ? layer.doc.locate(path, options) : { file: layer.label };
    },
  };
}

/** The tree --values-root names, resolved. */
function givenRoot(dir: string): Root {
  try {
    const real = realpathSync.native(dir);
    if (statSync(real).isDirectory()) return { real, shown: `--values-root ${dir}` };
  } catch {
    // said below
  }
  throw new UsageError(`--values-root ${dir}: not a directory; name the directory that holds the values files and their bases`);
}

/** The tree of a values file named on the command line: its repository, else the working directory holding it, else its directory. */
function defaultRoot(file: string): Root {
  const dir = file === "-" ? "." : dirname(file);
  try {
    const tree = treeOf(dir);
    return { real: tree.real, shown: `${tree.real}, ${tree.what} ${name(file)}` };
  } catch {
    return { real: resolve(dir), shown: `${dir}, the directory of ${name(file)}` };
  }
}

/**
 * The real path of a `base:` file, refused unless it is a regular file inside
 * the root: a values file from a repository must not make rigging read any
 * file of the machine (`base: /etc/shadow`, `../../..`), nor block on a FIFO.
 */
function checkedBase(path: string, base: string, where: string, root: Root, trail: string): void {
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    return; // missing or unreadable: the read says so, with the chain
  }
  if (!inside(real, root.real))
    throw new UsageError(
      `${where} base: ${base} is ${real}, outside ${root.shown}, where a values file may name files (${trail}); move the file under it, or pass --values-root DIR naming a directory that holds both`,
    );
  if (!statSync(real).isFile())
    throw new UsageError(`${where} base: ${base} is not a regular file (a FIFO, a directory or a device); name a values file (${trail})`);
}

/** A file's layers: those of its base (and the base's base), then its own, without `base`. */
function fileLayers(file: string, chain: readonly string[], root: () => Root): Layer[] {
  const doc = parseValuesFile(readText(file), name(file));
  // The common case, a file without base, is its document as parsed.
  if (!Object.hasOwn(doc.data as object, "base")) return [{ doc, label: doc.file }];
  const { base, ...data } = doc.data as Record<string, unknown>;
  const own: Layer = { doc: { file: doc.file, data, locate: (path, options) => doc.locate(path, options) }, label: doc.file };
  const where = formatLocation(doc.locate(["base"]));
  const trail = [...chain, name(file)];
  if (typeof base !== "string" || base === "") throw new UsageError(`${where} base: expected the path of the values file this one builds on`);
  const path = isAbsolute(base) ? base : join(file === "-" ? "." : dirname(file), base);
  const seen = [...chain, file].map((f) => resolve(f));
  if (seen.includes(resolve(path))) throw new UsageError(`${where} base: ${base} makes a cycle: ${[...trail, path].join(" -> ")}`);
  checkedBase(path, base, where, root(), [...trail, path].join(" -> "));
  let below: Layer[];
  try {
    below = fileLayers(path, [...chain, file], root);
  } catch (error) {
    if (error instanceof UsageError && error.message.startsWith(`${path}: cannot read`))
      throw new UsageError(`${where} base: ${error.message} (${[...trail, path].join(" -> ")})`);
    throw error;
  }
  return [...below, own];
}

/** Layers render one kind: two that name different kinds are refused, in one line. */
function refuseMixedKinds(layers: readonly Layer[]): void {
  let first: Layer | undefined;
  for (const layer of layers) {
    const kind = (layer.doc!.data as Record<string, unknown>).kind;
    if (kind === undefined) continue;
    const firstKind = first && (first.doc!.data as Record<string, unknown>).kind;
    if (first && kind !== firstKind) {
      const at = (l: Layer) => formatLocation(l.doc!.locate(["kind"]));
      throw new UsageError(
        `${at(layer)} kind: ${JSON.stringify(kind)}, but ${at(first)} has kind: ${JSON.stringify(firstKind)}; layered values files render one kind`,
      );
    }
    first ??= layer;
  }
}

/** Merges `src` into `dst` as Helm coalesces values; the first layer keeps its nulls (a file alone reads unchanged). */
function merge(dst: Record<string, unknown>, src: Record<string, unknown>, layer: number, origin: Origin, keepNull: boolean): void {
  origin.layer = layer;
  for (const key of Object.keys(src)) {
    const value = src[key];
    if (value === null && !keepNull) {
      delete dst[key];
      origin.children?.delete(key);
    } else if (isRecord(value)) {
      if (!isRecord(dst[key])) {
        dst[key] = {};
        origin.children?.delete(key);
      }
      merge(dst[key] as Record<string, unknown>, value, layer, origin.child(key, layer), keepNull);
    } else {
      dst[key] = structuredClone(value);
      origin.children?.delete(key);
      origin.child(key, layer);
    }
  }
}

/** Records that layer `layer` set (or removed) the value at `path`, and made the maps and lists on it from index `made` on. */
function record(root: Origin, path: readonly Segment[], layer: number, removed: boolean, made: number): void {
  let node = root;
  for (const [k, segment] of path.slice(0, -1).entries()) {
    if (k >= made) node.children?.delete(segment);
    node = node.child(segment, k >= made ? layer : node.layer);
  }
  const last = path.at(-1)!;
  node.children?.delete(last);
  if (!removed) node.child(last, layer);
}

/** The layer that set the value at `path`, or the nearest map above it. */
function originOf(root: Origin, path: readonly PropertyKey[]): number {
  let node = root;
  for (const segment of path) {
    const next = node.children?.get(segment as Segment);
    if (!next) break;
    node = next;
  }
  return node.layer;
}
