// Keys of another variant: a key that a discriminated union accepts under
// another value of its discriminator is named so, not as an unknown key.
import type { z } from "zod";

/** Where a key of another variant belongs: the discriminator, its values that read the key, and the one the file gives. */
export interface Variant {
  discriminator: string;
  owners: string[];
  given: unknown;
  /** The union's own refusal, as its error words it: it carries the requirement it is filed under. */
  refusal?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: zod's definition records differ per node type; this reads the few fields each case names
type Def = Record<string, any>;

/** The node under zod's wrappers: what decides the shape at a path. */
function unwrapped(schema: z.core.$ZodType): Def {
  let def = schema._zod.def as unknown as Def;
  for (;;) {
    if (["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"].includes(def.type)) def = def.innerType._zod.def;
    else if (def.type === "pipe") def = def.in._zod.def;
    else if (def.type === "lazy") def = def.getter()._zod.def;
    else return def;
  }
}

/** The discriminated union at `path`, following the variant `data` chooses wherever a path passes through one. */
function unionAt(schema: z.core.$ZodType, path: readonly PropertyKey[], data: unknown): Def | undefined {
  const def = unwrapped(schema);
  if (def.type === "union") {
    if (path.length === 0) return def.discriminator !== undefined ? def : undefined;
    const chosen = def.discriminator !== undefined ? variantFor(def, data) : undefined;
    for (const option of chosen ? [chosen] : (def.options as z.core.$ZodType[])) {
      const found = unionAt(option, path, data);
      if (found) return found;
    }
    return undefined;
  }
  if (path.length === 0) return undefined;
  const [head, ...rest] = path;
  const child = data !== null && typeof data === "object" ? (data as Record<PropertyKey, unknown>)[head] : undefined;
  if (def.type === "object") return Object.hasOwn(def.shape, head) ? unionAt(def.shape[head as string], rest, child) : undefined;
  if (def.type === "array") return unionAt(def.element, rest, child);
  if (def.type === "record") return unionAt(def.valueType, rest, child);
  if (def.type === "intersection") return unionAt(def.left, path, data) ?? unionAt(def.right, path, data);
  return undefined;
}

/** The option of a discriminated union that the discriminator's value in `data` names. */
function variantFor(def: Def, data: unknown): z.core.$ZodType | undefined {
  const tag = data !== null && typeof data === "object" ? (data as Record<string, unknown>)[def.discriminator] : undefined;
  return (def.options as z.core.$ZodType[]).find((option) => tagsOf(option, def.discriminator).includes(tag));
}

function tagsOf(option: z.core.$ZodType, discriminator: string): unknown[] {
  return [...((option._zod.propValues?.[discriminator] as Set<unknown> | undefined) ?? [])];
}

/** Whether an option reads `key`: a key it refuses (z.never) is not one of its keys. */
function reads(option: z.core.$ZodType, key: string): boolean {
  const def = unwrapped(option);
  return def.type === "object" && Object.hasOwn(def.shape, key) && unwrapped(def.shape[key]).type !== "never";
}

/** A union's own refusal, asked of its error as zod would ask it. */
function refusalOf(def: Def): string | undefined {
  if (typeof def.error !== "function") return undefined;
  const said: unknown = def.error({ code: "invalid_union", input: {}, path: [], errors: [] });
  const text = typeof said === "string" ? said : (said as { message?: unknown } | undefined)?.message;
  return typeof text === "string" ? text : undefined;
}

/** The variant `key` belongs to when the mapping at `path` is a discriminated union's and another value of its discriminator reads it. */
export function variantOfKey(schema: z.core.$ZodType, path: readonly PropertyKey[], key: string, data: unknown): Variant | undefined {
  const def = unionAt(schema, path, data);
  if (!def) return undefined;
  let node: unknown = data;
  for (const segment of path) node = node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[segment] : undefined;
  const given = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[def.discriminator] : undefined;
  const owners = (def.options as z.core.$ZodType[])
    .filter((option) => reads(option, key) && !tagsOf(option, def.discriminator).includes(given))
    .flatMap((option) => tagsOf(option, def.discriminator).map(String));
  if (owners.length === 0) return undefined;
  const refusal = refusalOf(def);
  return { discriminator: def.discriminator, owners, given, ...(refusal !== undefined ? { refusal } : {}) };
}
