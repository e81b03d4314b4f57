// The API server's own OpenAPI v3, read into the compact types of
// kube-schemas/ (scripts/gen-kube-schemas.mjs) and compared model by model,
// following fields from each kind, so that names of models never matter.
import type { ControlPlane } from "./control-plane.ts";

export interface Schema {
  type?: string;
  format?: string;
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
}

export interface Served {
  schemas: Map<string, Schema>;
  /** apiVersion → kind → the schema's name, for each kind a collection of the group-version serves. */
  kinds: Map<string, Map<string, string>>;
}

export interface KubeSchemas {
  kinds: Record<string, Record<string, string>>;
  types: Record<string, { f: Record<string, string>; r?: string[]; e?: Record<string, string[]> }>;
}

/** What the API server's OpenAPI says that the generated clients do not: each enum, and each field typed as a Quantity. */
export interface BeyondClients {
  /** The client's model name and field -> the values the server lists. */
  enums: Record<string, string[]>;
  /** The client's model name without its group prefix, and field: each field the server types as a Quantity. */
  quantities: string[];
}

const LEAVES: Record<string, string> = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "int-or-string",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "string",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "string",
};

/** The API server's Kubernetes version as 1.N, which names its kube-schemas file. */
export async function serverMinor(cp: ControlPlane): Promise<string> {
  const version = (await cp.api("GET", "/version")).json() as { major: string; minor: string };
  return `${version.major}.${version.minor.replace(/\D.*$/, "")}`;
}

/** Every group-version's document, and the kinds its discovery lists with a create verb. */
export async function served(cp: ControlPlane): Promise<Served> {
  const index = (await cp.api("GET", "/openapi/v3")).json() as { paths: Record<string, { serverRelativeURL: string }> };
  const schemas = new Map<string, Schema>();
  const kinds = new Map<string, Map<string, string>>();
  for (const [path, { serverRelativeURL }] of Object.entries(index.paths)) {
    const gv = /^(?:api\/(v1)|apis\/([^/]+\/[^/]+))$/.exec(path);
    if (!gv) continue;
    const doc = (await cp.api("GET", serverRelativeURL)).json() as { components?: { schemas?: Record<string, Schema> } };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) schemas.set(name, schema);
    const apiVersion = gv[1] ?? gv[2];
    const discovery = (await cp.api("GET", `/${path}`)).json() as { resources: { name: string; kind: string; verbs: string[] }[] };
    const byKind = new Map<string, string>();
    for (const r of discovery.resources) {
      if (r.name.includes("/") || !r.verbs.includes("create")) continue;
      const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
      const name = [...schemas].find(([, s]) =>
        s["x-kubernetes-group-version-kind"]?.some((g) => g.group === group && g.version === version && g.kind === r.kind),
      )?.[0];
      if (name) byKind.set(r.kind, name);
    }
    kinds.set(apiVersion, byKind);
  }
  return { schemas, kinds };
}

type Compact = { leaf: string } | { model: string };

/** A schema as kube-schemas writes a field's type: a leaf, [] or {} before an item type, or a model (by the server's name). */
function compact(schema: Schema | undefined, schemas: Map<string, Schema>): { prefix: string; item: Compact } {
  let s = schema ?? {};
  if (s.allOf?.length === 1) s = s.allOf[0];
  if (s.$ref) {
    const name = s.$ref.replace("#/components/schemas/", "");
    if (LEAVES[name]) return { prefix: "", item: { leaf: LEAVES[name] } };
    const target = schemas.get(name);
    if (target?.properties) return { prefix: "", item: { model: name } };
    return compact(target, schemas);
  }
  if (s.type === "array") {
    const inner = compact(s.items, schemas);
    return { prefix: `[]${inner.prefix}`, item: inner.item };
  }
  if (s.type === "object" && typeof s.additionalProperties === "object") {
    const inner = compact(s.additionalProperties, schemas);
    return { prefix: `{}${inner.prefix}`, item: inner.item };
  }
  if (s.type === "string") return { prefix: "", item: { leaf: s.format === "int-or-string" ? "int-or-string" : "string" } };
  if (s.type === "integer" || s.type === "number" || s.type === "boolean") return { prefix: "", item: { leaf: s.type } };
  return { prefix: "", item: { leaf: "any" } };
}

