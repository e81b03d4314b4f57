// An object is its group, kind, namespace and name: the same object given
// twice is judged once, as the last copy kubectl applies.
import { isDeepStrictEqual } from "node:util";
import type { K8sObject } from "../k8s/objects.ts";
import type { Note } from "./notes.ts";
import type { Provenance } from "./provenance.ts";

/** `group/kind/namespace/name`; a version is not part of it (the API server stores one object across versions). */
export function identityKey(object: K8sObject): string {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group}/${object.kind}/${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
}

/** The objects with each identity once, at its last copy's place; one note per identity given more than once. */
export function duplicatesMerged(objects: readonly K8sObject[], provenance: Provenance, notes: Note[]): K8sObject[] {
  const copies = new Map<string, K8sObject[]>();
  for (const object of objects) {
    // An object without a name is for the schema to refuse, not one identity with every other.
    if (typeof object.metadata?.name !== "string" || object.metadata.name === "") continue;
    const key = identityKey(object);
    const list = copies.get(key);
    if (list) list.push(object);
    else copies.set(key, [object]);
  }
  const kept = new Set<K8sObject>();
  for (const list of copies.values()) {
    const last = list[list.length - 1];
    kept.add(last);
    if (list.length === 1) continue;
    const written = provenance.input(last);
    const differ = list.some((copy) => !isDeepStrictEqual(provenance.input(copy), written));
    const { kind, metadata } = last;
    notes.push({
      object: last,
      path: [],
      severity: differ ? "error" : "warning",
      message: differ
        ? `${kind} ${metadata.name} is given ${list.length} times and the copies differ: kubectl applies each, the last one wins; judged as the last`
        : `${kind} ${metadata.name} is given ${list.length} times: judged once`,
    });
  }
  return objects.filter((object) => typeof object.metadata?.name !== "string" || object.metadata.name === "" || kept.has(object));
}
