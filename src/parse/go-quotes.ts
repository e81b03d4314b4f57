// go-yaml folds a quoted scalar's lines whatever their indentation; the
// `yaml` package ends it at a line indented less than its block and reports
// a missing quote. This lexer reads quoted scalars the go-yaml way, so text
// kubectl applies is read (test/check/kube-yaml.test.ts compares kubectl).
import { Lexer } from "yaml";

/** The lexer's own methods this adapts (yaml 2's lexer.ts); were they renamed, the lexer is the plain one. */
interface LexerInternals {
  buffer: string;
  continueScalar(offset: number): number;
  parseQuotedScalar(): Generator<string, string>;
}

/** A document marker (--- or ...) at a line's start ends a quoted scalar in go-yaml too (an error there). */
function documentMarkerAt(buffer: string, offset: number): boolean {
  const marker = buffer.slice(offset, offset + 3);
  const after = buffer[offset + 3];
  return (marker === "---" || marker === "...") && (after === undefined || after === " " || after === "\t" || after === "\n" || after === "\r");
}

/** A `yaml` Lexer whose quoted scalars continue on any line but a document marker, as go-yaml v2's scanner reads them. */
export function goQuotesLexer(): Lexer {
  const lexer = new Lexer();
  const own = lexer as unknown as LexerInternals;
  const base = Lexer.prototype as unknown as LexerInternals;
  if (typeof base.continueScalar !== "function" || typeof base.parseQuotedScalar !== "function") return lexer;
  let quoted = false;
  own.parseQuotedScalar = function* () {
    quoted = true;
    try {
      return yield* base.parseQuotedScalar.call(this);
    } finally {
      quoted = false;
    }
  };
  own.continueScalar = function (offset) {
    if (!quoted) return base.continueScalar.call(this, offset);
    return documentMarkerAt(this.buffer, offset) ? -1 : offset;
  };
  return lexer;
}
