// Property-test values of any values kind, derived from its JSON Schema: the
// bundled example with its leaves varied as the schema describes them (enums,
// patterns, integer ranges, booleans, optional keys present or absent), each
// change kept only where the values reader accepts the result (the kind's own
// schema, and G-04's scan for inline secrets). A field added to a schema is
// generated without an edit here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import Ajv, { type ValidateFunction } from "ajv";
import fc from "fast-check";
import { z } from "zod";
import { parseValuesFile } from "../../src/parse/source.ts";
import { findInlineSecrets } from "../../src/values/inline-secrets.ts";
import { valuesKinds } from "../../src/systems/registry.ts";
import { leaves, Pool, strings } from "./values-arbitrary/leaves.ts";
import {
  branchesOf,
  declares,
  ENTRIES,
  forbidden,
  hasProperties,
  ITEMS,
  isObject,
  isRecord,
  isSchema,
  leafPathsOf,
  nearest,
  pointedAt,
  type Schema,
  type SchemaPath,
  schemaAt,
  schemaPathOf,
  single,
} from "./values-arbitrary/schema-paths.ts";

type Values = Record<string, unknown>;

export type { Schema, SchemaPath } from "./values-arbitrary/schema-paths.ts";
export { ENTRIES, ITEMS, leafPathsOf } from "./values-arbitrary/schema-paths.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** What the arbitrary reads of a values kind (a registry entry, or one a test builds). */
export interface ArbitraryKind {
  kind: string;
  schema(): z.ZodType;
  /** The bundled example, relative to the package root. */
  example: string;
}

/** The JSON Schema of what a person writes for the kind (as `rigging schema`, without the KRM resource keys, which render sets aside before the schema). */
export function inputSchemaOf(kind: ArbitraryKind): Schema {
  return z.toJSONSchema(kind.schema(), { io: "input", unrepresentable: "any", target: "draft-07" }) as Schema;
}

const load = (file: string): Values => parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file).data as Values;
export const loadExample = (kind: ArbitraryKind): Values => load(kind.example);

/** The leaves of every bundled example (examples/), and of the seeds a test hands in. */
function poolOf(seeds: readonly Values[]): Pool {
  const pool = new Pool();
  for (const file of readdirSync(join(ROOT, "examples")).sort()) pool.add(load(join("examples", file)), "");
  for (const seed of seeds) pool.add(seed, "");
  return pool;
}

const newAjv = () =>
  // Patterns as zod matches them (no u flag); zod's formats are its patterns.
  new Ajv({ strict: false, validateFormats: false, allErrors: false, unicodeRegExp: false });

/** Sets an own property, even one named `__proto__`, as a parser does. */
function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The draws of one generated value: every choice comes from fast-check's random source, so a seed replays it. */
class Draw {
  constructor(
    private readonly random: fc.Random,
    private readonly bias: number | undefined,
    private readonly pool: Pool,
    private readonly fits: (s: Schema, value: unknown) => boolean,
  ) {}

  /** 0 to `max`. */
  nat(max: number): number {
    return this.random.nextInt(0, max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.nat(items.length - 1)];
  }

  /** One time in `n`. */
  chance(n: number): boolean {
    return this.nat(n - 1) === 0;
  }

  of<T>(arbitrary: fc.Arbitrary<T>): T {
    return arbitrary.generate(this.random, this.bias).value;
  }

  /** A leaf value, other than `base` where a few draws find one. */
  leaf(s: Schema, name: string, base: unknown): unknown {
    const arbitrary = leaves(s, name, base, this.pool);
    let value = this.of(arbitrary);
    for (let tries = 3; tries > 0 && isDeepStrictEqual(value, base); tries--) value = this.of(arbitrary);
    return value;
  }

