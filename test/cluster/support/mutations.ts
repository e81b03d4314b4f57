// The differential harness's catalog: each class edits one field of a valid
// object into a fault the API server may refuse (or a spelling it accepts).
// Fields are found by the object's own schema (kube-schemas/), and where a
// class could edit several, a seeded choice picks one, so runs repeat.

/** kube-schemas/1.N.json, as the harness reads it. */
export interface Schemas {
  kinds: Record<string, Record<string, string>>;
  types: Record<string, { f: Record<string, string>; r?: string[]; x?: Record<string, string>; e?: Record<string, string[]> }>;
}

import { KIND_CLASSES } from "./mutations-kinds.ts";
import { get, podSpecs } from "./mutation-paths.ts";

type Path = (string | number)[];

/** A field the object holds: where, its compact type, format and enum, and whether its model requires it. */
export interface Site {
  path: Path;
  field: string;
  type: string;
  format?: string;
  values?: string[];
  required: boolean;
}

export interface Mutant {
  class: string;
  field: string;
  object: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every field an object holds, by its model. */
export function sites(object: Obj, schemas: Schemas): Site[] {
  const model = schemas.kinds[String(object.apiVersion)]?.[String(object.kind)];
  const out: Site[] = [];
  if (model) visit(object, model, [], schemas, out);
  return out;
}

function visit(value: unknown, type: string, path: Path, schemas: Schemas, out: Site[], leaf: Omit<Site, "path" | "type"> | undefined = undefined): void {
  if (type.startsWith("[]") && Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push({ ...(leaf ?? { field: String(i), required: false }), path: [...path, i], type: type.slice(2), required: false });
      visit(item, type.slice(2), [...path, i], schemas, out, leaf);
    });
    return;
  }
  if (type.startsWith("{}") && isObj(value)) {
    for (const key of Object.keys(value)) {
      out.push({ ...(leaf ?? { field: key, required: false }), path: [...path, key], type: type.slice(2), required: false });
      visit(value[key], type.slice(2), [...path, key], schemas, out, leaf);
    }
    return;
  }
  const model = schemas.types[type];
  if (!model || !isObj(value)) return;
  for (const [field, fieldType] of Object.entries(model.f)) {
    if (!(field in value)) continue;
    const site: Site = { path: [...path, field], field, type: fieldType, required: model.r?.includes(field) ?? false };
    if (model.x?.[field]) site.format = model.x[field];
    if (model.e?.[field]) site.values = model.e[field];
    out.push(site);
    visit(value[field], fieldType, site.path, schemas, out, { field, format: site.format, values: site.values, required: false });
  }
}

/** A copy of `object` with the value at `path` set (undefined deletes it). */
export function edited(object: Obj, path: Path, value: unknown): Obj {
  const copy = structuredClone(object);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (at[key] === undefined) at[key] = {};
    at = at[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(at) && typeof last === "number") at.splice(last, 1);
    else delete at[last];
  } else at[last] = value;
  return copy;
}

/** mulberry32: a small seeded generator, so that a choice among fields repeats from run to run. */
export function seeded(seed: number): <T>(list: readonly T[]) => T | undefined {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (list) => (list.length === 0 ? undefined : list[Math.floor(next() * list.length)]);
}

type Pick = <T>(list: readonly T[]) => T | undefined;

export interface MutationClass {
  name: string;
  /** Why rigging does not judge this class offline (the cluster decides, or a grammar rigging does not carry): its trials are counted apart. */
  notJudged?: string;
  mutate(object: Obj, all: Site[], pick: Pick): { field: Path; value: unknown }[];
}

