// nats-server's configuration read by its own grammar: the parser after
// conf/parse.go of github.com/nats-io/nats-server over the lexer after its
// conf/lex.go. Keys keep their case (nats-server compares them lower-cased),
// a later key wins, `$VAR` takes the nearest enclosing definition, and an
// `include` is named, never read from disk here.
import { Lexer } from "./nats-conf-lex.ts";

export type ConfValue =
  | { type: "string"; value: string; line: number }
  | { type: "bool"; value: boolean; line: number }
  | { type: "integer"; value: number; line: number }
  | { type: "float"; value: number; line: number }
  | { type: "datetime"; value: string; line: number }
  /** `$NAME` that no enclosing map defines: nats-server takes it from its environment. */
  | { type: "env"; name: string; line: number }
  | ConfMap
  | { type: "array"; items: ConfValue[]; line: number };

export interface ConfEntry {
  key: string;
  value: ConfValue;
  /** Order of setting, so that an include merged later loses to keys written after it. */
  seq: number;
}

export interface ConfMap {
  type: "map";
  entries: Map<string, ConfEntry>;
  line: number;
}

export interface ConfInclude {
  path: string;
  line: number;
  /** The map the included file's keys go into, at the point of the directive. */
  into: ConfMap;
  seq: number;
}

export interface NatsConf {
  root: ConfMap;
  includes: ConfInclude[];
  /** Each `$NAME` read from the environment, which must then hold it. */
  env: { name: string; line: number }[];
  /** nats-server's refusal, as it words it; the tree holds what was read before. */
  error?: string;
}

const SUFFIX: Record<string, number> = { "": 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12, p: 1e15, e: 1e18 };
const INT64_MAX = 2n ** 63n - 1n;

/** A size with nats-server's suffixes: `k` is 1000, `kb`, `ki` and `kib` are 1024, up to `e`. */
function integer(text: string): number | string | undefined {
  let digits = 0;
  while (digits < text.length && (/\d/.test(text[digits]) || text[digits] === "-")) digits++;
  const number = text.slice(0, digits);
  if (!/^-?\d+$/.test(number)) return `expected integer, but got '${text}'`;
  const big = BigInt(number);
  if (big > INT64_MAX || big < -INT64_MAX - 1n) return `integer '${text}' is out of the range`;
  const suffix = text.slice(digits).trim().toLowerCase();
  const decimal = SUFFIX[suffix];
  if (decimal !== undefined) return Number(big) * decimal;
  const binary = /^([kmgtpe])(b|i|ib)$/.exec(suffix);
  if (!binary) return undefined;
  return Number(big) * 1024 ** ("kmgtpe".indexOf(binary[1]) + 1);
}

/** Reads a nats-server configuration; never throws, linear in the text. */
export function readNatsConf(text: string): NatsConf {
  return new Parser().parse(new Lexer(text).run());
}

class Parser {
  readonly root: ConfMap = { type: "map", entries: new Map(), line: 1 };
  readonly ctxs: (ConfMap | { type: "array"; items: ConfValue[]; line: number })[] = [this.root];
  readonly keys: string[] = [];
  readonly includes: ConfInclude[] = [];
  readonly env: { name: string; line: number }[] = [];
  /** For each name, the depths of the open maps that define it: the nearest is last. */
  readonly defined = new Map<string, number[]>();
  seq = 0;

  get ctx() {
    return this.ctxs[this.ctxs.length - 1];
  }

  parse(items: readonly { type: string; value: string; line: number }[]): NatsConf {
    let previous: { type: string; value: string } | undefined;
    for (const item of items) {
      if (item.type === "eof") {
        // A closing brace may end the text, for JSON-like files.
        if (previous?.type === "key" && previous.value !== "}") return this.done(`config is invalid (:${item.line})`);
        break;
      }
      previous = item;
      const error = this.process(item);
      if (error) return this.done(error);
    }
    return this.done();
  }

