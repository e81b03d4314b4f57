// The nesting limit, enforced before any parser runs. Both YAML parsers
// build a document by recursion, and the `yaml` package first builds its
// whole syntax tree: 8 MiB of `[` would take gigabytes and overflow the
// native stack. So the depth a text reaches is measured first, in one pass
// over the `yaml` package's own tokens, stopping as soon as it is too deep.
import { CST, Lexer } from "yaml";

/**
 * Whether `text` nests deeper than `limit`, as far as one line shows:
 * the open flow collections (`[`, `{`), plus the block sequence entries
 * and explicit keys (`- - - x`, `? ? x`) that open one inside the other
 * on one line. That never counts more than the real depth, so no document
 * within the limit is refused here. Block collections nested by
 * indentation are left to the parsers' own depth checks: each level costs
 * one more column, so the size limit keeps them to a few thousand levels,
 * which the parsers survive.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  return mayNestDeeperThan(text, limit) && measuredDeeperThan(text, limit);
}

/**
 * A cheap bound first: a text with fewer flow openers in all, plus `-` and
 * `?` on any one line, than the limit cannot reach it. Most inputs stop
 * here, without being lexed.
 */
function mayNestDeeperThan(text: string, limit: number): boolean {
  let openers = 0;
  let onLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b)
      openers++; // [ {
    else if (c === 0x2d || c === 0x3f)
      onLine++; // - ?
    else if (c === 0x0a) onLine = 0;
    else continue;
    if (openers + onLine > limit) return true;
  }
  return false;
}

function measuredDeeperThan(text: string, limit: number): boolean {
  let flow = 0;
  let onLine = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    // A scalar's text follows its marker: `-` or `[` there is text, not structure.
    if (scalarNext) {
      scalarNext = false;
      continue;
    }
    if (token === CST.SCALAR) {
      scalarNext = true;
      continue;
    }
    switch (CST.tokenType(token)) {
      case "flow-seq-start":
      case "flow-map-start":
        flow++;
        break;
      case "flow-seq-end":
      case "flow-map-end":
        flow = Math.max(0, flow - 1);
        break;
      case "seq-item-ind":
      case "explicit-key-ind":
        if (flow === 0) onLine++;
        break;
      case "newline":
        onLine = 0;
        break;
      case "doc-mode":
      case "doc-start":
      case "flow-error-end":
        flow = 0;
        onLine = 0;
        break;
    }
    if (flow + onLine > limit) return true;
  }
  return false;
}
