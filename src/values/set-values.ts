// `--set` as Helm reads it (strvals). No package reads this syntax, so it is
// read here, once over the argument, in linear time.
import { LIMITS } from "../parse/limits.ts";
import { isRecord } from "../k8s/access.ts";

export type Segment = string | number;

export interface Assignment {
  path: Segment[];
  value: unknown;
}

/** How a --set argument is named in messages and as the place a value came from: `--set "a.b=1"`. */
export const setLabel = (flag: string, arg: string) => `${flag} ${JSON.stringify(arg)}`;

/** A refusal of one --set argument, quoted as given (`label`, from setLabel). */
export class SetError extends Error {
  constructor(label: string, reason: string) {
    super(`${label}: ${reason}`);
  }
}

/** Helm's typedVal: true, false, null, and int64s that do not start with 0 (but 0 itself). */
function typed(text: string, asString: boolean): unknown {
  if (asString) return text;
  const lower = text.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (lower === "null") return null;
  if (text === "0") return 0;
  if (/^[+-]?[1-9]\d*$/.test(text) && text.length <= 20) {
    const n = Number(text);
    // Helm reads an int64; a number JSON cannot carry exactly would change on the way.
    if (Number.isSafeInteger(n)) return n;
  }
  return text;
}

/** Parses one --set (or --set-string) argument into its assignments. */
export function parseSet(arg: string, asString = false, flag = "--set"): Assignment[] {
  const fail = (reason: string): never => {
    throw new SetError(setLabel(flag, arg), reason);
  };
  const out: Assignment[] = [];
  let i = 0;
  while (i <= arg.length) {
    const path: Segment[] = [];
    // The key: NAME([N])* joined by dots, up to the first unescaped `=`.
    for (;;) {
      let name = "";
      const from = i;
      while (i < arg.length && !".=[,".includes(arg[i])) {
        if (arg[i] === "\\" && i + 1 < arg.length) i++;
        name += arg[i++];
      }
      if (i === from) fail(i >= arg.length || arg[i] === "," ? "expected KEY=VALUE" : `an empty key in the path at character ${i + 1}`);
      path.push(name);
      while (arg[i] === "[") {
        const close = arg.indexOf("]", i);
        const digits = close < 0 ? "" : arg.slice(i + 1, close);
        if (!/^\d{1,9}$/.test(digits)) fail(`an index is a whole number in [], at character ${i + 1}`);
        path.push(Number(digits));
        i = close + 1;
      }
      if (path.length > LIMITS.depth) fail(`the path nests more than ${LIMITS.depth} levels`);
      if (arg[i] === ".") i++;
      else if (arg[i] === "=") break;
      else if (i >= arg.length || arg[i] === ",") fail(`key ${JSON.stringify(arg.slice(from, i))} has no value (expected KEY=VALUE)`);
      else fail(`expected ., [ or = at character ${i + 1}`);
    }
    i++; // the `=`
    if (path.some((s) => s === "__proto__")) fail("__proto__ is never a values key");
    // The value: a {list} or a scalar, up to the next unescaped comma.
    let value: unknown;
    if (arg[i] === "{") {
      const items: unknown[] = [];
      i++;
      let item = "";
      for (;;) {
        if (i >= arg.length) fail("a list opened with { is not closed with }");
        const c = arg[i];
        if (c === "\\" && i + 1 < arg.length) {
          item += arg[i + 1];
          i += 2;
        } else if (c === "," || c === "}") {
          if (!(c === "}" && item === "" && items.length === 0)) items.push(typed(item, asString));
          item = "";
          i++;
          if (c === "}") break;
        } else {
          item += c;
          i++;
        }
      }
      if (i < arg.length && arg[i] !== ",") fail(`expected , after the list's }, at character ${i + 1}`);
      value = items;
    } else {
      let text = "";
      while (i < arg.length && arg[i] !== ",") {
        if (arg[i] === "\\" && i + 1 < arg.length) {
          text += arg[i + 1];
          i += 2;
        } else text += arg[i++];
      }
      value = typed(text, asString);
    }
    out.push({ path, value });
    if (i >= arg.length) break;
    i++; // the comma
    if (i >= arg.length) fail("a trailing comma");
  }
  return out;
}

/** Applies one assignment as Helm's ParseInto does; null removes a key. Returns the index on `path` of the first map or list it made (path.length - 1: none). */
export function applySet(data: Record<string, unknown>, { path, value }: Assignment, label: string): number {
  let node: Record<string, unknown> | unknown[] = data;
  let found = path.length - 1;
  for (let k = 0; k < path.length; k++) {
    const segment = path[k];
    const last = k === path.length - 1;
    const next = path[k + 1];
    if (typeof segment === "number") {
      const list = node as unknown[];
      if (segment > list.length)
        throw new SetError(label, `index ${segment} is past the end of ${describe(path.slice(0, k))} (${list.length} item${list.length === 1 ? "" : "s"})`);
      if (last) {
        // As in Helm, an item set to null stays, as null: only a key is removed.
        list[segment] = value;
        return found;
      }
      if (found > k && !holds(list[segment], next)) found = k;
      node = child(list, segment, next);
    } else {
      const map = node as Record<string, unknown>;
      if (last) {
        if (value === null) delete map[segment];
        else map[segment] = value;
        return found;
      }
      if (found > k && !holds(map[segment], next)) found = k;
      node = child(map, segment, next);
    }
  }
  return found;
}

/** Whether `value` is the list (for an index next) or map (for a key) the path goes on into. */
const holds = (value: unknown, next: Segment) => (typeof next === "number" ? Array.isArray(value) : isRecord(value));

/** The map or list at `container[key]`, made (replacing any other value) when it is not one. */
function child(container: Record<string, unknown> | unknown[], key: Segment, next: Segment): Record<string, unknown> | unknown[] {
  const record = container as Record<Segment, unknown>;
  const existing = record[key];
  if (holds(existing, next)) return existing as Record<string, unknown> | unknown[];
  const made = typeof next === "number" ? [] : {};
  record[key] = made;
  return made;
}

function describe(path: Segment[]): string {
  let out = "";
  for (const s of path) out += typeof s === "number" ? `[${s}]` : out ? `.${s}` : s;
  return out || "the values";
}
