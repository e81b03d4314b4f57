// Reading and parsing inputs: the `yaml` package gives positions and error
// wording; js-yaml reads first (fast-yaml.ts) since most inputs report nothing.
import {
  Composer,
  type Document,
  LineCounter,
  Parser,
  isMap,
  isScalar,
  isSeq,
  type CST,
  type DocumentOptions,
  type Node,
  type SchemaOptions,
  type Pair,
  type YAMLMap,
} from "yaml";
import { hasMoreNodesThan, nestsDeeperThan } from "./depth.ts";
import { type DuplicateKey, firstDuplicateKey, mayRepeatAsYaml11 } from "./duplicate-keys.ts";
import { formatPath, type Location } from "../core/diagnostic.ts";
import { UsageError, ValuesError } from "../core/errors.ts";
import { parseFast, parseFastStream } from "./fast-yaml.ts";
import { LIMITS } from "./limits.ts";
import { goQuotesLexer } from "./go-quotes.ts";

export interface SourceDocument {
  file: string;
  data: unknown;
  /** Line and column of the value (or of the key, for `key: true`) at `path`. */
  locate(path: readonly PropertyKey[], options?: { key?: boolean }): Location;
}

/** How a stream is read: `goQuotes`, quoted scalars as go-yaml folds them, on lines of any indentation (go-quotes.ts). */
export interface ReadAs {
  goQuotes?: boolean;
}

/** Parses every document of a YAML stream (positions on demand). */
export function parseDocuments(text: string, file: string, read: ReadAs = {}): SourceDocument[] {
  refuseDeepNesting(text, file);
  const fast = parseFastStream(text, LIMITS.depth);
  if (fast === undefined) return positionedDocuments(text, file, {}, false, true, read);
  let positioned: SourceDocument[] | undefined;
  return fast.map((data, index) => withLazyPositions(file, data, () => (positioned ??= positionedDocuments(text, file, {}, false, false, read))[index]));
}

/** The depth limit, before any parser sees the text (depth.ts). */
function refuseDeepNesting(text: string, file: string): void {
  if (nestsDeeperThan(text, LIMITS.depth)) throw tooDeep(file);
  if (hasMoreNodesThan(text, LIMITS.nodes))
    throw new UsageError(`${file}: holds more than ${LIMITS.nodes} nodes (scalars, lists and mappings) in one document, the limit`);
}

/** A js-yaml document whose positions come from one `yaml` parse on first `locate`. */
function withLazyPositions(file: string, data: unknown, reparse: () => SourceDocument | undefined): SourceDocument {
  let positioned: SourceDocument | undefined;
  return {
    file,
    data,
    locate(path, options) {
      // Both packages find the same documents (the tests check it); were one
      // missing from the reparse, it would get no position rather than a wrong one.
      positioned ??= reparse() ?? { file, data, locate: () => ({ file }) };
      return positioned.locate(path, options);
    },
  };
}

/** `schema` reads scalars another way (src/check/kube-yaml.ts: YAML 1.1, as kubectl). */
export function parseDocumentsWithPositions(text: string, file: string, schema: DocumentOptions & SchemaOptions = {}, read: ReadAs = {}): SourceDocument[] {
  refuseDeepNesting(text, file);
  return positionedDocuments(text, file, schema, false, true, read);
}

/** Options of the `yaml` package: strict YAML (duplicate keys: `firstDuplicateKey`). */
const YAML_OPTIONS = { uniqueKeys: false, prettyErrors: false, strict: true, logLevel: "error" } as const;

