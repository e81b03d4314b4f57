// nats-server's configuration lexer, state for state after conf/lex.go of
// github.com/nats-io/nats-server (Apache-2.0): `:`, `=` or blanks between key
// and value, `{}` maps, `[]` arrays, `#` and `//` comments, quoted and bare
// strings, booleans, numbers with size suffixes, `$VAR`, `include`. Each
// state consumes a character or emits an item, and the state stack lives in
// an array, so any input is read in linear time without recursion.
import { lexCommentStart, lexString, lexValue } from "./nats-conf-values.ts";

export type ItemType =
  | "error"
  | "eof"
  | "key"
  | "text"
  | "string"
  | "bool"
  | "integer"
  | "float"
  | "datetime"
  | "arrayStart"
  | "arrayEnd"
  | "mapStart"
  | "mapEnd"
  | "commentStart"
  | "variable"
  | "include";

export interface Item {
  type: ItemType;
  value: string;
  line: number;
}

type State = (lx: Lexer) => State | null;

/** Go's lexer takes the rune 0 for the end, so a NUL byte ends the input as it does for nats-server. */
const EOF = 0;
const NL = 10;
const CR = 13;
const cp = (c: string) => c.codePointAt(0)!;
export const [LBRACE, RBRACE, EQ, COLON, LBRACK, RBRACK, COMMA, HASH, SLASH, DQ, SQ, SEMI, LPAREN, RPAREN, DASH, DOT, BACKSLASH, DOLLAR] = [
  ..."{}=:[],#/\"';()-.\\$",
].map(cp);

/** Go's unicode.IsSpace. */
const isSpace = (r: number) => r === 32 || (r >= 9 && r <= 13) || r === 0x85 || r === 0xa0 || (r > 0xff && /\s/u.test(String.fromCodePoint(r)));
/** Go's unicode.IsDigit: any decimal digit, as lex.go tests it. */
const isDigit = (r: number) => (r >= 48 && r <= 57) || (r > 0x7f && /\p{Nd}/u.test(String.fromCodePoint(r)));
const isWhitespace = (r: number) => r === 9 || r === 32;
const isNL = (r: number) => r === NL || r === CR;
const isKeySeparator = (r: number) => r === EQ || r === COLON;
const isNumberSuffix = (r: number) => "kKmMgGtTpPeE".includes(String.fromCodePoint(r || 32));
const BOOLS = new Set(["true", "false", "on", "off", "yes", "no"]);

export class Lexer {
  start = 0;
  pos = 0;
  width = 0;
  line = 1;
  readonly stack: State[] = [];
  parts: string[] = [];
  stringState: State = lexString;
  readonly items: Item[] = [];

  constructor(readonly input: string) {}

  /** Every item up to the end or the first error. */
  run(): Item[] {
    let state: State | null = lexTop;
    while (state) state = state(this);
    const last = this.items[this.items.length - 1];
    if (last?.type !== "eof" && last?.type !== "error") this.items.push({ type: "eof", value: "", line: this.line });
    return this.items;
  }

