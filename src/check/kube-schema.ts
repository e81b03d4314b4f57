// Strict validation against one Kubernetes version's upstream schema, as the
// API server would judge it (scripts/gen-kube-schemas.mjs).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BUILD } from "../core/build.ts";
import { UsageError } from "../core/errors.ts";
import { minorOf, minorVersion } from "../k8s/kube-version.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { closest } from "../values/values.ts";
import { packageRoot } from "../core/package-root.ts";
import { DEPRECATED_BECAUSE } from "./pseudo-rules.ts";
import { leafProblem } from "./kube-formats.ts";
import { requiredProblem } from "./kube-required.ts";
import { apiServerProblems } from "./kube-validate.ts";

/** dist/kube/index.json: every bundled version, the client it was read from, and the kinds it serves. */
export interface KubeIndex {
  default: string;
  versions: Record<string, { spec: string; client: string; kinds: Record<string, string[]> }>;
}

/** dist/kube/1.N.json: apiVersion -> kind -> model, and each model's fields (`f`), required fields (`r`), fields' upstream formats (`x`) and enums (`e`). */
interface VersionSchema {
  kinds: Record<string, Record<string, string>>;
  types: Record<string, { f: Record<string, string>; r?: string[]; x?: Record<string, string>; e?: Record<string, string[]> }>;
}

export interface SchemaHit {
  object: K8sObject;
  path: (string | number)[];
  severity: "error" | "warning";
  message: string;
  because?: string;
}

let index: KubeIndex | null | undefined;
const loaded = new Map<string, VersionSchema>();

/** Where the schemas are, and their files' extension: dist/kube/ of the package, or the executable's embedded files. */
function schemaFiles(): { dir: string; ext: string } | undefined {
  try {
    // The executable embeds them as .kube files beside its entry (scripts/build-binary.mjs).
    const [dir, ext] = BUILD?.binary ? [join(dirname(process.argv[1]), "dist", "kube"), ".kube"] : [join(packageRoot(), "dist", "kube"), ".json"];
    return existsSync(join(dir, `index${ext}`)) ? { dir, ext } : undefined;
  } catch {
    return undefined;
  }
}

const readSchema = (name: string): unknown => {
  const { dir, ext } = schemaFiles()!;
  return JSON.parse(readFileSync(join(dir, `${name}${ext}`), "utf8"));
};

/** The bundled versions, or undefined when this build carries no schemas. */
export function kubeIndex(): KubeIndex | undefined {
  if (index === undefined) index = schemaFiles() ? (readSchema("index") as KubeIndex) : null;
  return index ?? undefined;
}

/** The version `--kube-version` names (default: the index's, the newest with a real API server's enums); a usage error for any other. */
export function kubeVersion(given: string | undefined, known: KubeIndex): string {
  if (given === undefined) return known.default;
  const versions = Object.keys(known.versions);
  const list = `rigging knows ${versions.join(", ")} (default ${known.default})`;
  // A cluster's version as kubectl version prints it (v1.30.4) names its minor: the schema is the minor's.
  const minorOnly = minorVersion(given);
  if (!minorOnly) throw new UsageError(`--kube-version ${JSON.stringify(given)}: expected 1.N (or 1.N.P, v1.N.P); ${list}`);
  if (!Object.hasOwn(known.versions, minorOnly)) throw new UsageError(`--kube-version ${given}: no schema bundled for ${minorOnly}; ${list}`);
  return minorOnly;
}

function schemaOf(version: string): VersionSchema {
  let schema = loaded.get(version);
  if (!schema) {
    schema = readSchema(version) as VersionSchema;
    loaded.set(version, schema);
  }
  return schema;
}

/** A key of data read from JSON, by a name the user wrote: never one of Object.prototype's (constructor). */
const lookup = <T>(record: Record<string, T> | undefined, key: string): T | undefined => (record && Object.hasOwn(record, key) ? record[key] : undefined);

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");
const stable = (apiVersion: string) => /(?:^|\/)v\d+$/.test(apiVersion);

