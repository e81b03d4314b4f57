// The normalising stage's notes and objects, as check reports them.
import type { K8sObject } from "../k8s/objects.ts";
import { NOTE_BECAUSE, type Normalised, type Note } from "../normalise/index.ts";
import type { Finding, SystemName } from "../rules/engine.ts";
import { OBJECTS_RULE } from "./pseudo-rules.ts";

/** The normalising stage's notes as findings of its pseudo-rule. */
export function noteFindings(notes: readonly Note[], profileOf: Map<K8sObject, SystemName>): Finding[] {
  return notes.map((note) => ({
    object: note.object,
    path: note.path,
    message: note.message,
    id: OBJECTS_RULE.id,
    profile: profileOf.get(note.object),
    severity: note.severity,
    fix: OBJECTS_RULE.fix,
    ...(note.severity === "warning" ? { because: NOTE_BECAUSE } : {}),
  }));
}

/** Each input object's profile, from its normalised copy's. */
export function inputProfiles(normal: Normalised, profileOf: Map<K8sObject, SystemName>): Map<K8sObject, SystemName> {
  const out = new Map<K8sObject, SystemName>();
  for (const [object, profile] of profileOf) out.set(normal.provenance.input(object), profile);
  return out;
}
