// The values arbitrary is derived from each kind's JSON Schema: every leaf
// path the schema describes takes, in some sample, a value other than the
// bundled example's (or is left out, or added), the values reader accepts
// every sample, and a key added to a schema is drawn without an edit of the
// arbitrary.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { valuesKinds } from "../../src/systems/registry.ts";
import { runs } from "./runs.ts";
import { makePki } from "./tls.ts";
import { type ArbitraryKind, inputSchemaOf, loadExample, refusals, valuesArbitrary } from "./values-arbitrary.ts";

type Schema = Record<string, any>;
const SAMPLES = runs(1200);

/** A CA certificate: a value no example shows (serverCA.pem), handed in as a seed. */
let seeds: Record<string, unknown>[] = [];
beforeAll(async () => {
  seeds = [{ serverCA: { pem: (await makePki()).root.cert } }];
});

/** The members of a union, or the node; a `not: {}` key (never allowed) is no member. */
const members = (s: Schema): Schema[] => ((s.anyOf ?? s.oneOf ?? [s]) as Schema[]).filter((m) => !(m.not && Object.keys(m.not).length === 0));
const propertyOf = (s: Schema, key: string) =>
  members(s).find((m) => m.properties?.[key] && members(m.properties[key]).length > 0)?.properties[key] as Schema | undefined;
const itemsOf = (s: Schema) => members(s).find((m) => typeof m.items === "object")?.items as Schema | undefined;
const entriesOf = (s: Schema) =>
  members(s).find((m) => typeof m.additionalProperties === "object" && Object.keys(m.additionalProperties).length > 0)?.additionalProperties as
    | Schema
    | undefined;
const holdsLeaves = (s: Schema) => members(s).some((m) => !m.properties && !m.items && !entriesOf(m));

/** Every path where the schema puts a value that is not an object or an array: `a.b`, `list[].c`, `record.*`. */
function schemaLeaves(s: Schema, path = ""): string[] {
  const out = holdsLeaves(s) && path !== "" ? [path] : [];
  for (const m of members(s)) {
    for (const key of Object.keys(m.properties ?? {})) {
      const sub = propertyOf(m, key);
      if (sub) out.push(...schemaLeaves(sub, path ? `${path}.${key}` : key));
    }
    if (itemsOf(m)) out.push(...schemaLeaves(itemsOf(m)!, `${path}[]`));
    if (entriesOf(m)) out.push(...schemaLeaves(entriesOf(m)!, `${path}.*`));
  }
  return [...new Set(out)];
}

/** Each leaf path of a value, with the values found there, the schema telling a record's entries from an object's keys. */
function leavesOf(value: unknown, s: Schema, path = "", out = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const add = (p: string, v: unknown) => out.set(p, (out.get(p) ?? new Set()).add(JSON.stringify(v)));
  if (Array.isArray(value) && itemsOf(s)) for (const item of value) leavesOf(item, itemsOf(s)!, `${path}[]`, out);
  else if (typeof value === "object" && value !== null && !Array.isArray(value) && !holdsLeaves(s))
    for (const [key, child] of Object.entries(value)) {
      const sub = propertyOf(s, key);
      if (sub) leavesOf(child, sub, path ? `${path}.${key}` : key, out);
      else if (entriesOf(s)) leavesOf(child, entriesOf(s)!, `${path}.*`, out);
      else add(`${path}.${key}?`, child);
    }
  else add(path, value);
  return out;
}

/** The leaf paths where a sample differs from the example: another value, one left out, one added. */
function variedPaths(sample: unknown, example: Map<string, Set<string>>, s: Schema): string[] {
  const seen = leavesOf(sample, s);
  const paths = new Set([...seen.keys(), ...example.keys()]);
  const same = (a = new Set<string>(), b = new Set<string>()) => a.size === b.size && [...a].every((v) => b.has(v));
  return [...paths].filter((p) => !same(seen.get(p), example.get(p)));
}

/** Keys whose JSON Schema admits what the kind's schema refuses whenever the key is there (a refinement JSON Schema cannot say): no accepted sample holds them. */
const REFUSED_WHEREVER_PRESENT: Record<string, string[]> = { RootpilotRunner: ["env"] };

/** The leaf paths no sample of `kind` varied, and whether every sample was accepted. */
function unvaried(kind: ArbitraryKind): { missing: string[]; refused: number; leaves: number } {
  const schema = inputSchemaOf(kind);
  const zod = kind.schema();
  const example = leavesOf(loadExample(kind), schema);
  const leaves = schemaLeaves(schema).filter((p) => p !== "kind" && !(REFUSED_WHEREVER_PRESENT[kind.kind] ?? []).includes(p));
  const varied = new Set<string>();
  let refused = 0;
  for (const sample of fc.sample(valuesArbitrary(kind, { seeds }), { numRuns: SAMPLES, seed: 43 })) {
    if (refusals(zod, sample).length > 0) refused++;
    for (const p of variedPaths(sample, example, schema)) varied.add(p);
  }
  return { missing: leaves.filter((p) => !varied.has(p)), refused, leaves: leaves.length };
}

describe.each(valuesKinds().map((k) => [k.kind, k] as const))("%s values, drawn from its JSON Schema", (_, kind) => {
  it("vary every leaf path of the schema in some sample, and the values reader accepts every sample", () => {
    const { missing, refused, leaves } = unvaried(kind);
    expect(leaves).toBeGreaterThan(0);
    expect(missing).toEqual([]);
    expect(refused).toBe(0);
  });
});

describe("the keys no sample can hold", () => {
  it.each(Object.entries(REFUSED_WHEREVER_PRESENT))("%s refuses its example with any of %j", (name, keys) => {
    const kind = valuesKinds().find((k) => k.kind === name)!;
    for (const key of keys)
      for (const value of [{}, { NAME: "value" }, "text", 1]) expect(kind.schema().safeParse({ ...loadExample(kind), [key]: value }).success).toBe(false);
  });
});

describe("a key added to a schema", () => {
  const runner = valuesKinds().find((k) => k.kind === "CompassRunner")!;
  const extended: ArbitraryKind = {
    kind: runner.kind,
    example: runner.example,
    schema: () =>
      (runner.schema() as z.ZodObject).extend({
        drainBudget: z.int().min(3).max(90).optional(),
        drainMode: z.enum(["graceful", "immediate"]).optional(),
        drainLabel: z
          .string()
          .regex(/^[a-z]{2,8}$/)
          .optional(),
        drain: z.object({ enabled: z.boolean(), windows: z.array(z.string().regex(/^[0-2][0-9]:[0-5][0-9]$/)).min(1) }).optional(),
      }),
  };

  it("is drawn, with every leaf under it varied, without an edit of the arbitrary", () => {
    const { missing, refused } = unvaried(extended);
    expect(missing).toEqual([]);
    expect(refused).toBe(0);
  });

  it("is what the unextended schema refuses (the samples do hold the new keys)", () => {
    const drawn = fc.sample(valuesArbitrary(extended, { seeds }), { numRuns: runs(200), seed: 7 }).filter((v) => "drainMode" in v || "drain" in v);
    expect(drawn.length).toBeGreaterThan(0);
    for (const values of drawn) expect(runner.schema().safeParse(values).success).toBe(false);
  });
});