/** The schema's hits, the custom resources it has no schema for (unchecked, not failed), and what is not Kubernetes at all. */
export function schemaHits(
  objects: readonly K8sObject[],
  version: string,
  known: KubeIndex,
): { hits: SchemaHit[]; unchecked: K8sObject[]; foreign: K8sObject[] } {
  const schema = schemaOf(version);
  const hits: SchemaHit[] = [];
  const unchecked: K8sObject[] = [];
  const foreign: K8sObject[] = [];
  for (const object of objects) {
    const { apiVersion, kind } = object;
    const model = typeof apiVersion === "string" && typeof kind === "string" ? lookup(lookup(schema.kinds, apiVersion), kind) : undefined;
    if (model === undefined) {
      if (notKubernetes(object, version, known)) {
        foreign.push(object);
        continue;
      }
      const hit = notServed(object, version, known);
      if (hit) hits.push(hit);
      else unchecked.push(object);
      continue;
    }
    const deprecated = newerStable(apiVersion, kind, schema);
    if (deprecated)
      hits.push({
        object,
        path: ["apiVersion"],
        severity: "warning",
        message: `${apiVersion} ${kind} is deprecated: Kubernetes ${version} serves it as ${deprecated}, and a later release stops serving ${apiVersion}`,
        because: DEPRECATED_BECAUSE,
      });
    const walked = new Set<string>();
    walk(object, model, {
      schema,
      version,
      path: [],
      report: (path, message) => {
        walked.add(path.join("\0"));
        hits.push({ object, path, severity: "error", message });
      },
    });
    // What the API server's validation refuses beyond the schema (names, labels, ports, selectors), once per field.
    for (const problem of apiServerProblems(object as Record<string, unknown>, version))
      if (!walked.has(problem.path.join("\0"))) hits.push({ object, ...problem, severity: "error" });
  }
  return { hits, unchecked, foreign };
}

/**
 * YAML with an apiVersion and kind that is no Kubernetes object (skaffold/v4beta6 Config, an istio release note):
 * a group without a dot (which a CRD's has) that the version does not serve, of a kind no bundled version serves.
 * extensions/v1beta1 Deployment stays a removed built-in: Deployment is served elsewhere.
 */
export function notKubernetes(object: K8sObject, version: string, known: KubeIndex): boolean {
  const g = groupOf(String(object.apiVersion));
  if (g === "" || g.includes(".")) return false;
  if (Object.keys(known.versions[version].kinds).some((av) => groupOf(av) === g)) return false;
  const kind = String(object.kind);
  return !Object.values(known.versions).some((v) => Object.values(v.kinds).some((kinds) => kinds.includes(kind)));
}

/** The stable apiVersion of the same group that serves the kind, beside a beta or alpha one. */
function newerStable(apiVersion: string, kind: string, schema: VersionSchema): string | undefined {
  if (stable(apiVersion)) return undefined;
  const group = groupOf(apiVersion);
  return Object.keys(schema.kinds)
    .filter((v) => v !== apiVersion && groupOf(v) === group && stable(v) && lookup(schema.kinds[v], kind) !== undefined)
    .sort()
    .at(-1);
}

/** An apiVersion and kind the version does not serve: an error for a built-in group, undefined for a custom resource. */
function notServed(object: K8sObject, version: string, known: KubeIndex): SchemaHit | undefined {
  const apiVersion = String(object.apiVersion);
  const kind = String(object.kind);
  const group = groupOf(apiVersion);
  const versions = Object.keys(known.versions).sort((a, b) => minorOf(a) - minorOf(b));
  const serves = (v: string, av = apiVersion) => lookup(known.versions[v].kinds, av)?.includes(kind) ?? false;
  const servedBy = versions.filter((v) => serves(v));
  const groupServed = Object.keys(known.versions[version].kinds).some((av) => groupOf(av) === group);
  // A custom resource's group has a dot (a CRD's must); a built-in one (apps, extensions, core) has none.
  if (servedBy.length === 0 && group.includes(".") && !groupServed) return undefined;
  const elsewhere = Object.keys(known.versions[version].kinds).filter((av) => serves(version, av));
  const instead = elsewhere.length > 0 ? `; it serves ${kind} as ${elsewhere.join(", ")}` : `; it serves no ${kind}`;
  const older = servedBy.filter((v) => minorOf(v) < minorOf(version)).at(-1);
  const newer = servedBy.find((v) => minorOf(v) > minorOf(version));
  let when = "";
  if (older) {
    const next = versions.find((v) => minorOf(v) > minorOf(older))!;
    when = minorOf(next) === minorOf(older) + 1 ? `: removed in ${next} (${older} served it)` : `: removed after ${older}, by ${next}`;
  } else if (newer) {
    const before = versions.filter((v) => minorOf(v) < minorOf(newer)).at(-1)!;
    when = minorOf(before) === minorOf(newer) - 1 ? `: first served in ${newer}` : `: first served after ${before}, by ${newer}`;
  }
  return { object, path: ["apiVersion"], severity: "error", message: `${apiVersion} ${kind} is not served by Kubernetes ${version}${when}${instead}` };
}

