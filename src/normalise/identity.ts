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

/** The objects with each identity once, at its last copy's place; copies that differ are named. */
export function duplicatesMerged(objects: readonly K8sObject[], provenance: Provenance, notes: Note[]): K8sObject[] {
  const last = new Map<string, K8sObject>();
  for (const object of objects) {
    // An object without a name is for the schema to refuse, not one identity with every other.
    if (typeof object.metadata?.name !== "string" || object.metadata.name === "") continue;
    const key = identityKey(object);
    const before = last.get(key);
    last.set(key, object);
    if (!before) continue;
    const same = isDeepStrictEqual(provenance.input(before), provenance.input(object));
    notes.push({
      object,
      path: [],
      severity: same ? "warning" : "error",
      message: same
        ? `${object.kind} ${object.metadata.name} is given twice: judged once`
        : `${object.kind} ${object.metadata.name} is given twice and the copies differ: kubectl applies both, the last one wins; judged as the last`,
    });
  }
  return objects.filter((object) => typeof object.metadata?.name !== "string" || object.metadata.name === "" || last.get(identityKey(object)) === object);
}
