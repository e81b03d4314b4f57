// Each container's environment as the kubelet builds it (pkg/kubelet/kubelet_pods.go
// makeEnvironmentVariables): envFrom, then env in order, $(VAR) expanded, from
// the ConfigMaps and Secrets in the input. What the input cannot show stays a reference.
import { isRecord, list } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { EXPANDED_LIMIT, expand, references } from "./expand.ts";
import type { Move } from "./objects.ts";
import type { Note } from "./notes.ts";

type Node = Record<string, unknown>;

/** ConfigMaps and Secrets of the input by `Kind/namespace/name`. */
export type Sources = ReadonlyMap<string, K8sObject>;

export function sourceKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

interface Entry {
  env: Node;
  /** Where the entry was written, inside the container. */
  from: PropertyKey[];
  /** The value when the input shows it. */
  value?: string;
}

/** Rewrites one container's env into the kubelet's, leaving unresolved envFrom entries; returns the moves and notes. */
export function resolveContainer(object: K8sObject, container: Node, at: PropertyKey[], sources: Sources, notes: Note[]): Move[] {
  // A list of the wrong type is the schema's to report; the rules read it as written.
  for (const field of ["env", "envFrom"]) if (container[field] !== undefined && container[field] !== null && !Array.isArray(container[field])) return [];
  const namespace = object.metadata?.namespace ?? "";
  const entries = new Map<string, Entry>();
  const unresolved: unknown[] = [];
  const read = new Set<string>();
  list<Node>(container.envFrom).forEach((source, index) => {
    const ref = isRecord(source?.configMapRef)
      ? { kind: "ConfigMap", ref: source.configMapRef }
      : isRecord(source?.secretRef)
        ? { kind: "Secret", ref: source.secretRef }
        : undefined;
    const found = ref && typeof ref.ref.name === "string" ? sources.get(sourceKey(ref.kind, namespace, ref.ref.name)) : undefined;
    if (!ref || !found) {
      unresolved.push(source);
      return;
    }
    const key = sourceKey(ref.kind, namespace, String(ref.ref.name));
    if (read.has(key))
      notes.push({
        object,
        path: [...at, "envFrom", index],
        severity: "warning",
        message: `${ref.kind} ${ref.ref.name} is read by two envFrom entries: the later one's variables win`,
      });
    read.add(key);
    const prefix = typeof source.prefix === "string" ? source.prefix : "";
    for (const [name, value] of dataOf(found)) {
      const env =
        ref.kind === "ConfigMap" ? { name: prefix + name, value } : { name: prefix + name, valueFrom: { secretKeyRef: { name: ref.ref.name, key: name } } };
      entries.set(prefix + name, { env, from: ["envFrom", index], ...(ref.kind === "ConfigMap" ? { value } : {}) });
    }
  });
  const known = (name: string) => entries.get(name)?.value;
  const definedAt = new Map<string, number>();
  list<Node>(container.env).forEach((env, index) => isRecord(env) && typeof env.name === "string" && definedAt.set(env.name, index));
  list<Node>(container.env).forEach((env, index) => {
    if (!isRecord(env) || typeof env.name !== "string") return;
    if (typeof env.value === "string") forwardNotes(object, env, [...at, "env", index], index, definedAt, entries, notes);
    const entry = explicitEntry(object, env, [...at, "env", index], known, sources, notes);
    if (entry === null) entries.delete(env.name);
    else {
      // A Map keeps the first insertion's place; the kubelet's list is in the order of the last definition.
      entries.delete(env.name);
      entries.set(env.name, { ...entry, from: ["env", index] });
    }
  });
  const moves: Move[] = [];
  const env = [...entries.values()];
  if (env.length > 0 || container.env !== undefined) container.env = env.map((e) => e.env);
  env.forEach((e, i) => moves.push({ from: [...at, "env", i], to: [...at, ...e.from] }));
  if (unresolved.length > 0) container.envFrom = unresolved;
  else delete container.envFrom;
  for (const field of ["command", "args"]) {
    if (Array.isArray(container[field])) container[field] = (container[field] as unknown[]).map((w) => (typeof w === "string" ? (expand(w, known) ?? w) : w));
  }
  return moves;
}

/** A warning for each $(NAME) of a value that only a later entry defines: the kubelet leaves it as written (so does a cycle). */
function forwardNotes(
  object: K8sObject,
  env: Node,
  path: PropertyKey[],
  index: number,
  definedAt: ReadonlyMap<string, number>,
  entries: ReadonlyMap<string, Entry>,
  notes: Note[],
): void {
  for (const name of new Set(references(env.value as string))) {
    if (name === env.name || entries.has(name) || (definedAt.get(name) ?? -1) <= index) continue;
    notes.push({
      object,
      path: [...path, "value"],
      severity: "warning",
      message: `${env.name} refers to $(${name}), which is defined after it: the kubelet leaves $(${name}) as written; define ${name} first`,
    });
  }
}

/** One env entry as the kubelet reads it: expanded, a ConfigMap key of the input read, or null when it sets nothing. */
function explicitEntry(
  object: K8sObject,
  env: Node,
  path: PropertyKey[],
  known: (name: string) => string | undefined,
  sources: Sources,
  notes: Note[],
): Omit<Entry, "from"> | null {
  if (typeof env.value === "string" && env.value !== "") {
    if (references(env.value).includes(env.name as string) && known(env.name as string) === undefined)
      notes.push({
        object,
        path: [...path, "value"],
        severity: "warning",
        message: `${env.name} refers to itself: the kubelet leaves $(${env.name}) as written`,
      });
    const value = expand(env.value, known);
    if (value === undefined) {
      notes.push({
        object,
        path: [...path, "value"],
        severity: "warning",
        message: `${env.name} expands past ${EXPANDED_LIMIT} characters: judged as written`,
      });
      return { env };
    }
    return { env: { name: env.name, value }, value };
  }
  const ref = isRecord(env.valueFrom) ? env.valueFrom.configMapKeyRef : undefined;
  if (isRecord(ref) && typeof ref.name === "string" && typeof ref.key === "string") {
    const found = sources.get(sourceKey("ConfigMap", object.metadata?.namespace ?? "", ref.name));
    if (!found) return { env };
    const value = dataOf(found).get(ref.key);
    if (value !== undefined) return { env: { name: env.name, value }, value };
    if (ref.optional !== true)
      notes.push({
        object,
        path: [...path, "valueFrom", "configMapKeyRef", "key"],
        severity: "error",
        message: `ConfigMap ${ref.name} has no key ${ref.key}: the kubelet does not start the container (CreateContainerConfigError)`,
      });
    return null;
  }
  if (isRecord(env.valueFrom) || (env.value !== undefined && env.value !== null && typeof env.value !== "string")) return { env };
  return { env: { name: env.name, value: "" }, value: "" };
}

/** The keys and values a ConfigMap or Secret gives the kubelet (a Secret's values are never read). */
function dataOf(source: K8sObject): Map<string, string> {
  const out = new Map<string, string>();
  for (const field of source.kind === "Secret" ? ["data", "stringData"] : ["data"]) {
    const data = source[field];
    if (!isRecord(data)) continue;
    for (const [key, value] of Object.entries(data)) out.set(key, source.kind === "Secret" ? "" : String(value ?? ""));
  }
  return out;
}
