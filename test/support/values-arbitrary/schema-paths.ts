// The JSON Schema a values kind's zod schema exports, read as paths: where its
// leaves are, which member of a union has a step, where a refusal points.

/** A JSON Schema node, as zod writes it. */
export type Schema = Record<string, any>;

/** A path through a schema: property names, "[]" for an array's items, "*" for a record's entries. */
export type SchemaPath = readonly string[];
export const ITEMS = "[]";
export const ENTRIES = "*";

/** A key the schema refuses whenever it is present (`not: {}`): zod's `never`. */
export const forbidden = (s: Schema): boolean => typeof s.not === "object" && Object.keys(s.not).length === 0;
/** The alternatives of a node: its anyOf/oneOf members, or the node itself. */
export const branchesOf = (s: Schema): Schema[] => ((s.anyOf ?? s.oneOf ?? [s]) as Schema[]).filter((b) => !forbidden(b));
export const isSchema = (s: unknown): s is Schema => typeof s === "object" && s !== null && !Array.isArray(s);
export const isRecord = (s: Schema) => isSchema(s.additionalProperties) && Object.keys(s.additionalProperties).length > 0;
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const hasProperties = (s: Schema) => isSchema(s.properties) && Object.values(s.properties as Schema).some((p) => !forbidden(p));

/** Whether branch `b` has the step `step` below it. */
export function declares(b: Schema, step: string): Schema | undefined {
  if (step === ITEMS) return isSchema(b.items) ? b.items : undefined;
  if (step === ENTRIES) return isRecord(b) ? b.additionalProperties : undefined;
  const sub = b.properties?.[step] as Schema | undefined;
  return sub && !forbidden(sub) ? sub : undefined;
}

/** Every leaf path of a schema: where a value that is not an object or array sits (across the members of a union). */
export function leafPathsOf(schema: Schema, path: string[] = []): SchemaPath[] {
  const out = new Map<string, SchemaPath>();
  for (const b of branchesOf(schema)) {
    const container = hasProperties(b) || isSchema(b.items) || isRecord(b);
    if (!container) out.set(path.join("\0"), path);
    for (const [key, sub] of Object.entries((b.properties ?? {}) as Record<string, Schema>))
      if (!forbidden(sub)) for (const p of leafPathsOf(sub, [...path, key])) out.set(p.join("\0"), p);
    for (const [step, sub] of [
      [ITEMS, b.items],
      [ENTRIES, isRecord(b) ? b.additionalProperties : undefined],
    ] as const)
      if (isSchema(sub)) for (const p of leafPathsOf(sub, [...path, step])) out.set(p.join("\0"), p);
  }
  return [...out.values()];
}

/** Whether a node admits one value only. */
export const single = (s: Schema) => branchesOf(s).every((b) => "const" in b || (Array.isArray(b.enum) && b.enum.length === 1));

/** The node at a path (the first member of a union that has it). */
export function schemaAt(schema: Schema, path: SchemaPath): Schema {
  let node = schema;
  for (const step of path)
    node =
      branchesOf(node)
        .map((b) => declares(b, step))
        .find((sub) => sub !== undefined) ?? {};
  return node;
}

/** The leaf paths at or under where zod's refusals point. */
export function pointedAt(schema: Schema, issues: readonly (readonly PropertyKey[])[], paths: readonly SchemaPath[]): SchemaPath[] {
  const prefixes = issues.map((issue) => schemaPathOf(schema, issue));
  return paths.filter((p) => prefixes.some((prefix) => prefix.every((step, i) => p[i] === step)));
}

/** The schema path of a value's path (a zod issue's): items and entries by their steps; as far as the schema goes. */
export function schemaPathOf(schema: Schema, path: readonly PropertyKey[]): SchemaPath {
  const out: string[] = [];
  let node: Schema | undefined = schema;
  for (const key of path) {
    const step = typeof key === "number" ? ITEMS : String(key);
    const b: Schema | undefined = node && branchesOf(node).find((m) => declares(m, step) || declares(m, ENTRIES));
    if (!b) break;
    const taken = declares(b, step) ? step : ENTRIES;
    out.push(taken);
    node = declares(b, taken);
  }
  return out;
}

/** The paths of `from` that share the longest start with one of `to` (the switches of the object a refusal points into). */
export function nearest(from: readonly SchemaPath[], to: readonly SchemaPath[]): SchemaPath[] {
  const shared = (a: SchemaPath, b: SchemaPath) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  const score = from.map((p) => Math.max(0, ...to.map((q) => shared(p, q))));
  const best = Math.max(0, ...score);
  return from.filter((_, i) => score[i] === best);
}
