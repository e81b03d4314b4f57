// PEM blocks found with indexOf in one pass; a lazy regex was quadratic.

export interface PemSplit {
  /** Each `-----BEGIN <label>----- ... -----END <label>-----` block, in order. */
  blocks: string[];
  /** The text around the blocks. */
  rest: string;
}

export function splitPem(text: string, label: string): PemSplit {
  const begin = `-----BEGIN ${label}-----`;
  const end = `-----END ${label}-----`;
  const blocks: string[] = [];
  let rest = "";
  let at = 0;
  for (;;) {
    const start = text.indexOf(begin, at);
    if (start < 0) break;
    // A block holds at least one character between its two lines.
    const stop = text.indexOf(end, start + begin.length + 1);
    if (stop < 0) break; // and so has every later BEGIN line: no END follows
    blocks.push(text.slice(start, stop + end.length));
    rest += text.slice(at, start);
    at = stop + end.length;
  }
  return { blocks, rest: rest + text.slice(at) };
}
