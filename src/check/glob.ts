// Globs of `check --exclude`/`--include` and `.rigging.yaml`, matched without a
// RegExp: a star backtracks only to the last star, so time is linear in the path.
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";

/** The most a glob may hold: its characters, and the globs its braces expand to. */
export const GLOB_LIMITS = { characters: 1024, alternatives: 256 } as const;

type Token = { kind: "star" } | { kind: "any" } | { kind: "char"; code: number } | { kind: "class"; negated: boolean; ranges: number[] };
/** A path segment of a glob: `**` (any number of segments) or one segment's tokens. */
type Segment = "**" | Token[];

/** A glob the matcher cannot take, with what to write instead. */
class GlobError extends Error {}

/** A test of a relative path (`/`-separated) against `globs`, or undefined for none; `label` names their source in a refusal. */
export function globMatcher(globs: readonly string[] | undefined, label: string): ((path: string) => boolean) | undefined {
  if (!globs || globs.length === 0) return undefined;
  // A glob without `/` matches a name anywhere in the tree (`*.tpl.yaml`); one with `/`, the path from the directory walked.
  const byName: Segment[][] = [];
  const byPath: Segment[][] = [];
  for (const glob of globs) (glob.includes("/") ? byPath : byName).push(...compileGlob(glob, label));
  return (rel) => {
    const name = [rel.slice(rel.lastIndexOf("/") + 1)];
    if (byName.some((segments) => matchSegments(segments, name))) return true;
    if (byPath.length === 0) return false;
    const parts = rel.split("/");
    return byPath.some((segments) => matchSegments(segments, parts));
  };
}

/** A glob's alternatives (one per brace choice), each as segments; a refusal names `label` and the glob. */
export function compileGlob(glob: string, label: string): Segment[][] {
  try {
    if (glob.length > GLOB_LIMITS.characters) throw new GlobError(`is ${glob.length} characters long, over the limit of ${GLOB_LIMITS.characters}`);
    if (glob === "") throw new GlobError("is empty; name the files or directories to match");
    if (glob.startsWith("!") && !glob.startsWith("!("))
      throw new GlobError("starts with !, which negates nothing here; use --exclude for what to leave out and --include for what to read");
    let text = glob;
    while (text.startsWith("./")) text = text.slice(2);
    return expandBraces(text).map(segmentsOf);
  } catch (error) {
    if (!(error instanceof GlobError)) throw error;
    throw new UsageError(`${label} ${printable(JSON.stringify(glob))}: ${error.message}`);
  }
}

/** `glob` with each brace group `{a,b}` (or range `{1..3}`, `{a..c}`) expanded, at most GLOB_LIMITS.alternatives in all. */
function expandBraces(glob: string): string[] {
  const out: string[] = [];
  const pending = [glob];
  while (pending.length > 0) {
    const text = pending.pop()!;
    const group = firstGroup(text);
    if (group === undefined) {
      out.push(text);
      if (out.length > GLOB_LIMITS.alternatives) break;
      continue;
    }
    const before = text.slice(0, group.start);
    const after = text.slice(group.end + 1);
    for (let i = group.choices.length - 1; i >= 0; i--) pending.push(before + group.choices[i] + after);
    if (pending.length + out.length > GLOB_LIMITS.alternatives * 4) break;
  }
  if (out.length > GLOB_LIMITS.alternatives || pending.length > 0)
    throw new GlobError(`its braces expand to more than ${GLOB_LIMITS.alternatives} globs; write fewer choices, or several --exclude/--include`);
  return out.reverse();
}

/** The first brace group with choices: its bounds and choices; `{x}` without a comma or range stays literal. */
function firstGroup(text: string): { start: number; end: number; choices: string[] } | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(text, i) ?? i;
    else if (c === "{") {
      const group = braceGroup(text, i);
      if (group) return group;
    }
  }
  return undefined;
}

/** The group opening at `start`: choices split at its top-level commas, or a range; undefined when it has neither. */
function braceGroup(text: string, start: number): { start: number; end: number; choices: string[] } | undefined {
  const choices: string[] = [];
  let depth = 0;
  let from = start + 1;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(text, i) ?? i;
    else if (c === "{") depth++;
    else if (c === "," && depth === 0) {
      choices.push(text.slice(from, i));
      from = i + 1;
    } else if (c === "}" && depth-- === 0) {
      const body = text.slice(start + 1, i);
      if (choices.length > 0) return { start, end: i, choices: [...choices, text.slice(from, i)] };
      const range = rangeOf(body);
      return range && { start, end: i, choices: range };
    }
  }
  return undefined;
}