  /** A new record key: one the examples use under this name, or one the schema's propertyNames describes. */
  key(record: Schema, name: string): string {
    const names: Schema = isSchema(record.propertyNames) ? record.propertyNames : { type: "string" };
    const known = [this.pool.keys.get(name) ?? [], this.pool.allKeys()].map((keys) => keys.filter((k) => k.length > 0)).filter((keys) => keys.length > 0);
    const drawn = strings({ ...names, minLength: Math.max(1, names.minLength ?? 0) }, "", undefined, new Pool());
    return this.of(fc.oneof(drawn, ...known.map((keys) => fc.constantFrom(...keys))).filter((k) => k !== "__proto__"));
  }

  /** A whole value for `s`, keeping what of `base` still fits and drawing the rest. */
  fresh(s: Schema, name: string, base: unknown): unknown {
    const members = branchesOf(s);
    const fitting = members.filter((b) => base !== undefined && this.fits(b, base));
    const b = fitting.length > 0 && !this.chance(3) ? this.pick(fitting) : this.pick(members);
    if (hasProperties(b)) {
      const out: Values = {};
      const old = isObject(base) ? base : {};
      for (const [key, sub] of Object.entries(b.properties as Record<string, Schema>)) {
        if (forbidden(sub)) continue;
        const present = (b.required ?? []).includes(key) || (key in old ? !this.chance(4) : this.chance(2));
        if (present) setOwn(out, key, this.fresh(sub, key, old[key]));
      }
      return out;
    }
    if (isSchema(b.items)) {
      const old = Array.isArray(base) ? base : [];
      const min = b.minItems ?? 0;
      const length = Math.min(min + this.nat(2), b.maxItems ?? Number.MAX_SAFE_INTEGER);
      return Array.from({ length }, (_, i) => this.fresh(b.items, name, old[i]));
    }
    if (isRecord(b)) {
      const out: Values = isObject(base) && !this.chance(2) ? { ...base } : {};
      for (let n = this.nat(2); n > 0; n--) setOwn(out, this.key(b, name), this.fresh(b.additionalProperties, `${name}.*`, undefined));
      return out;
    }
    return base !== undefined && this.fits(b, base) && !this.chance(3) ? base : this.leaf(b, name, base);
  }

  /** Changes `root` at one leaf path: the leaf drawn anew (what is missing on the way drawn whole), or an optional key on the way removed. */
  change(root: Values, schema: Schema, path: SchemaPath): void {
    this.changeAt({ root }, schema, path);
  }

  private changeAt(holder: Values, schema: Schema, path: SchemaPath): void {
    let parent: Values | unknown[] = holder;
    let at: string | number = "root";
    let node = schema;
    let name = "";
    for (const [i, step] of path.entries()) {
      const members = branchesOf(node);
      const options = members.filter((b) => declares(b, step));
      // No union: the value is of the node (the schema accepted it) if it is a container of the kind the step needs.
      const fits = (b: Schema, v: unknown) => (members.length === 1 ? (step === ITEMS ? Array.isArray(v) : isObject(v)) : this.fits(b, v));
      // A value of another member of a union is drawn anew as one that has the step.
      if (!options.some((b) => fits(b, (parent as Values)[at]))) setOwn(parent, at, this.fresh({ anyOf: options }, name, (parent as Values)[at]));
      const value: unknown = (parent as Values)[at];
      const fitting: Schema[] = options.filter((b) => fits(b, value));
      if (fitting.length === 0) return;
      const b: Schema = this.pick(fitting);
      if (step === ITEMS) {
        const list = value as unknown[];
        if (this.chance(8)) {
          setOwn(parent, at, this.fresh(b, name, value));
          return;
        }
        if (list.length === 0) list.push(this.fresh(b.items, name, undefined));
        [parent, at, node] = [list, this.nat(list.length - 1), b.items];
        continue;
      }
      const object = value as Values;
      if (step === ENTRIES) {
        const keys = Object.keys(object);
        if (keys.length > 0 && this.chance(8)) {
          delete object[this.pick(keys)];
          return;
        }
        const key = keys.length === 0 || this.chance(4) ? this.key(b, name) : this.pick(keys);
        if (!Object.hasOwn(object, key)) setOwn(object, key, this.fresh(b.additionalProperties, `${name}.*`, undefined));
        [parent, at, node, name] = [object, key, b.additionalProperties, `${name}.*`];
        continue;
      }
      const sub = b.properties[step] as Schema;
      // The last key is left out one time in four, or always where it can hold one value only (a const).
      const last = i === path.length - 1;
      if (Object.hasOwn(object, step) && !(b.required ?? []).includes(step) && ((last && single(sub)) || this.chance(last ? 4 : 12))) {
        delete object[step];
        return;
      }
      if (!Object.hasOwn(object, step)) setOwn(object, step, this.fresh(sub, step, undefined));
      [parent, at, node, name] = [object, step, sub, step];
    }
    setOwn(parent, at, this.leaf(node, name, (parent as Values)[at]));
  }
}