type Report = (path: (string | number)[], message: string) => void;

/** What a walk carries: the schema, the version's name, where to report, and the path so far (a stack, copied only to report). */
interface Walk {
  schema: VersionSchema;
  version: string;
  report: Report;
  path: (string | number)[];
}

const describe = (value: unknown) =>
  Array.isArray(value) ? "a list" : value === null ? "null" : typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;

/** A field's upstream format and the values its enum allows, carried down to its leaves. */
interface Leaf {
  format?: string;
  values?: string[];
}

/** Walks a value by its compact type: a model's name, []ITEM, {}VALUE, or a leaf with its field's format and enum. */
function walk(value: unknown, type: string, at: Walk, leaf: Leaf = {}): void {
  // An explicit null is an unset field to the API server.
  if (value === null) return;
  const { path } = at;
  if (type.startsWith("[]") || type.startsWith("{}")) {
    const list = type.startsWith("[]");
    if (list ? !Array.isArray(value) : !isMapping(value)) {
      at.report([...path], `expected ${list ? "a list" : "a mapping"}, got ${describe(value)}`);
      return;
    }
    const item = type.slice(2);
    if (list) for (let i = 0; i < (value as unknown[]).length; i++) step(at, i, (value as unknown[])[i], item, leaf);
    else for (const key of Object.keys(value as object)) step(at, key, (value as Record<string, unknown>)[key], item, leaf);
    return;
  }
  const model = Object.hasOwn(at.schema.types, type) ? at.schema.types[type] : undefined;
  if (model === undefined) {
    // kubectl reads YAML 1.1, where y, n, yes, no, on and off are booleans.
    const quote =
      typeof value === "boolean" && (type === "string" || type === "int-or-string") ? " (YAML 1.1 reads y, n, yes, no, on, off as booleans: quote it)" : "";
    if (!leafAccepts(type, value)) at.report([...path], `expected ${LEAVES[type] ?? type}, got ${describe(value)}${quote}`);
    else {
      const problem = leafProblem(type, value, leaf.format) ?? enumProblem(value, leaf.values, path);
      if (problem) at.report([...path], problem);
    }
    return;
  }
  if (!isMapping(value)) {
    at.report([...path], `expected a mapping (${type}), got ${describe(value)}`);
    return;
  }
  for (const field of model.r ?? []) {
    if (value[field] === undefined) at.report([...path], `missing required field "${field}" (${type})`);
    else {
      const problem = requiredProblem(type, field, value[field]);
      if (problem) at.report([...path, field], problem);
    }
  }
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(model.f, key)) step(at, key, value[key], model.f[key], { format: lookup(model.x, key), values: lookup(model.e, key) });
    else {
      const near = closest(key, Object.keys(model.f));
      at.report([...path, key], `unknown field "${key}": ${type} of Kubernetes ${at.version} has no such field${near ? ` (did you mean ${near}?)` : ""}`);
    }
  }
}

function step(at: Walk, key: string | number, value: unknown, type: string, leaf: Leaf): void {
  at.path.push(key);
  walk(value, type, at, leaf);
  at.path.pop();
}

/** A string outside its field's enum, as the API server's validation refuses it; status is not judged (a create drops it). */
function enumProblem(value: unknown, values: string[] | undefined, path: readonly (string | number)[]): string | undefined {
  if (values === undefined || typeof value !== "string" || values.includes(value) || path[0] === "status") return undefined;
  const near = closest(value, values);
  const shown = values.map((v) => (v === "" ? '""' : v)).join(", ");
  return `${JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)} is not one of ${shown}${near ? ` (did you mean ${near}?)` : ""}`;
}

const LEAVES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean (true or false)",
  "int-or-string": "an integer or a string",
  quantity: "a quantity (a string such as 500m or 128Mi, or a number)",
};

function leafAccepts(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "int-or-string":
      return typeof value === "string" || Number.isInteger(value);
    case "quantity":
      return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
    default:
      return true;
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
