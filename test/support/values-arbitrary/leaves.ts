// Leaf values for the values arbitrary: what a node of the JSON Schema allows
// (patterns, ranges, enums, defaults), and what the bundled examples hold
// under the same name, or in the same shape.
import fc from "fast-check";
import { branchesOf, isObject, type Schema } from "./schema-paths.ts";

/** Leaf values and record keys of the examples, by the name of the property that holds them: values valid somewhere, to try elsewhere. */
export class Pool {
  readonly values = new Map<string, unknown[]>();
  readonly keys = new Map<string, string[]>();
  private shapes?: string[][];

  /** Every key of the examples' objects. */
  allKeys(): string[] {
    return [...new Set([...this.keys.values()].flat())];
  }

  /** Every string of the examples, under whichever name, by shape (URLs by scheme, paths, the rest), each shape as likely. */
  strings(): string[][] {
    if (this.shapes) return this.shapes;
    const byShape = new Map<string, Set<string>>();
    for (const value of [...this.values.values()].flat()) {
      if (typeof value !== "string") continue;
      const shape = /^[a-z][a-z0-9+.-]*:\/\//.exec(value)?.[0] ?? (value.startsWith("/") ? "/" : "");
      byShape.set(shape, (byShape.get(shape) ?? new Set()).add(value));
    }
    this.shapes = [...byShape.values()].map((set) => [...set]);
    return this.shapes;
  }

  add(value: unknown, name: string): void {
    if (Array.isArray(value)) for (const item of value) this.add(item, name);
    else if (isObject(value)) {
      this.keys.set(name, [...new Set([...(this.keys.get(name) ?? []), ...Object.keys(value)])]);
      for (const [key, child] of Object.entries(value)) {
        this.add(child, key);
        // As a record's entry, too: a value under any key of `name`.
        if (typeof child !== "object") this.add(child, `${name}.*`);
      }
    } else if (!(this.values.get(name) ?? []).includes(value)) this.values.set(name, [...(this.values.get(name) ?? []), value]);
  }
}

const byPattern = new Map<string, fc.Arbitrary<string>>();

/** A string matching `pattern` (built once: fast-check's is slow to build); it draws no lookaround, so one is left out of the draw and checked after it. */
function matching(pattern: string): fc.Arbitrary<string> {
  let arbitrary = byPattern.get(pattern);
  if (arbitrary) return arbitrary;
  const full = new RegExp(pattern);
  try {
    arbitrary = fc.stringMatching(full);
  } catch {
    const bare = pattern.replace(/\(\?<?[!=](?:[^()]|\([^()]*\))*\)/g, "");
    arbitrary = fc.stringMatching(new RegExp(bare)).filter((s) => full.test(s));
  }
  byPattern.set(pattern, arbitrary);
  return arbitrary;
}

/** Small edits of a valid string: a character of its own in another place, one doubled, one dropped. */
function edits(base: string): fc.Arbitrary<string> {
  const last = base.length - 1;
  return fc.tuple(fc.nat(last), fc.nat(last), fc.nat(2)).map(([i, j, op]) => {
    if (op === 0) return base.slice(0, i) + base[j] + base.slice(i + 1);
    if (op === 1) return base.slice(0, i) + base[i] + base.slice(i);
    return base.slice(0, i) + base.slice(i + 1);
  });
}

function numbers(b: Schema, base: unknown): fc.Arbitrary<number> {
  const integer = b.type === "integer";
  const min = Math.max(b.minimum ?? (b.exclusiveMinimum ?? -1e6) + (integer ? 1 : 0), -Number.MAX_SAFE_INTEGER);
  const max = Math.min(b.maximum ?? (b.exclusiveMaximum ?? min + 2e6) - (integer ? 1 : 0), Number.MAX_SAFE_INTEGER);
  const inRange = (n: number) => n >= min && n <= max && (b.exclusiveMinimum === undefined || n > b.exclusiveMinimum);
  const near = typeof base === "number" ? [fc.integer({ min: -10, max: 10 }).map((d) => base + d)] : [];
  const range = integer
    ? fc.bigInt({ min: BigInt(Math.ceil(min)), max: BigInt(Math.floor(max)) }).map(Number)
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof(range, fc.constantFrom(min, max), ...near).filter(inRange);
}

export function strings(b: Schema, name: string, base: unknown, pool: Pool): fc.Arbitrary<string> {
  const minLength = b.minLength ?? 0;
  const maxLength = b.maxLength ?? Number.MAX_SAFE_INTEGER;
  const pattern = b.pattern === undefined ? undefined : new RegExp(b.pattern);
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength && (!pattern || pattern.test(s));
  const only = (values: readonly unknown[]) => values.filter((v): v is string => typeof v === "string" && fits(v));
  const weighted = (weight: number, list: string[]) => (list.length > 0 ? [{ arbitrary: fc.constantFrom(...list), weight }] : []);
  return fc
    .oneof(
      { arbitrary: pattern ? matching(b.pattern) : fc.string({ minLength, maxLength: Math.max(minLength, Math.min(maxLength, 24)) }), weight: pattern ? 4 : 1 },
      // The examples' values under this name, then any of their strings by shape (a URL where another key holds one).
      ...weighted(6, only(pool.values.get(name) ?? [])),
      ...pool.strings().flatMap((list) => weighted(2, only(list))),
      ...(typeof base === "string" && base.length > 0 ? [{ arbitrary: edits(base), weight: 2 }] : []),
    )
    .filter(fits);
}

/** A value for a node that holds no object or array: any of its members'. */
export function leaves(s: Schema, name: string, base: unknown, pool: Pool): fc.Arbitrary<unknown> {
  // A default is a value the schema names (written out, the same file another way); a boolean has both already.
  const named = [s, ...branchesOf(s)].filter((b) => "default" in b && typeof b.default !== "boolean").map((b) => fc.constant(b.default));
  const members = branchesOf(s).map((b): fc.Arbitrary<unknown> => {
    if ("const" in b) return fc.constant(b.const);
    if (Array.isArray(b.enum)) return fc.constantFrom(...b.enum);
    if (b.type === "boolean") return fc.boolean();
    if (b.type === "integer" || b.type === "number") return numbers(b, base);
    if (b.type === "null") return fc.constant(null);
    if (b.type === "object") return fc.constant({});
    if (b.type === "array") return fc.constant([]);
    return strings(b, name, base, pool);
  });
  return fc.oneof(...members, ...named);
}