/** How many changes may follow a refused one to mend it. */
const FOLLOW_UPS = 4;

export interface ValuesArbitraryOptions {
  /** At most so many changes of the example per value (each kept only if the schema accepts it). */
  changes?: number;
  /** Top-level keys never changed: `kind`, which chooses the schema rather than being a value. */
  fixed?: readonly string[];
  /** Values no example shows (a PEM certificate), offered by the name of the key that holds them. */
  seeds?: readonly Values[];
}

/**
 * Values of `kind` its schema accepts: its bundled example with one to
 * `changes` leaves drawn anew from the kind's JSON Schema.
 */
export function valuesArbitrary(kind: ArbitraryKind, options: ValuesArbitraryOptions = {}): fc.Arbitrary<Values> {
  const zod = kind.schema();
  const schema = inputSchemaOf(kind);
  const example = loadExample(kind);
  if (refusals(zod, example).length > 0) throw new Error(`${kind.example}: the example of ${kind.kind} is not valid values`);
  const pool = poolOf([loadExample(kind), ...(options.seeds ?? [])]);
  const fixed = new Set(options.fixed ?? ["kind"]);
  const paths = leafPathsOf(schema).filter((p) => p.length > 0 && !fixed.has(p[0]));
  const switches = paths.filter((p) => branchesOf(schemaAt(schema, p)).every((b) => b.type === "boolean"));
  const ajv = newAjv();
  const compiled = new WeakMap<Schema, ValidateFunction>();
  const fits = (s: Schema, value: unknown) => {
    if (!compiled.has(s)) compiled.set(s, ajv.compile(s));
    return compiled.get(s)!(value) === true;
  };
  const context: Context = { zod, schema, paths, switches };
  return new Drawn((random, bias) => {
    const draw = new Draw(random, bias, pool, fits);
    return drawValues(draw, structuredClone(example), 1 + draw.nat((options.changes ?? 8) - 1), context);
  });
}

/** An arbitrary of values drawn by a function of fast-check's random source; a failing case is replayed by its seed, not shrunk. */
class Drawn extends fc.Arbitrary<Values> {
  constructor(private readonly drawValues: (random: fc.Random, bias: number | undefined) => Values) {
    super();
  }

  generate(random: fc.Random, bias: number | undefined): fc.Value<Values> {
    return new fc.Value(this.drawValues(random, bias), undefined);
  }

  canShrinkWithoutContext(_value: unknown): _value is Values {
    return false;
  }

  shrink(): fc.Stream<fc.Value<Values>> {
    return fc.Stream.nil();
  }
}

interface Context {
  zod: z.ZodType;
  schema: Schema;
  /** The leaf paths a change is drawn at. */
  paths: readonly SchemaPath[];
  /** The boolean ones: what a refusal may want switched (designed.P9 wants serverName). */
  switches: readonly SchemaPath[];
}

/** A value the schema refused, with where its refusals point; so many follow-ups left to mend it. */
interface Refused {
  values: Values;
  issues: readonly (readonly PropertyKey[])[];
  /** The leaf paths this draw changed: a refusal there is mended by drawing again, not by removing. */
  touched: readonly SchemaPath[];
  left: number;
}

