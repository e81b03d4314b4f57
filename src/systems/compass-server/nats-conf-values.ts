// The value states of nats-server's configuration lexer (conf/lex.go of
// github.com/nats-io/nats-server): arrays, maps, strings, numbers, comments.
import {
  BACKSLASH,
  BOOLS,
  COMMA,
  comment,
  DASH,
  DOLLAR,
  DOT,
  DQ,
  EOF,
  HASH,
  isDigit,
  isKeySeparator,
  isNL,
  isNumberSuffix,
  isSpace,
  isWhitespace,
  keyCheckKeyword,
  type Lexer,
  LBRACE,
  LBRACK,
  LPAREN,
  NL,
  RPAREN,
  quotedKey,
  RBRACE,
  RBRACK,
  SEMI,
  SLASH,
  SQ,
  type State,
  skip,
  ch,
} from "./nats-conf-lex.ts";

export const lexArrayValue: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexArrayValue);
  const c = comment(lx, r, lexArrayValue);
  if (c) return c;
  if (r === SLASH || r === COMMA) return lx.errorf("Unexpected array value terminator ','.");
  if (r === RBRACK) return lexArrayEnd;
  lx.backup();
  lx.push(lexArrayValueEnd);
  return lexValue;
};

const lexArrayValueEnd: State = (lx) => {
  const r = lx.next();
  if (isWhitespace(r)) return skip(lexArrayValueEnd);
  const c = comment(lx, r, lexArrayValueEnd);
  if (c) return c;
  if (r === SLASH || r === COMMA || isNL(r)) return skip(lexArrayValue);
  if (r === RBRACK) return lexArrayEnd;
  return lx.errorf(`Expected an array value terminator "," or an array terminator "]", but got '${ch(r)}' instead.`);
};

const lexArrayEnd: State = (lx) => {
  lx.ignore();
  lx.emit("arrayEnd");
  return lx.pop();
};

export const lexMapKeyStart: State = (lx) => {
  const r = lx.peek();
  if (isKeySeparator(r)) return lx.errorf(`Unexpected key separator '${ch(r)}'.`);
  if (r === RBRACK) return lx.errorf(`Unexpected array end '${ch(r)}' processing map.`);
  if (isSpace(r)) {
    lx.next();
    return skip(lexMapKeyStart);
  }
  if (r === RBRACE) {
    lx.next();
    return skip(lexMapEnd);
  }
  if (r === HASH || r === SLASH) {
    lx.next();
    const c = comment(lx, r, lexMapKeyStart);
    if (c) return c;
  } else if (r === SQ || r === DQ) {
    lx.next();
    return skip(quotedKey(r, lexMapKeyEnd, true));
  } else if (r === EOF) return lx.errorf("Unexpected EOF processing map.");
  lx.ignore();
  lx.next();
  return lexMapKey;
};

const lexMapKey: State = (lx) => {
  const r = lx.peek();
  if (r === EOF) return lx.errorf("Unexpected EOF processing map key.");
  if (isSpace(r)) return keyCheckKeyword(lx, lexMapKeyEnd, lexMapValueEnd);
  if (isKeySeparator(r)) {
    lx.emit("key");
    return lexMapKeyEnd;
  }
  lx.next();
  return lexMapKey;
};

export const lexMapKeyEnd: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexMapKeyEnd);
  if (isKeySeparator(r)) return skip(lexMapValue);
  lx.backup();
  return lexMapValue;
};

const lexMapValue: State = (lx) => {
  const r = lx.next();
  if (isSpace(r)) return skip(lexMapValue);
  if (r === COMMA) return lx.errorf(`Unexpected map value terminator ",".`);
  if (r === RBRACE) return skip(lexMapEnd);
  lx.backup();
  lx.push(lexMapValueEnd);
  return lexValue;
};

const lexMapValueEnd: State = (lx) => {
  const r = lx.next();
  if (isWhitespace(r)) return skip(lexMapValueEnd);
  const c = comment(lx, r, lexMapValueEnd);
  if (c) return c;
  if (r === SLASH || r === SEMI || r === COMMA || isNL(r)) return skip(lexMapKeyStart);
  if (r === RBRACE) return skip(lexMapEnd);
  return lx.errorf(`Expected a map value terminator "," or a map terminator "}", but got '${ch(r)}' instead.`);
};

const lexMapEnd: State = (lx) => {
  lx.ignore();
  lx.emit("mapEnd");
  return lx.pop();
};

