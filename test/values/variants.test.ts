// A key of another variant of a discriminated union (attestation.provider,
// nats.mode, ...) is named with the variant it is valid for, not as an
// unknown key. The unions are found by walking every kind's values schema,
// so a new one is covered, or this test says no example reaches it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { valuesKinds } from "../../src/systems/registry.ts";

type Def = Record<string, any>;

interface Union {
  kind: string;
  path: string[];
  def: Def;
}

/** Every discriminated union of a schema, with the path of keys to it. */
function unionsOf(kind: string, node: z.core.$ZodType, path: string[] = [], seen = new Set<unknown>()): Union[] {
  if (seen.has(node)) return [];
  seen.add(node);
  const def = node._zod.def as unknown as Def;
  const inner = ["innerType", "in", "out", "element", "valueType", "left", "right"].flatMap((k) => (def[k] ? [def[k] as z.core.$ZodType] : []));
  const here: Union[] = def.type === "union" && def.discriminator !== undefined ? [{ kind, path, def }] : [];
  return [
    ...here,
    ...inner.flatMap((child) => unionsOf(kind, child, def.type === "array" || def.type === "record" ? [...path, "*"] : path, seen)),
    ...((def.options ?? []) as z.core.$ZodType[]).flatMap((option) => unionsOf(kind, option, path, seen)),
    ...Object.entries((def.shape ?? {}) as Record<string, z.core.$ZodType>).flatMap(([key, child]) => unionsOf(kind, child, [...path, key], seen)),
  ];
}

const tags = (option: z.core.$ZodType, discriminator: string) => [...(option._zod.propValues?.[discriminator] ?? [])].map(String);

/** The keys an option reads (a key it refuses with z.never is not one). */
function keysRead(option: z.core.$ZodType): string[] {
  let def = option._zod.def as unknown as Def;
  while (def.innerType || def.type === "pipe") def = (def.innerType ?? def.in)._zod.def;
  return Object.entries(def.shape as Record<string, z.core.$ZodType>)
    .filter(([, child]) => {
      let d = child._zod.def as unknown as Def;
      while (d.innerType) d = d.innerType._zod.def;
      return d.type !== "never";
    })
    .map(([key]) => key);
}

const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => ({ file: f, text: readFileSync(join(ROOT, "examples", f), "utf8") }));

const unions = valuesKinds().flatMap((k) => unionsOf(k.kind, k.schema()));

/** Each example that reaches a union: the variant it chooses, and a key of another variant to add there. */
const cases = unions.flatMap((union) =>
  EXAMPLES.flatMap(({ file, text }) => {
    const doc = parseDocument(text);
    if (doc.get("kind") !== union.kind) return [];
    const at = doc.getIn(union.path) as { get(key: string): unknown } | undefined;
    const given = at?.get?.(union.def.discriminator);
    if (typeof given !== "string") return [];
    const options = union.def.options as z.core.$ZodType[];
    const chosen = options.find((o) => tags(o, union.def.discriminator).includes(given))!;
    return options
      .filter((o) => o !== chosen)
      .flatMap((other) =>
        keysRead(other)
          .filter((key) => !keysRead(chosen).includes(key))
          .map((key) => ({ ...union, file, text, given, key, owners: tags(other, union.def.discriminator) })),
      );
  }),
);

describe("a key of another variant says which variant it is valid for", () => {
  it("the values schemas hold discriminated unions, and an example reaches each with a key of another variant", () => {
    expect(unions.map((u) => `${u.kind} ${u.path.join(".")}`)).toEqual(
      expect.arrayContaining(["RootpilotRunner attestation", "CompassServer nats", "Compass server.nats"]),
    );
    for (const union of unions.filter((u) => u.path.every((p) => p !== "*"))) {
      const options = union.def.options as z.core.$ZodType[];
      const onlyOne = options.some((o) => options.some((p) => p !== o && keysRead(p).some((k) => !keysRead(o).includes(k))));
      if (!onlyOne) continue; // every key is shared (secretStore: aws and vault read the same keys)
      expect(
        cases.some((c) => c.kind === union.kind && c.path.join(".") === union.path.join(".")),
        `${union.kind} ${union.path.join(".")}`,
      ).toBe(true);
    }
  });

  it.each(cases.map((c) => [`${c.kind} ${[...c.path, c.key].join(".")} under ${c.def.discriminator}: ${c.given} (${c.file})`, c]))("%s", (_, c) => {
    const doc = parseDocument(c.text);
    doc.setIn([...c.path, c.key], 1);
    const text = doc.toString();
    const r = runInProcess(["render", tempFile(text)]);
    expect(r.code).toBe(1);
    const errors = r.err.split("\n").filter((l) => l.startsWith("error "));
    const path = [...c.path, c.key].join(".");
    expect(errors).toEqual([
      expect.stringContaining(`${path}: valid only for ${c.def.discriminator} ${c.owners.join(" or ")} (this file says ${c.def.discriminator}: ${c.given}) (`),
    ]);
    // At the key's own line, with the requirement the union files its refusals under.
    const line = Number(/^error [^:]+:(\d+):/.exec(errors[0])![1]);
    expect(text.split("\n")[line - 1]).toMatch(new RegExp(`^\\s*${c.key}: 1$`));
    expect(errors[0]).toMatch(/\((RP-06|CS-07): remove it: /);
    expect(errors[0]).not.toContain("unknown key");
  });

  it("a key no variant reads is still an unknown key, with the keys of its own variant suggested", () => {
    const doc = parseDocument(readFileSync(join(ROOT, "examples", "rootpilot-eks.yaml"), "utf8"));
    doc.setIn(["attestation", "regoin"], "eu-west-1");
    const r = runInProcess(["render", tempFile(doc.toString())]);
    expect(r.err).toMatch(/attestation\.regoin: unknown key \(G-01: did you mean `region`\?/);
  });
});