  done(error?: string): NatsConf {
    return { root: this.root, includes: this.includes, env: this.env, ...(error ? { error } : {}) };
  }

  process(item: { type: string; value: string; line: number }): string | undefined {
    const { value, line } = item;
    switch (item.type) {
      case "error":
        return `Parse error on line ${line}: '${value}'`;
      case "key":
        this.keys.push(value);
        return undefined;
      case "mapStart":
        this.ctxs.push({ type: "map", entries: new Map(), line });
        return undefined;
      case "arrayStart":
        this.ctxs.push({ type: "array", items: [], line });
        return undefined;
      case "mapEnd":
      case "arrayEnd":
        return this.ctxs.length < 2 ? "nats-server fails on it: a closing bracket with nothing open" : this.set(this.close());
      case "string":
        return this.set({ type: "string", value, line });
      case "datetime":
        return this.set({ type: "datetime", value, line });
      case "bool":
        return this.set({ type: "bool", value: ["true", "yes", "on"].includes(value.toLowerCase()), line });
      case "float": {
        const number = Number(value);
        return Number.isFinite(number) ? this.set({ type: "float", value: number, line }) : `float '${value}' is out of the range`;
      }
      case "integer": {
        const number = integer(value);
        if (typeof number === "string") return number;
        // An unknown suffix sets nothing, as in parse.go.
        return number === undefined ? undefined : this.set({ type: "integer", value: number, line });
      }
      case "variable":
        return this.set(this.variable(value, line));
      case "include":
        if (this.ctx.type === "map") this.includes.push({ path: value, line, into: this.ctx, seq: this.seq++ });
        return undefined;
      default:
        return undefined;
    }
  }

  close(): ConfValue {
    const closed = this.ctxs.pop()!;
    if (closed.type === "map") for (const key of closed.entries.keys()) this.defined.get(key)?.pop();
    return closed;
  }

  variable(name: string, line: number): ConfValue {
    // A bcrypt hash written bare is a string, not a variable.
    if (name.startsWith("2a$")) return { type: "string", value: `$${name}`, line };
    const depths = this.defined.get(name);
    const depth = depths?.[depths.length - 1];
    const map = depth === undefined ? undefined : this.ctxs[depth];
    const found = map?.type === "map" ? map.entries.get(name)?.value : undefined;
    if (found) return found;
    this.env.push({ name, line });
    return { type: "env", name, line };
  }

  set(value: ConfValue): string | undefined {
    const ctx = this.ctx;
    if (ctx.type === "array") {
      ctx.items.push(value);
      return undefined;
    }
    const key = this.keys.pop();
    if (key === undefined) return "nats-server fails on it: a value without a key";
    if (!ctx.entries.has(key)) {
      const depths = this.defined.get(key) ?? [];
      depths.push(this.ctxs.length - 1);
      this.defined.set(key, depths);
    }
    ctx.entries.set(key, { key, value, seq: this.seq++ });
    return undefined;
  }
}

/** The entry of `map` under any of `names`, compared lower-cased as nats-server does; the last set wins. */
export function confGet(map: ConfMap | undefined, ...names: string[]): ConfEntry | undefined {
  if (!map) return undefined;
  let found: ConfEntry | undefined;
  for (const entry of map.entries.values()) {
    if (names.includes(entry.key.toLowerCase()) && (!found || entry.seq > found.seq)) found = entry;
  }
  return found;
}

/** Merges an included file's keys where its directive stood: keys written after the directive still win. */
export function mergeInclude(include: ConfInclude, included: ConfMap): void {
  for (const [key, entry] of included.entries) {
    const existing = include.into.entries.get(key);
    if (!existing || existing.seq < include.seq) include.into.entries.set(key, { key, value: entry.value, seq: include.seq });
  }
}

/** A value's text where nats-server wants a string; undefined for maps, arrays and numbers. */
export function confString(value: ConfValue | undefined): string | undefined {
  return value?.type === "string" || value?.type === "datetime" ? value.value : undefined;
}