  next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    if (this.input.charCodeAt(this.pos) === NL) this.line++;
    const r = this.input.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  backup(): void {
    this.pos -= this.width;
    if (this.pos < this.input.length && this.input.charCodeAt(this.pos) === NL) this.line--;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  ignore(): void {
    this.start = this.pos;
  }

  emit(type: ItemType): void {
    this.items.push({ type, value: this.parts.join("") + this.input.slice(this.start, this.pos), line: this.line });
    this.start = this.pos;
  }

  emitString(): void {
    this.items.push({ type: "string", value: this.parts.join("") + this.input.slice(this.start, this.pos), line: this.line });
    this.parts = [];
    this.start = this.pos;
  }

  addCurrentStringPart(offset: number): void {
    this.parts.push(this.input.slice(this.start, this.pos - offset));
    this.start = this.pos;
  }

  addStringPart(s: string): State {
    this.parts.push(s);
    this.start = this.pos;
    return this.stringState;
  }

  push(state: State): void {
    this.stack.push(state);
  }

  pop(): State | null {
    return this.stack.pop() ?? this.errorf("BUG in lexer: no states to pop.");
  }

  errorf(message: string): null {
    this.items.push({ type: "error", value: message, line: this.line });
    return null;
  }

  /** The pending text, lower-cased, for keywords and booleans. */
  pending(): string {
    return this.input.slice(this.start, this.pos).toLowerCase();
  }
}

const ch = (r: number) => (r === NL ? "\\n" : String.fromCodePoint(r));
const skip =
  (next: State): State =>
  (lx) => {
    lx.ignore();
    return next;
  };

/** A `#` or `//` comment where `r` was read; undefined when `r` starts neither. */
function comment(lx: Lexer, r: number, back: State): State | undefined {
  if (r === HASH) {
    lx.push(back);
    return lexCommentStart;
  }
  if (r !== SLASH) return undefined;
  if (lx.next() === SLASH) {
    lx.push(back);
    return lexCommentStart;
  }
  lx.backup();
  return undefined;
}

const lexTop: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexTop);
  if (r === LBRACE) {
    lx.push(lexTop);
    return skip(lexBlockStart);
  }
  const c = comment(lx, r, lexTop);
  if (c) return c;
  if (r === SLASH || r === EOF) {
    if (lx.pos > lx.start) return lx.errorf("Unexpected EOF.");
    lx.emit("eof");
    return null;
  }
  lx.backup();
  lx.push(lexTopValueEnd);
  return lexKeyStart;
};

const lexTopValueEnd: State = (lx) => {
  const r = lx.next();
  const c = comment(lx, r, lexTop);
  if (c) return c;
  if (r === SLASH || isWhitespace(r)) return lexTopValueEnd;
  if (isNL(r) || r === EOF || r === SEMI || r === COMMA || r === RBRACE) {
    lx.ignore();
    return lexTop;
  }
  return lx.errorf(`Expected a top-level value to end with a new line, comment or EOF, but got '${ch(r)}' instead.`);
};

const lexBlockStart: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexBlockStart);
  if (r === LBRACE) {
    lx.push(lexBlockEnd);
    return skip(lexBlockStart);
  }
  if (r === RBRACE) {
    lx.ignore();
    return lx.pop();
  }
  const c = comment(lx, r, lexBlockStart);
  if (c) return c;
  if (r === SLASH || r === EOF) {
    if (lx.pos > lx.start) return lx.errorf("Unexpected EOF.");
    lx.emit("eof");
    return null;
  }
  lx.backup();
  lx.push(lexBlockValueEnd);
  return lexKeyStart;
};

const lexBlockValueEnd: State = (lx) => {
  const r = lx.next();
  const c = comment(lx, r, lexBlockValueEnd);
  if (c) return c;
  if (r === SLASH || isWhitespace(r)) return lexBlockValueEnd;
  if (isNL(r) || r === SEMI || r === COMMA) {
    lx.ignore();
    return lexBlockStart;
  }
  if (r === RBRACE) {
    lx.backup();
    return lexBlockEnd;
  }
  return lx.errorf(`Expected a block-level value to end with a new line, comment or EOF, but got '${ch(r)}' instead.`);
};

const lexBlockEnd: State = (lx) => {
  const r = lx.next();
  const c = comment(lx, r, lexBlockStart);
  if (c) return c;
  if (r === SLASH || isNL(r) || isWhitespace(r)) return lexBlockEnd;
  if (r === SEMI || r === COMMA) {
    lx.ignore();
    return lexBlockStart;
  }
  if (r === RBRACE) {
    lx.ignore();
    return lx.pop();
  }
  return lx.errorf(`Expected a block-level to end with a '}', but got '${ch(r)}' instead.`);
};