const notStatus = (s: Site) => s.path[0] !== "status";
const where = (s: Site | undefined, value: unknown) => (s ? [{ field: s.path, value }] : []);
const leaves = (all: Site[], type: string) => all.filter((s) => s.type === type && notStatus(s));
const named = (all: Site[], field: string) => all.filter((s) => s.field === field && notStatus(s));
/** The classes, by the fault each writes. */
export const CATALOG: readonly MutationClass[] = [
  {
    name: "unknown field",
    mutate: (_o, all, pick) => [
      ...podSpecs(all).map((s) => ({ field: [...s.path, "hostNetwrk"], value: true })),
      ...where(pick(all.filter((s) => !s.type.startsWith("[]") && !s.type.startsWith("{}") && /^[A-Z]/.test(s.type) && notStatus(s))), undefined).map(
        ({ field }) => ({ field: [...field, "bogusField"], value: "x" }),
      ),
    ],
  },
  {
    name: "wrong type",
    mutate: (_o, all, pick) => [
      ...where(pick(leaves(all, "integer")), "two"),
      ...where(pick(leaves(all, "boolean")), "two"),
      ...where(pick(leaves(all, "string")), 12),
      ...where(pick(all.filter((s) => s.type.startsWith("[]") && notStatus(s))), "one"),
    ],
  },
  { name: "required field missing", mutate: (_o, all, pick) => where(pick(all.filter((s) => s.required && notStatus(s))), undefined) },
  { name: "required field null", mutate: (_o, all, pick) => where(pick(all.filter((s) => s.required && notStatus(s))), null) },
  {
    name: "required list empty",
    mutate: (_o, all) => all.filter((s) => s.required && s.type.startsWith("[]") && notStatus(s)).map((s) => ({ field: s.path, value: [] })),
  },
  { name: "value outside its enum", mutate: (_o, all) => all.filter((s) => s.values && notStatus(s)).map((s) => ({ field: s.path, value: "Bogus" })) },
  {
    name: "int32 and int64 bounds",
    mutate: (_o, all, pick) => [
      ...where(pick(all.filter((s) => s.format === "int32" && s.type === "integer" && notStatus(s))), 2147483648),
      ...where(pick(all.filter((s) => s.format === "int32" && s.type === "integer" && notStatus(s))), -2147483649),
      ...where(pick(all.filter((s) => s.format === "int64" && s.type === "integer" && notStatus(s))), 1e19),
    ],
  },
  {
    name: "base64",
    mutate: (_o, all) => [
      ...all.filter((s) => s.format === "byte" && s.type === "string").map((s) => ({ field: s.path, value: "not base64!" })),
      ...all.filter((s) => s.format === "byte" && s.type === "string").map((s) => ({ field: s.path, value: "c2Vj\ncmV0" })),
    ],
  },
  {
    name: "RFC 3339 time",
    mutate: () => [
      { field: ["metadata", "creationTimestamp"], value: "2024-01-31 12:00:00" },
      { field: ["metadata", "creationTimestamp"], value: "2024-01-31T12:00:00+0100" },
      { field: ["metadata", "creationTimestamp"], value: "2024-01-31T12:00:00Z" },
    ],
  },
  {
    name: "label syntax",
    mutate: () => [
      { field: ["metadata", "labels", "bad key!"], value: "x" },
      { field: ["metadata", "labels", "tier"], value: "-front-" },
      { field: ["metadata", "labels", "tier"], value: "v".repeat(64) },
      { field: ["metadata", "labels", "example.com/tier"], value: "front_end.v1" },
      { field: ["metadata", "labels", "Example.com/tier"], value: "x" },
      { field: ["metadata", "annotations", "bad key!"], value: "x" },
      { field: ["metadata", "annotations", "example.com/notes"], value: "n".repeat(300 * 1024) },
    ],
  },
  {
    name: "name syntax",
    mutate: () =>
      ["Server_server-499", "web.v2", "system:web", "9web", "n".repeat(64), "WEB", "a..b", "-web", "web%2f"].map((name) => ({
        field: ["metadata", "name"],
        value: name,
      })),
  },
  {
    name: "port range",
    mutate: (_o, all) => [
      ...named(all, "containerPort").flatMap((s) => [0, 70000].map((value) => ({ field: s.path, value }))),
      ...named(all, "port")
        .filter((s) => s.type === "integer")
        .flatMap((s) => [0, 70000].map((value) => ({ field: s.path, value }))),
      ...named(all, "targetPort").flatMap((s) => ["HTTP_1", 70000].map((value) => ({ field: s.path, value }))),
      ...named(all, "name")
        .filter((s) => s.path.at(-3) === "ports")
        .map((s) => ({ field: s.path, value: "http-port-too-long" })),
    ],
  },
  {
    name: "duplicate container name",
    mutate: (o, all) =>
      podSpecs(all).map((s) => {
        const containers = get(o, [...s.path, "containers"]) as unknown[];
        return { field: [...s.path, "containers"], value: [...containers, structuredClone(containers[0])] };
      }),
  },
  {
    name: "duplicate volume name",
    mutate: (o, all) =>
      podSpecs(all).map((s) => {
        const volumes = (get(o, [...s.path, "volumes"]) as unknown[] | undefined) ?? [];
        const volume = volumes[0] ?? { name: "scratch", emptyDir: {} };
        return { field: [...s.path, "volumes"], value: [...(volumes.length > 0 ? volumes : [volume]), structuredClone(volume)] };
      }),
  },
  ...KIND_CLASSES,
  {
    name: "what the cluster decides",
    notJudged: "whether a ServiceAccount exists, and the Service IP range, are the cluster's: manifests do not show them",
    mutate: (o) => [
      ...(o.kind === "Pod" ? [{ field: ["spec", "serviceAccountName"], value: "absent" }] : []),
      ...(o.kind === "Service" ? [{ field: ["spec", "clusterIP"], value: "192.168.0.10" }] : []),
    ],
  },
  {
    name: "unknown apiVersion",
    mutate: (o) => [
      { field: ["apiVersion"], value: "extensions/v1beta1" },
      { field: ["apiVersion"], value: String(o.apiVersion).replace(/v\d+\w*$/, "v9") },
    ],
  },
];

/** Every mutant of one object, by the catalog, with a choice seeded by `seed`. */
export function mutants(object: Obj, schemas: Schemas, seed: number): Mutant[] {
  const all = sites(object, schemas);
  const pick = seeded(seed);
  return CATALOG.flatMap((cls) =>
    cls.mutate(object, all, pick).map(({ field, value }) => ({ class: cls.name, field: field.join("."), object: edited(object, field, value) })),
  );
}
