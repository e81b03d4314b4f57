// Expressions differing only in string literals share one parse (parsing is
// the engine's slow step). Only plain literals are split, so the grammar sees
// the same tokens; test/admission/literals.test.ts compares the trees.

/** An expression split into its template and the contents of its string literals, in order. */
export interface Split {
  template: string;
  literals: { start: number; value: string }[];
}

/** Printable ASCII but the backslash: no escape, no line break, nothing the lexer reads otherwise. */
const PLAIN = /^[\x20-\x5b\x5d-\x7e]*$/;
const IDENTIFIER_CHARACTER = /[A-Za-z0-9_]/;

/** The template and literals of `text`, or undefined where splitting it is not plainly safe. Linear in the text. */
export function splitLiterals(text: string): Split | undefined {
  if (text.includes("\\") || text.includes("//") || text.includes('"""') || text.includes("'''")) return undefined;
  const literals: Split["literals"] = [];
  let template = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const quote = text[i];
    if (quote !== '"' && quote !== "'") continue;
    // r"...", b'...' and their kin are not plain strings; a quote after a name is not CEL at all.
    if (i > 0 && IDENTIFIER_CHARACTER.test(text[i - 1])) return undefined;
    const end = text.indexOf(quote, i + 1);
    if (end < 0) return undefined;
    const value = text.slice(i + 1, end);
    if (!PLAIN.test(value)) return undefined;
    template += text.slice(from, i) + quote + quote;
    literals.push({ start: i, value });
    from = end + 1;
    i = end;
  }
  return { template: template + text.slice(from), literals };
}

/** A parsed expression (the engine's ParsedExpr: the tree, and where each node stood). */
export interface Parsed {
  expr: unknown;
  sourceInfo?: { positions?: Record<string, number> };
}

/** A parsed template: its tree, and the path to each literal's constant in it. */
export interface Template {
  expr: unknown;
  paths: (string | number)[][];
}

interface Node {
  id?: bigint;
  exprKind?: { case?: string; value?: { constantKind?: { case?: string; value?: unknown } } };
}

/** The template of a parsed expression, or undefined when its tree does not show each literal plainly (then it is parsed each time). */
export function templateOf(parsed: Parsed, split: Split): Template | undefined {
  const positions = parsed.sourceInfo?.positions ?? {};
  const constants: { at: number; value: unknown; path: (string | number)[] }[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, i]));
      return;
    }
    if (node === null || typeof node !== "object") return;
    const kind = (node as Node).exprKind;
    if (kind?.case === "constExpr" && kind.value?.constantKind?.case === "stringValue") {
      const at = positions[String((node as Node).id)];
      constants.push({ at, value: kind.value.constantKind.value, path: [...path, "exprKind", "value", "constantKind"] });
    }
    for (const [key, value] of Object.entries(node)) if (key !== "$typeName") walk(value, [...path, key]);
  };
  walk(parsed.expr, []);
  if (constants.length !== split.literals.length) return undefined;
  const paths: (string | number)[][] = [];
  for (const literal of split.literals) {
    const found = constants.filter((c) => c.at === literal.start);
    if (found.length !== 1 || found[0].value !== literal.value) return undefined;
    paths.push(found[0].path);
  }
  return { expr: copy(parsed.expr), paths };
}

/** The tree of an expression of `template`'s, copying only the nodes on the way to a literal; the rest is shared, as nothing writes to a tree. */
export function instantiate(template: Template, split: Split): unknown {
  const copied = new Set<unknown>();
  const own = (value: unknown): Record<string | number, unknown> => {
    if (copied.has(value)) return value as Record<string | number, unknown>;
    const out = Array.isArray(value) ? [...value] : { ...(value as object) };
    copied.add(out);
    return out as Record<string | number, unknown>;
  };
  const expr = own(template.expr);
  template.paths.forEach((path, i) => {
    let node = expr;
    for (const key of path) node = node[key] = own(node[key]);
    node.value = split.literals[i].value;
  });
  return expr;
}

/** A deep copy of a syntax tree (plain objects, arrays, scalars, bytes). */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value instanceof Uint8Array) return value.slice();
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = copy(item);
  return out;
}