const lexKeyStart: State = (lx) => {
  const r = lx.peek();
  if (isKeySeparator(r)) return lx.errorf(`Unexpected key separator '${ch(r)}'`);
  if (isSpace(r)) {
    lx.next();
    return skip(lexKeyStart);
  }
  if (r === DQ || r === SQ) {
    lx.next();
    return skip(quotedKey(r, lexKeyEnd, false));
  }
  lx.ignore();
  lx.next();
  return lexKey;
};

/** A quoted key up to its closing quote; in a map, EOF inside it is an error. */
function quotedKey(quote: number, end: State, inMap: boolean): State {
  const state: State = (lx) => {
    const r = lx.peek();
    if (r === quote) {
      lx.emit("key");
      lx.next();
      return skip(end);
    }
    if (r === EOF) {
      if (inMap) return lx.errorf(`Unexpected EOF processing ${quote === DQ ? "double " : ""}quoted map key.`);
      if (lx.pos > lx.start) return lx.errorf("Unexpected EOF.");
      lx.emit("eof");
      return null;
    }
    lx.next();
    return state;
  };
  return state;
}

/** `include` followed by blanks is a directive, not a key. */
function keyCheckKeyword(lx: Lexer, fallThrough: State, push: State | undefined): State {
  if (lx.pending() === "include") {
    lx.ignore();
    if (push) lx.push(push);
    return lexIncludeStart;
  }
  lx.emit("key");
  return fallThrough;
}

const lexIncludeStart: State = (lx) => {
  const r = lx.next();
  if (isWhitespace(r)) return skip(lexIncludeStart);
  lx.backup();
  return lexInclude;
};

function includeQuoted(quote: number): State {
  const state: State = (lx) => {
    const r = lx.next();
    if (r === quote) {
      lx.backup();
      lx.emit("include");
      lx.next();
      lx.ignore();
      return lx.pop();
    }
    if (r === EOF) return lx.errorf(`Unexpected EOF in ${quote === DQ ? "double " : ""}quoted include`);
    return state;
  };
  return state;
}

const lexIncludeString: State = (lx) => {
  const r = lx.next();
  if (isNL(r) || r === EOF || r === SEMI || r === RBRACE || isWhitespace(r)) {
    lx.backup();
    lx.emit("include");
    return lx.pop();
  }
  if (r === SQ) {
    lx.backup();
    lx.emit("include");
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  return lexIncludeString;
};

const lexInclude: State = (lx) => {
  const r = lx.next();
  if (r === SQ || r === DQ) {
    lx.ignore();
    return includeQuoted(r);
  }
  if (r === LBRACK) return lx.errorf("Expected include value but found start of an array");
  if (r === LBRACE) return lx.errorf("Expected include value but found start of a map");
  if (r === LPAREN) return lx.errorf("Expected include value but found start of a block");
  if (isDigit(r) || r === DASH) return lx.errorf("Expected include value but found start of a number");
  if (r === BACKSLASH) return lx.errorf("Expected include value but found escape sequence");
  if (isNL(r)) return lx.errorf("Expected include value but found new line");
  lx.backup();
  return lexIncludeString;
};

const lexKey: State = (lx) => {
  const r = lx.peek();
  if (isSpace(r)) return keyCheckKeyword(lx, lexKeyEnd, undefined);
  if (isKeySeparator(r) || r === EOF) {
    lx.emit("key");
    return lexKeyEnd;
  }
  lx.next();
  return lexKey;
};

const lexKeyEnd: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexKeyEnd);
  if (isKeySeparator(r)) return skip(lexValue);
  if (r === EOF) {
    lx.emit("eof");
    return null;
  }
  lx.backup();
  return lexValue;
};

export { EOF, NL, isSpace, isDigit, isWhitespace, isNL, isKeySeparator, isNumberSuffix, BOOLS, ch, skip, comment, keyCheckKeyword, quotedKey };
export type { State };
