// The stage between reading and the rules: each manifest as the object the API
// server stores, each container's settings as the kubelet and the program see them.
import { dig, isRecord, list } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { POD_SPEC_PATH } from "../k8s/pod-spec.ts";
import { cloneData } from "./clone.ts";
import { resolveContainer, sourceKey } from "./environment.ts";
import { duplicatesMerged } from "./identity.ts";
import { applyNamespace, isNamespaced } from "./namespaces.ts";
import type { Note } from "./notes.ts";
import { DEFAULTED_KINDS, defaultObject } from "./objects.ts";
import { Provenance } from "./provenance.ts";
import { selectorNotes } from "./selectors.ts";

export type { Note } from "./notes.ts";
export { NOTE_BECAUSE } from "./notes.ts";
export type { Written } from "./provenance.ts";

export interface Normalised {
  /** What the rules read: one object per identity, defaults and environments in place. */
  objects: K8sObject[];
  provenance: Provenance;
  notes: Note[];
}

/** The input's objects as Kubernetes will run them; the input is left as it was. */
export function normalise(input: readonly K8sObject[]): Normalised {
  const notes: Note[] = [];
  const provenance = new Provenance();
  const namespace = applyNamespace(input, notes);
  const copies = input.map((object) => {
    const placed = namespace !== undefined && isNamespaced(object.kind) && !object.metadata?.namespace;
    if (!placed && !DEFAULTED_KINDS.has(object.kind)) {
      provenance.record(object, object);
      return object;
    }
    const copy = cloneData(object);
    if (placed) copy.metadata = { ...copy.metadata, namespace };
    provenance.record(copy, object);
    return copy;
  });
  // A namespace placed above is the one the note named; notes point at normalised objects.
  for (const note of notes) note.object = copies[input.indexOf(note.object)] ?? note.object;
  const objects = duplicatesMerged(copies, provenance, notes);
  const sources = new Map<string, K8sObject>();
  for (const object of objects)
    if (object.kind === "ConfigMap" || object.kind === "Secret")
      sources.set(sourceKey(object.kind, object.metadata?.namespace ?? "", object.metadata?.name), object);
  for (const object of objects) {
    if (!DEFAULTED_KINDS.has(object.kind)) continue;
    for (const move of defaultObject(object)) provenance.move(object, move.from, move.to);
    const path = POD_SPEC_PATH[object.kind];
    const spec = path ? dig(object, path) : undefined;
    if (path && isRecord(spec)) {
      for (const field of ["initContainers", "containers", "ephemeralContainers"]) {
        list<unknown>(spec[field]).forEach((container, index) => {
          if (!isRecord(container)) return;
          for (const move of resolveContainer(object, container, [...path, field, index], sources, notes)) provenance.move(object, move.from, move.to);
        });
      }
    }
    for (const note of selectorNotes(object)) notes.push(note);
  }
  return { objects, provenance, notes };
}