/**
 * `changes` changes of `values`, each kept if the schema accepts the result. A
 * refused one is followed by a few that try to mend it where the refusals point
 * (a reviewer App wants its installation, key and scope grants), else dropped.
 */
function drawValues(draw: Draw, values: Values, changes: number, context: Context): Values {
  let refused: Refused | undefined;
  let left = changes;
  // A change and the follow-ups that try to mend it count as one: the last change too gets its tries.
  while (left > 0 || refused) {
    if (!refused) left--;
    const next = structuredClone(refused?.values ?? values);
    const touched = refused ? mend(draw, next, refused, context) : [draw.pick(context.paths)];
    if (!refused) draw.change(next, context.schema, touched[0]);
    const issues = refusals(context.zod, next);
    if (issues.length === 0) [values, refused] = [next, undefined];
    else if (refused?.left === 0) refused = undefined;
    else {
      refused = { values: next, issues, touched: [...(refused?.touched ?? []), ...touched], left: (refused?.left ?? FOLLOW_UPS) - 1 };
    }
  }
  return values;
}

/** Where the values reader refuses `values` (every values file: G-04's inline secrets, then the kind's schema); none when it accepts them. */
export function refusals(zod: z.ZodType, values: Values): (readonly PropertyKey[])[] {
  const result = zod.safeParse(values);
  return [...findInlineSecrets(values).map((found) => found.path), ...(result.success ? [] : result.error.issues.map((issue) => issue.path))];
}

/**
 * One try at mending a refusal, at each place it points: what is there removed
 * (unless this draw put it there) or drawn anew, or a boolean near it switched.
 * Returns the leaf paths it changed.
 */
function mend(draw: Draw, values: Values, refused: Refused, context: Context): SchemaPath[] {
  const touched: SchemaPath[] = [];
  for (const issue of refused.issues.slice(0, 3)) {
    const under = pointedAt(context.schema, [issue], context.paths);
    const ours = under.some((p) => refused.touched.some((t) => t.join("\0") === p.join("\0")));
    if (!ours && optionalAt(context.schema, issue) && valueAt(values, issue) !== undefined && draw.chance(2)) removeAt(values, issue);
    else {
      const near = nearest(context.switches, under);
      // Where our own change is refused again and again, a switch near it is the likelier mend (serverName wants designed.P9).
      const at = under.length > 0 && !draw.chance(ours ? 2 : 4) ? under : near.length > 0 ? near : context.paths;
      touched.push(draw.pick(at));
      draw.change(values, context.schema, touched.at(-1)!);
    }
  }
  return touched;
}

/** Whether the key a path ends in may be left out (an array's item or a record's entry always may). */
function optionalAt(schema: Schema, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  const last = path.at(-1)!;
  if (typeof last !== "string") return true;
  return branchesOf(schemaAt(schema, schemaPathOf(schema, path.slice(0, -1)))).some((b) => declares(b, last) && !(b.required ?? []).includes(last));
}

function valueAt(root: Values, path: readonly PropertyKey[]): unknown {
  let node: unknown = root;
  for (const key of path) node = isObject(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined;
  return node;
}

/** Removes the member at a path of a value (a zod issue's path), if it is there. */
function removeAt(root: Values, path: readonly PropertyKey[]): void {
  const node = valueAt(root, path.slice(0, -1));
  const last = path.at(-1);
  if (Array.isArray(node) && typeof last === "number") node.splice(last, 1);
  else if (isObject(node) && typeof last === "string") delete node[last];
}

/** The arbitrary of a registered kind, by its `kind:`. */
export function valuesOfKind(kind: string, options?: ValuesArbitraryOptions): fc.Arbitrary<Values> {
  const found = valuesKinds().find((k) => k.kind === kind);
  if (!found) throw new Error(`no values kind ${kind}`);
  return valuesArbitrary(found, options);
}