/** A quoted value: `'` is taken as written, `"` reads escapes. */
export function lexValueString(lx: Lexer, quote: number): State {
  if (quote === SQ) return lexQuotedString;
  lx.stringState = lexDubQuotedString;
  return lexDubQuotedString;
}

/** EOF inside a quoted value: an error unless nothing was read. */
function quotedEof(lx: Lexer): null {
  if (lx.pos > lx.start) return lx.errorf("Unexpected EOF.");
  lx.emit("eof");
  return null;
}

const lexQuotedString: State = (lx) => {
  const r = lx.next();
  if (r === SQ) {
    lx.backup();
    lx.emit("string");
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  if (r === EOF) return quotedEof(lx);
  return lexQuotedString;
};

const lexDubQuotedString: State = (lx) => {
  const r = lx.next();
  if (r === BACKSLASH) {
    lx.addCurrentStringPart(1);
    return lexStringEscape;
  }
  if (r === DQ) {
    lx.backup();
    lx.emitString();
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  if (r === EOF) return quotedEof(lx);
  return lexDubQuotedString;
};

/** A bare string; at its end, a boolean word or a `$VAR` is that instead. */
export const lexString: State = (lx) => {
  const r = lx.next();
  if (r === BACKSLASH) {
    lx.addCurrentStringPart(1);
    return lexStringEscape;
  }
  if (isNL(r) || r === EOF || r === SEMI || r === COMMA || r === RBRACK || r === RBRACE || isWhitespace(r)) {
    lx.backup();
    if (lx.parts.length > 0) lx.emitString();
    else if (BOOLS.has(lx.pending())) lx.emit("bool");
    else if (lx.start < lx.input.length && lx.input.codePointAt(lx.start) === DOLLAR) {
      lx.start += 1;
      lx.emit("variable");
    } else lx.emitString();
    return lx.pop();
  }
  if (r === SQ) {
    lx.backup();
    lx.emitString();
    lx.next();
    lx.ignore();
    return lx.pop();
  }
  return lexString;
};

const ESCAPES: Record<string, string> = { t: "\t", n: "\n", r: "\r", '"': '"', "\\": "\\" };

const lexStringEscape: State = (lx) => {
  const r = lx.next();
  if (r === 120) return lexStringBinary;
  const escaped = r === EOF ? undefined : ESCAPES[String.fromCodePoint(r)];
  if (escaped !== undefined) return lx.addStringPart(escaped);
  return lx.errorf(`Invalid escape character '${ch(r)}'. Only the following escape characters are allowed: \\xXX, \\t, \\n, \\r, \\", \\\\.`);
};

const lexStringBinary: State = (lx) => {
  if (isNL(lx.next())) return lx.errorf("Expected two hexadecimal digits after '\\x', but hit end of line");
  if (isNL(lx.next())) return lx.errorf("Expected two hexadecimal digits after '\\x', but hit end of line");
  const hex = lx.input.slice(lx.pos - 2, lx.pos);
  if (!/^[0-9a-fA-F]{2}$/.test(hex)) return lx.errorf(`Expected two hexadecimal digits after '\\x', but got '${hex}'`);
  lx.addStringPart(String.fromCharCode(Number.parseInt(hex, 16)));
  return lx.stringState;
};

export const lexNumberOrDateOrStringOrIPStart: State = (lx) => {
  const r = lx.next();
  if (!isDigit(r)) return lx.errorf(r === DOT ? "Floats must start with a digit, not '.'." : `Expected a digit but got '${ch(r)}'.`);
  return lexNumberOrDateOrStringOrIP;
};

/** Where a bare number ends. */
const endsNumber = (r: number) => isNL(r) || r === EOF || r === RBRACE || r === SEMI || r === COMMA || isWhitespace(r) || isDigit(r);

const lexNumberOrDateOrStringOrIP: State = (lx) => {
  const r = lx.next();
  if (r === DASH) {
    if (lx.pos - lx.start !== 5) return lx.errorf("All ISO8601 dates must be in full Zulu form.");
    return lexDateAfterYear;
  }
  if (isDigit(r)) return lexNumberOrDateOrStringOrIP;
  if (r === DOT) return lexFloatStart;
  if (isNumberSuffix(r)) return lexConvenientNumber;
  if (!endsNumber(r)) {
    lx.stringState = lexString;
    return lexString;
  }
  lx.backup();
  lx.emit("integer");
  return lx.pop();
};

/** A size suffix such as `1k`, `512MB` or `1GiB`. */
const lexConvenientNumber: State = (lx) => {
  const r = lx.next();
  if (r === 98 || r === 66 || r === 105 || r === 73) return lexConvenientNumber;
  lx.backup();
  if (endsNumber(r)) {
    lx.emit("integer");
    return lx.pop();
  }
  lx.stringState = lexString;
  return lexString;
};

const DATE_FORMAT = "00-00T00:00:00Z";

const lexDateAfterYear: State = (lx) => {
  for (const f of DATE_FORMAT) {
    const r = lx.next();
    if (f === "0" ? !isDigit(r) : String.fromCodePoint(r || 32) !== f || r === 0)
      return lx.errorf(
        f === "0" ? `Expected digit in ISO8601 datetime, but found '${ch(r)}' instead.` : `Expected '${f}' in ISO8601 datetime, but found '${ch(r)}' instead.`,
      );
  }
  lx.emit("datetime");
  return lx.pop();
};

export const lexNegNumberStart: State = (lx) => {
  const r = lx.next();
  if (!isDigit(r)) return lx.errorf(r === DOT ? "Floats must start with a digit, not '.'." : `Expected a digit but got '${ch(r)}'.`);
  return lexNegNumber;
};

const lexNegNumber: State = (lx) => {
  const r = lx.next();
  if (isDigit(r)) return lexNegNumber;
  if (r === DOT) return lexFloatStart;
  if (isNumberSuffix(r)) return lexConvenientNumber;
  lx.backup();
  lx.emit("integer");
  return lx.pop();
};

const lexFloatStart: State = (lx) => {
  const r = lx.next();
  if (!isDigit(r)) return lx.errorf(`Floats must have a digit after the '.', but got '${ch(r)}' instead.`);
  return lexFloat;
};

const lexFloat: State = (lx) => {
  const r = lx.next();
  if (isDigit(r)) return lexFloat;
  if (r === DOT) return lexIPAddr;
  lx.backup();
  lx.emit("float");
  return lx.pop();
};

/** An address such as 127.0.0.1:4222, first read as a float. */
const lexIPAddr: State = (lx) => {
  const r = lx.next();
  if (isDigit(r) || r === DOT || r === 58 || r === DASH) return lexIPAddr;
  lx.backup();
  lx.emit("string");
  return lx.pop();
};

export const lexCommentStart: State = (lx) => {
  lx.ignore();
  lx.emit("commentStart");
  return lexComment;
};

const lexComment: State = (lx) => {
  const r = lx.peek();
  if (isNL(r) || r === EOF) {
    lx.emit("text");
    return lx.pop();
  }
  lx.next();
  return lexComment;
};

/** A value anywhere one is expected; blanks before it, never a new line. */
export const lexValue: State = (lx) => {
  const r = lx.next();
  if (isWhitespace(r)) return skip(lexValue);
  if (r === LBRACK) {
    lx.ignore();
    lx.emit("arrayStart");
    return lexArrayValue;
  }
  if (r === LBRACE) {
    lx.ignore();
    lx.emit("mapStart");
    return lexMapKeyStart;
  }
  if (r === SQ || r === DQ) {
    lx.ignore();
    return lexValueString(lx, r);
  }
  if (r === DASH) return lexNegNumberStart;
  if (r === LPAREN) {
    lx.ignore();
    return lexBlock;
  }
  if (isDigit(r)) {
    lx.backup();
    return lexNumberOrDateOrStringOrIPStart;
  }
  if (r === DOT) return lx.errorf("Floats must start with a digit");
  if (isNL(r)) return lx.errorf("Expected value but found new line");
  lx.backup();
  lx.stringState = lexString;
  return lexString;
};

/** A `(` block: everything up to a `)` alone on its line. */
const lexBlock: State = (lx) => {
  const r = lx.next();
  if (r === RPAREN) {
    lx.backup();
    lx.backup();
    if (lx.next() !== NL) {
      lx.next();
      return lexBlock;
    }
    lx.next();
    const after = lx.next();
    if (after === NL || after === EOF) {
      lx.backup();
      lx.backup();
      lx.emit("string");
      lx.next();
      lx.ignore();
      return lx.pop();
    }
    lx.backup();
    return lexBlock;
  }
  if (r === EOF) return lx.errorf("Unexpected EOF processing block.");
  return lexBlock;
};