/** `yaml11Keys`: two keys YAML 1.1 reads as one are refused too (values files, duplicate-keys.ts). */
/** `withData`: false where js-yaml's data is kept and only positions are asked for (a second copy of the data is not built). */
function positionedDocuments(
  text: string,
  file: string,
  schema: DocumentOptions & SchemaOptions = {},
  yaml11Keys = false,
  withData = true,
  read: ReadAs = {},
): SourceDocument[] {
  const lineCounter = new LineCounter();
  let docs: Document.Parsed[];
  try {
    docs = guardDepth(file, () => composeUntilError(text, lineCounter, schema, read));
  } catch (error) {
    if (!(error instanceof FirstError)) throw error;
    if (error.code === "RESOURCE_EXHAUSTION" && /call stack/i.test(error.message)) throw tooDeep(file);
    const { line, col } = lineCounter.linePos(error.offset);
    throw new UsageError(`${file}:${line}:${col} not valid YAML: ${firstLine(error.message)}`);
  }
  const out: SourceDocument[] = [];
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem) {
      if (problem.code === "RESOURCE_EXHAUSTION" && /call stack/i.test(problem.message)) throw tooDeep(file);
      const { line, col } = lineCounter.linePos(problem.pos[0]);
      throw new UsageError(`${file}:${line}:${col} not valid YAML: ${firstLine(problem.message)}`);
    }
    const duplicate = guardDepth(file, () => firstDuplicateKey(doc, yaml11Keys));
    if (duplicate) throw duplicateKeyError(file, duplicate, lineCounter, doc.range[0]);
    if (doc.contents === null) continue; // `---` with nothing after it
    out.push(toSource(doc, file, lineCounter, withData));
  }
  return out;
}

/** The first error the `yaml` package finds in a text; it stops there. */
class FirstError extends Error {
  constructor(
    readonly offset: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `parseAllDocuments` that stops at the first error: a few MiB can hold a million errors, each with a stack, and only the first is reported. */
function composeUntilError(text: string, lineCounter: LineCounter, schema: DocumentOptions & SchemaOptions = {}, read: ReadAs = {}): Document.Parsed[] {
  const composer = new Composer({ ...schema, ...YAML_OPTIONS });
  // The composer catches what a collection throws and reports it again as
  // another error, so the first one is kept and thrown until it gets out.
  let first: FirstError | undefined;
  (composer as unknown as { onError: ErrorHook }).onError = (source, code, message, warning) => {
    if (!warning) throw (first ??= new FirstError(offsetOf(source), code, message));
  };
  const docs: Document.Parsed[] = [];
  const parser = new Parser(lineCounter.addNewLine);
  const tokens = read.goQuotes ? goQuotesTokens(parser, text, lineCounter) : parser.parse(text);
  for (const doc of composer.compose(untilErrorToken(tokens))) docs.push(doc);
  return docs;
}

/** `parser.parse(text)` with the go-yaml lexer in place of the parser's own (the parser's documented way to take one). */
function* goQuotesTokens(parser: Parser, text: string, lineCounter: LineCounter): Generator<CST.Token> {
  lineCounter.addNewLine(0);
  for (const lexeme of goQuotesLexer().lex(text)) yield* parser.next(lexeme);
  yield* parser.end();
}

type ErrorHook = (source: number | readonly number[] | { offset: number }, code: string, message: string, warning?: boolean) => void;

function offsetOf(source: Parameters<ErrorHook>[0]): number {
  if (typeof source === "number") return source;
  return "offset" in source ? source.offset : source[0];
}

function* untilErrorToken(tokens: Iterable<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    if (token.type === "error")
      throw new FirstError(token.offset, "UNEXPECTED_TOKEN", token.source ? `${token.message}: ${JSON.stringify(token.source)}` : token.message);
    yield token;
  }
}

/** Parses a values file: exactly one YAML or JSON document holding a mapping. */
export function parseValuesFile(text: string, file: string): SourceDocument {
  refuseDeepNesting(text, file);
  const fast = parseFast(text, LIMITS.depth);
  if (isMapping(fast) && !mayRepeatAsYaml11(fast)) return withLazyPositions(file, fast, () => positionedDocuments(text, file, {}, true, false)[0]);
  // js-yaml read one document the way the `yaml` package would: not a mapping.
  if (fast !== undefined && !isMapping(fast)) throw notMapping(file);
  // Everything else, including every error, is the `yaml` package's to word.
  const docs = positionedDocuments(text, file, {}, true);
  if (docs.length === 0) throw new UsageError(`${file}: is empty, expected a values mapping with a top-level kind`);
  if (docs.length > 1) throw new UsageError(`${file}: holds ${docs.length} YAML documents, a values file holds one`);
  const doc = docs[0];
  if (!isMapping(doc.data)) throw notMapping(file);
  const protoKeys = keyPaths(doc.data, "__proto__");
  if (protoKeys.length > 0) {
    // zod drops a `__proto__` key of a record silently (to keep it off the
    // prototype chain), which would accept an unknown key unseen (G-01).
    throw new ValuesError(
      protoKeys.map((path) => ({
        id: "G-01",
        path: formatPath(path),
        message: "unknown key",
        fix: "remove it; `__proto__` is never a values key",
        location: doc.locate(path, { key: true }),
      })),
    );
  }
  return doc;
}

function notMapping(file: string): UsageError {
  return new UsageError(`${file}: expected a mapping of values keys at the top level`);
}

function isMapping(data: unknown): data is Record<string, unknown> {
  return data !== null && typeof data === "object" && !Array.isArray(data);
}

/** Paths of every own key named `key`, at any depth, in document order (a stack, no spread of results). */
function keyPaths(value: unknown, key: string): PropertyKey[][] {
  const out: PropertyKey[][] = [];
  const stack: { value: unknown; at: PropertyKey[] }[] = [{ value, at: [] }];
  while (stack.length > 0) {
    const { value: node, at } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    const children: { value: unknown; at: PropertyKey[] }[] = [];
    for (const [k, child] of Object.entries(node)) {
      const path = [...at, Array.isArray(node) ? Number(k) : k];
      if (k === key && !Array.isArray(node)) out.push(path);
      children.push({ value: child, at: path });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

function toSource(doc: Document.Parsed, file: string, lineCounter: LineCounter, withData: boolean): SourceDocument {
  let data: unknown;
  if (withData) {
    try {
      data = doc.toJS({ maxAliasCount: LIMITS.aliases });
    } catch (error) {
      if (error instanceof RangeError) throw tooDeep(file);
      throw new UsageError(`${file}: ${firstLine((error as Error).message)} (the limit is ${LIMITS.aliases} alias expansions per document)`);
    }
    if (depthOf(data, 0) > LIMITS.depth) throw tooDeep(file);
  }
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
          const pair = pairsOf(node).get(String(segment));
          if (!pair) break;
          keyNode = pair.key as Node;
          node = pair.value as Node | null;
        } else if (isSeq(node) && typeof segment === "number" && node.items[segment]) {
          keyNode = null;
          node = node.items[segment] as Node;
        } else break;
      }
      return at(options.key && keyNode ? keyNode : (node ?? keyNode), doc.range[0]);
    },
  };
}