/** `1..3` or `a..c` as its members; undefined for any other text. */
function rangeOf(body: string): string[] | undefined {
  const numbers = /^(-?\d{1,9})\.\.(-?\d{1,9})$/.exec(body);
  const letters = /^([A-Za-z])\.\.([A-Za-z])$/.exec(body);
  if (!numbers && !letters) return undefined;
  const [from, to] = numbers ? [Number(numbers[1]), Number(numbers[2])] : [letters![1].charCodeAt(0), letters![2].charCodeAt(0)];
  if (Math.abs(to - from) >= GLOB_LIMITS.alternatives)
    throw new GlobError(`the range {${body}} names more than ${GLOB_LIMITS.alternatives} choices; write a class such as [0-9] instead`);
  const step = to >= from ? 1 : -1;
  const members: string[] = [];
  for (let n = from; n !== to + step; n += step) members.push(numbers ? String(n) : String.fromCharCode(n));
  return members;
}

/** The index of the `]` closing a class opened at `start`, or undefined when `[` is a literal (no `]` before `/` or the end). */
function classEnd(text: string, start: number): number | undefined {
  let i = start + 1;
  if (text[i] === "!" || text[i] === "^") i++;
  if (text[i] === "]") i++;
  for (; i < text.length && text[i] !== "/"; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "]") return i;
  }
  return undefined;
}

/** One brace-free glob as path segments, runs of `**` made one. */
function segmentsOf(glob: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of glob.split("/")) {
    if (part === "**") {
      if (segments.at(-1) !== "**") segments.push("**");
    } else segments.push(tokensOf(part));
  }
  return segments;
}

/** One segment's tokens: `*` (and `**` inside a name), `?`, classes, escapes and literal characters. */
function tokensOf(part: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if ("@!+*?".includes(c) && part[i + 1] === "(")
      throw new GlobError(`uses ${c}(...), an extended glob; write the choices in braces, such as {a,b}, instead`);
    if (c === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") tokens.push({ kind: "any" });
    else if (c === "\\" && i + 1 < part.length) tokens.push({ kind: "char", code: part.charCodeAt(++i) });
    else if (c === "[" && classEnd(part, i) !== undefined) {
      const end = classEnd(part, i)!;
      tokens.push(classOf(part.slice(i + 1, end)));
      i = end;
    } else tokens.push({ kind: "char", code: part.charCodeAt(i) });
  }
  return tokens;
}

/** The class between `[` and `]`: `!` or `^` negates, `a-z` is a range, `\` escapes. */
function classOf(body: string): Token {
  if (body.includes("[:")) throw new GlobError("uses a POSIX class such as [[:alpha:]]; write the characters, such as [a-zA-Z], instead");
  let i = 0;
  const negated = body[0] === "!" || body[0] === "^";
  if (negated) i++;
  const ranges: number[] = [];
  while (i < body.length) {
    let low = body.charCodeAt(i);
    if (body[i] === "\\" && i + 1 < body.length) low = body.charCodeAt(++i);
    i++;
    let high = low;
    if (body[i] === "-" && i + 1 < body.length) {
      high = body.charCodeAt(i + 1);
      if (body[i + 1] === "\\" && i + 2 < body.length) high = body.charCodeAt(++i + 1);
      i += 2;
    }
    ranges.push(low, high);
  }
  return { kind: "class", negated, ranges };
}

function matchesOne(token: Token, code: number): boolean {
  if (token.kind === "any") return true;
  if (token.kind === "char") return token.code === code;
  if (token.kind === "star") return false;
  let found = false;
  for (let i = 0; i < token.ranges.length && !found; i += 2) found = code >= token.ranges[i] && code <= token.ranges[i + 1];
  return found !== token.negated;
}

/**
 * Whether `items` match `pattern`, where `isStar` marks a pattern item that
 * matches any run of items and `one` tests one item against one pattern
 * item. Every other item matches exactly one, so on a mismatch only the last
 * star takes one more item: each (star, start) pair is tried once.
 */
function starMatch<P, I>(pattern: readonly P[], items: ArrayLike<I>, isStar: (p: P) => boolean, one: (p: P, item: I) => boolean): boolean {
  let p = 0;
  let i = 0;
  let star = -1;
  let resume = 0;
  while (i < items.length) {
    if (p < pattern.length && isStar(pattern[p])) {
      star = p++;
      resume = i;
    } else if (p < pattern.length && one(pattern[p], items[i])) {
      p++;
      i++;
    } else if (star >= 0) {
      p = star + 1;
      i = ++resume;
    } else return false;
  }
  while (p < pattern.length && isStar(pattern[p])) p++;
  return p === pattern.length;
}

/** Whether a path's segments match a glob's segments. */
function matchSegments(segments: readonly Segment[], parts: readonly string[]): boolean {
  return starMatch(
    segments,
    parts,
    (s) => s === "**",
    (s, part) => s !== "**" && matchSegment(s, part),
  );
}

/** Whether one name matches one segment's tokens, as starMatch over its characters; `*` never matches an empty name (as picomatch). */
function matchSegment(tokens: readonly Token[], name: string): boolean {
  if (name === "" && tokens.length > 0) return false;
  return starMatch(
    tokens,
    name,
    (t) => t.kind === "star",
    (t, ch) => matchesOne(t, ch.charCodeAt(0)),
  );
}
