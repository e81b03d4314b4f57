// Reading and parsing input files. YAML (and JSON, which is YAML) is parsed
// with the `yaml` package so that every value keeps its source range; errors
// then point at the line a person has to edit.
import { readFileSync, statSync } from "node:fs";
import { Document, LineCounter, isMap, isPair, isScalar, isSeq, parseAllDocuments, type Node } from "yaml";
import type { Location } from "./diagnostic.ts";
import { UsageError } from "./errors.ts";

/** Documented input limits: beyond them a file is refused, not parsed. */
export const LIMITS = {
  fileBytes: 8 * 1024 * 1024,
  aliases: 100,
  depth: 200,
} as const;

export interface SourceDocument {
  file: string;
  data: unknown;
  /** Line and column of the value (or of the key, for `key: true`) at `path`. */
  locate(path: readonly PropertyKey[], options?: { key?: boolean }): Location;
}

/** Reads a file (or stdin for `-`) as UTF-8 text, refusing what is not text. */
export function readText(file: string): string {
  let bytes: Buffer;
  try {
    if (file !== "-") {
      const stat = statSync(file);
      if (stat.isDirectory()) throw new UsageError(`${file}: is a directory, expected a file`);
      if (stat.size > LIMITS.fileBytes) throw new UsageError(`${file}: ${stat.size} bytes is over the ${LIMITS.fileBytes}-byte limit for an input file`);
    }
    bytes = readFileSync(file === "-" ? 0 : file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : String((error as Error).message);
    throw new UsageError(`${file}: cannot read: ${reason}`);
  }
  const name = file === "-" ? "<stdin>" : file;
  if (bytes.length > LIMITS.fileBytes) throw new UsageError(`${name}: over the ${LIMITS.fileBytes}-byte limit for an input file`);
  if (bytes.includes(0)) throw new UsageError(`${name}: is a binary file, expected YAML or JSON text`);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${name}: is not valid UTF-8 text, expected YAML or JSON`);
  }
}

/** Parses every document of a YAML stream, keeping positions. */
export function parseDocuments(text: string, file: string): SourceDocument[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  if (!Array.isArray(docs)) return []; // an empty stream
  const out: SourceDocument[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem) {
      const { line, col } = lineCounter.linePos(problem.pos[0]);
      throw new UsageError(`${file}:${line}:${col} not valid YAML: ${firstLine(problem.message)}`);
    }
    if (doc.contents === null) continue; // `---` with nothing after it
    out.push(toSource(doc, file, lineCounter));
  }
  return out;
}

/** Parses a values file: exactly one YAML or JSON document holding a mapping. */
export function parseValuesFile(text: string, file: string): SourceDocument {
  const docs = parseDocuments(text, file);
  if (docs.length === 0) throw new UsageError(`${file}: is empty, expected a values mapping with a top-level kind`);
  if (docs.length > 1) throw new UsageError(`${file}: holds ${docs.length} YAML documents, a values file holds one`);
  const doc = docs[0];
  if (doc.data === null || typeof doc.data !== "object" || Array.isArray(doc.data)) {
    throw new UsageError(`${file}: expected a mapping of values keys at the top level`);
  }
  return doc;
}

function toSource(doc: Document.Parsed, file: string, lineCounter: LineCounter): SourceDocument {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: LIMITS.aliases });
  } catch (error) {
    throw new UsageError(`${file}: ${firstLine((error as Error).message)} (aliases are limited to ${LIMITS.aliases} expansions)`);
  }
  if (depthOf(data, 0) > LIMITS.depth) throw new UsageError(`${file}: nested deeper than the limit of ${LIMITS.depth} levels`);
  const at = (node: Node | null | undefined, fallback: number): Location => {
    const offset = node?.range?.[0] ?? fallback;
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  return {
    file,
    data,
    locate(path, options = {}) {
      // Walk as far down the path as the document goes: a missing key is
      // reported at its parent, which is where it has to be added.
      let node = doc.contents as Node | null;
      let keyNode: Node | null = null;
      for (const segment of path) {
        if (isMap(node)) {
          const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
          if (!pair) break;
          keyNode = pair.key as Node;
          node = pair.value as Node | null;
        } else if (isSeq(node) && typeof segment === "number" && node.items[segment]) {
          keyNode = null;
          node = node.items[segment] as Node;
        } else break;
      }
      return at(options.key && keyNode ? keyNode : node ?? keyNode, doc.range[0]);
    },
  };
}

function depthOf(value: unknown, depth: number): number {
  if (value === null || typeof value !== "object" || depth > LIMITS.depth) return depth;
  let max = depth;
  for (const child of Object.values(value)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

function firstLine(message: string): string {
  return message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
}