/** A mapping's pairs by key, built on first lookup, so reporting stays linear. */
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
function pairsOf(map: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const item of map.items) {
      if (!isScalar(item.key)) continue;
      const key = String(item.key.value);
      if (!index.has(key)) index.set(key, item);
    }
    pairIndex.set(map, index);
  }
  return index;
}

function depthOf(value: unknown, depth: number): number {
  if (value === null || typeof value !== "object" || depth > LIMITS.depth) return depth;
  let max = depth;
  for (const child of Object.values(value)) max = Math.max(max, depthOf(child, depth + 1));
  return max;
}

/** A net under the parser's own depth errors, so deep input never crashes. */
function guardDepth<T>(file: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(file);
    throw error;
  }
}

/** Both keys' positions; each as written, up to a bound. */
function duplicateKeyError(file: string, { first, second, yaml11 }: DuplicateKey, lines: LineCounter, fallback: number): UsageError {
  const at = (node: Node) => lines.linePos(node.range?.[0] ?? fallback);
  const shown = (node: Node) => {
    const text = isScalar(node) && typeof node.source === "string" && node.type === "PLAIN" ? node.source : JSON.stringify(isScalar(node) ? node.value : null);
    return text.length > 64 ? `${text.slice(0, 64)}… (${text.length} characters)` : text;
  };
  const { line, col } = at(second);
  const before = at(first);
  const how = yaml11 ? ", which YAML 1.1 (kubectl) reads as the same key" : ", the same key";
  return new UsageError(
    `${file}:${line}:${col} not valid YAML: Map keys must be unique: ${shown(second)} repeats ${shown(first)} of line ${before.line}, column ${before.col}${how}`,
  );
}

function tooDeep(file: string): UsageError {
  return new UsageError(`${file}: nested deeper than the limit of ${LIMITS.depth} levels`);
}

function firstLine(message: string): string {
  return message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
}
