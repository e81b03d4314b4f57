// The README and docs pages as a markdown parser reads them: fenced code
// blocks (with the marker comment before each) and inline code spans.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Lexer, type Token, type Tokens } from "marked";
import { ROOT } from "../support/cli.ts";

/** README.md and every page under docs/, as paths from the root. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`)
    .sort();
  return ["README.md", ...docs];
}

export interface CodeBlock {
  page: string;
  /** The fence's info string (sh, yaml, ...). */
  lang: string;
  text: string;
  /** The line of the opening fence. */
  line: number;
  /** What an HTML comment right before the block says: `<!-- needs: WHAT -->` or `<!-- tested: FILE -->`. */
  marker?: { kind: "needs" | "tested"; what: string };
}

export interface CodeSpan {
  page: string;
  text: string;
  /** The raw markdown of the paragraph, list item, heading or table row the span is in. */
  context: string;
}

const MARKER = /^<!--\s*(needs|tested):\s*([\s\S]*?)\s*-->\s*$/;

/** Every fenced or indented code block of a page, in order, nested ones included. */
export function codeBlocks(page: string): CodeBlock[] {
  const source = readFileSync(join(ROOT, page), "utf8");
  const blocks: CodeBlock[] = [];
  let cursor = 0;
  const visit = (tokens: readonly Token[]) => {
    let before: Token | undefined;
    for (const token of tokens) {
      if (token.type === "code") {
        // A block nested in a list item is indented in the source: find its first line.
        const at = source.indexOf((token as Tokens.Code).text.split("\n")[0], cursor);
        if (at >= 0) cursor = at + 1;
        const marked = before?.type === "html" ? MARKER.exec((before as Tokens.HTML).text) : null;
        blocks.push({
          page,
          lang: (token as Tokens.Code).lang ?? "",
          text: (token as Tokens.Code).text,
          line: source.slice(0, Math.max(at, 0)).split("\n").length - 1,
          marker: marked ? { kind: marked[1] as "needs" | "tested", what: marked[2] } : undefined,
        });
      }
      visit(children(token));
      if (token.type !== "space") before = token;
    }
  };
  visit(Lexer.lex(source));
  return blocks;
}

/** Every inline code span of a page, with the block of text around it. */
export function codeSpans(page: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  const visit = (tokens: readonly Token[], context: string) => {
    for (const token of tokens) {
      if (token.type === "codespan") spans.push({ page, text: (token as Tokens.Codespan).text, context });
      if (token.type === "table") {
        const table = token as Tokens.Table;
        for (const row of [table.header, ...table.rows]) {
          const text = row.map((cell) => cell.text).join(" | ");
          for (const cell of row) visit(cell.tokens, text);
        }
        continue;
      }
      const own = ["paragraph", "list_item", "heading"].includes(token.type) ? token.raw : context;
      visit(children(token), own);
    }
  };
  visit(Lexer.lex(readFileSync(join(ROOT, page), "utf8")), "");
  return spans;
}

function children(token: Token): readonly Token[] {
  if (token.type === "list") return (token as Tokens.List).items;
  return "tokens" in token && Array.isArray(token.tokens) ? token.tokens : [];
}
