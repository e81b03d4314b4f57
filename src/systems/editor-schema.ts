// The JSON Schema of the values kinds, for editors and CI (`rigging schema`, init's
// rigging.schema.json, the docs): read from the registry's kinds, so it sits with the systems.
import { z } from "zod";
import { UsageError } from "../core/errors.ts";
import { VALUES_API_VERSION } from "../values/values-resource.ts";
import type { ValuesKind } from "./values-kind.ts";
import { kinds, valuesKindOf, valuesKinds } from "./registry.ts";

/** The kinds a file may be in without `kind:` (their upstream tool's shape), as render tells them apart. */
export const upstreamShaped = () => valuesKinds().filter((k) => (k.shapeKeys ?? []).length > 0);

const DRAFT = "draft-2020-12";

export function schemaOf(kind: string): object {
  const valuesKind = valuesKindOf(kind);
  if (!valuesKind) throw new UsageError(`unknown kind ${JSON.stringify(kind)}; expected one of ${kinds().join(", ")}`);
  // "input": what a person writes (defaults optional, images as strings).
  const schema = standardFormats(z.toJSONSchema(valuesKind.schema(), { io: "input", unrepresentable: "any", target: DRAFT })) as {
    properties?: Record<string, unknown>;
  };
  // A values file may also be a KRM resource; `render` sets these two aside (values/values-resource.ts).
  schema.properties = { ...RESOURCE_PROPERTIES, ...schema.properties };
  return schema;
}

const RESOURCE_PROPERTIES = {
  base: { type: "string", description: "The values file this one builds on, relative to it: its values are layered under this file's (docs/fleet.md)" },
  apiVersion: {
    const: VALUES_API_VERSION,
    description: "Optional: makes the file a KRM resource, for kpt's --fn-config, a Kptfile configPath or a kustomize generator",
  },
  metadata: {
    type: "object",
    description: "With apiVersion: the resource's metadata; name names the directory rigging fn renders into",
    properties: {
      name: { type: "string" },
      namespace: { type: "string" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      annotations: { type: "object", additionalProperties: { type: "string" } },
    },
  },
};

/** One schema for every kind: each kind's schema applies where `kind` names it; without kind, the upstream shape's (as render reads such a file). */
export function allKindsSchema(): object {
  const defs: Record<string, object> = {};
  for (const kind of kinds()) {
    const { $schema: _, ...schema } = schemaOf(kind) as { $schema?: string };
    defs[kind] = schema;
  }
  const shaped = upstreamShaped();
  const hasShape = (k: ValuesKind) => ({ anyOf: k.shapeKeys!.map((key) => ({ required: [key] })) });
  const noKind = { not: { required: ["kind"] } };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "rigging values",
    description: `A rigging values file; its top-level kind (${kinds().join(", ")}) chooses the schema. Without kind, a file in the upstream shape of ${shaped.map((k) => k.kind).join(", ")}.`,
    type: "object",
    properties: {
      kind: {
        type: "string",
        enum: [...kinds()],
        description: `The values kind: which system this file renders. Optional in the upstream shape (${shaped.map((k) => k.kind).join(", ")})`,
      },
      ...RESOURCE_PROPERTIES,
    },
    allOf: [
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable
      ...kinds().map((kind) => ({ if: { properties: { kind: { const: kind } }, required: ["kind"] }, then: { $ref: `#/$defs/${kind}` } })),
      // biome-ignore lint/suspicious/noThenProperty: as above
      ...shaped.map((k) => ({ if: { allOf: [noKind, hasShape(k)] }, then: { $ref: `#/$defs/${k.kind}` } })),
      // render names no kind for a file of neither: it needs kind, or an upstream shape.
      { anyOf: [{ required: ["kind"] }, ...shaped.map(hasShape)] },
    ],
    $defs: defs,
  };
}

/** The formats of JSON Schema 2020-12 (its format vocabulary), which editors and validators know. */
const STANDARD_FORMATS = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

/** `schema` with zod's own formats (starts_with and the like) left out: each comes with the `pattern` that says the same. */
export function standardFormats(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(standardFormats);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "format" && typeof value === "string" && !STANDARD_FORMATS.has(value)) {
      if (typeof (schema as { pattern?: unknown }).pattern !== "string") throw new Error(`format ${value} comes without a pattern`);
      continue;
    }
    out[key] = key === "const" || key === "enum" || key === "default" || key === "examples" ? value : standardFormats(value);
  }
  return out;
}