/** The differences between a served model and kube-schemas' model, following model fields; each pair is compared once. */
export function compareModels(served: Map<string, Schema>, bundled: KubeSchemas, start: [string, string], where: string): string[] {
  const differences: string[] = [];
  const seen = new Set<string>();
  const queue: [string, string, string][] = [[...start, where]];
  while (queue.length > 0) {
    const [server, client, at] = queue.shift()!;
    if (seen.has(`${server}|${client}`)) continue;
    seen.add(`${server}|${client}`);
    const s = served.get(server);
    const c = bundled.types[client];
    if (!s || !c) {
      differences.push(`${at}: ${s ? `kube-schemas has no model ${client}` : `the server has no schema ${server}`}`);
      continue;
    }
    const fields = new Set([...Object.keys(s.properties ?? {}), ...Object.keys(c.f)]);
    for (const field of [...fields].sort()) {
      const path = `${at}.${field}`;
      const clientType = c.f[field];
      if (!s.properties?.[field] || clientType === undefined) {
        differences.push(`${path}: ${clientType === undefined ? "served, missing from kube-schemas" : "in kube-schemas, not served"}`);
        continue;
      }
      const { prefix, item } = compact(s.properties[field], served);
      const clientItem = clientType.slice(prefix.length);
      const values = (v?: string[]) => (v ? [...v].sort().join(",") : "none");
      if (values(enumOf(s.properties[field], served)) !== values(c.e?.[field]))
        differences.push(`${path}: enum [${values(enumOf(s.properties[field], served))}] served, [${values(c.e?.[field])}] in kube-schemas`);
      if (!clientType.startsWith(prefix)) differences.push(`${path}: served as ${prefix}…, kube-schemas says ${clientType}`);
      else if ("model" in item && bundled.types[clientItem]) queue.push([item.model, clientItem, path]);
      else if ("model" in item || item.leaf !== clientItem)
        differences.push(`${path}: served as ${prefix}${"model" in item ? item.model : item.leaf}, kube-schemas says ${clientType}`);
    }
    const required = (r?: string[]) => [...(r ?? [])].sort().join(",");
    if (required(s.required) !== required(c.r)) differences.push(`${at}: required [${required(s.required)}] served, [${required(c.r)}] in kube-schemas`);
  }
  return differences;
}

/** The values a field's schema (or its list's or map's items) enumerates, following a single allOf or $ref to a leaf. */
function enumOf(schema: Schema | undefined, schemas: Map<string, Schema>): string[] | undefined {
  let s = schema;
  for (let hops = 0; s && hops < 4; hops++) {
    if (s.enum) return s.enum.map(String);
    if (s.allOf?.length === 1) s = s.allOf[0];
    else if (s.$ref && !schemas.get(s.$ref.replace("#/components/schemas/", ""))?.properties) s = schemas.get(s.$ref.replace("#/components/schemas/", ""));
    else if (s.type === "array") s = s.items;
    else if (s.type === "object" && typeof s.additionalProperties === "object") s = s.additionalProperties;
    else return undefined;
  }
  return undefined;
}

const unprefixed = (model: string) => /V\d+(?:(?:alpha|beta)\d+)?[A-Z]\w*$/.exec(model)?.[0] ?? model;

/** The enums and Quantities the server serves for the client models reached from each kind, keyed by the client's names. */
export function beyondClients(served: Served, bundled: KubeSchemas): BeyondClients {
  const enums: Record<string, string[]> = {};
  const quantities = new Set<string>();
  const seen = new Set<string>();
  const queue: [string, string][] = [];
  for (const [apiVersion, kinds] of served.kinds)
    for (const [kind, name] of kinds) {
      const model = bundled.kinds[apiVersion]?.[kind];
      if (model) queue.push([name, model]);
    }
  while (queue.length > 0) {
    const [server, client] = queue.shift()!;
    if (seen.has(`${server}|${client}`)) continue;
    seen.add(`${server}|${client}`);
    const s = served.schemas.get(server);
    const c = bundled.types[client];
    if (!s || !c) continue;
    for (const [field, schema] of Object.entries(s.properties ?? {})) {
      const clientType = c.f[field];
      if (clientType === undefined) continue;
      const values = enumOf(schema, served.schemas);
      if (values) enums[`${client}.${field}`] = values;
      const { prefix, item } = compact(schema, served.schemas);
      const clientItem = clientType.slice(prefix.length);
      if ("model" in item && bundled.types[clientItem]) queue.push([item.model, clientItem]);
      else if ("leaf" in item && item.leaf === "quantity") quantities.add(`${unprefixed(client)}.${field}`);
    }
  }
  return { enums: Object.fromEntries(Object.entries(enums).sort(([a], [b]) => (a < b ? -1 : 1))), quantities: [...quantities].sort() };
}
