// The nesting limit, checked before any parser runs: both YAML parsers recurse,
// and a deep `[[[...` would exhaust memory and the native stack.
import { CST, Lexer } from "yaml";

/** Whether `text` nests deeper than `limit` on any one line; never overcounts, and indentation nesting is bounded by the size limit instead. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  return mayNestDeeperThan(text, limit) && measuredDeeperThan(text, limit);
}

/** A cheap bound first, so most inputs are never lexed. */
export function mayNestDeeperThan(text: string, limit: number): boolean {
  return !fewMarkers(text, limit) && countedDeeperThan(text, limit);
}

/** A cheaper, never-lower bound from native indexOf scans; most rendered manifests are cleared by it alone. */
function fewMarkers(text: string, limit: number): boolean {
  let left = limit - occurrences(text, "[", limit) - occurrences(text, "{", limit);
  if (left < 0) return false;
  left -= mostOnOneLine(text, "-", left);
  return left >= 0 && mostOnOneLine(text, "?", left) <= left;
}

/** How often `char` occurs in `text`, counting no further than past `enough`. */
function occurrences(text: string, char: string, enough: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count <= enough; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** The most times `char` occurs on one line of `text`, counting no further than past `enough`. */
function mostOnOneLine(text: string, char: string, enough: number): number {
  let most = 0;
  let count = 0;
  let lineEnd = -1;
  for (let at = text.indexOf(char); at !== -1 && most <= enough; at = text.indexOf(char, at + 1)) {
    if (at > lineEnd) {
      lineEnd = text.indexOf("\n", at);
      if (lineEnd === -1) lineEnd = text.length;
      count = 0;
    }
    if (++count > most) most = count;
  }
  return most;
}

/** Each character read: the flow openers so far, plus `-` and `?` on the line (the reference test/parse/depth.test.ts compares mayNestDeeperThan with). */
export function countedDeeperThan(text: string, limit: number): boolean {
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

/** Whether one document holds more than `limit` nodes: the `yaml` package's syntax tree costs hundreds of bytes per node. */
export function hasMoreNodesThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let nodes = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    if (scalarNext) {
      scalarNext = false;
      continue;
    }
    if (token === CST.SCALAR) {
      scalarNext = true;
      if (++nodes > limit) return true;
      continue;
    }
    switch (CST.tokenType(token)) {
      case "flow-seq-start":
      case "flow-map-start":
      case "seq-item-ind":
        if (++nodes > limit) return true;
        break;
      case "doc-start":
        nodes = 0;
        break;
    }
  }
  return false;
}
