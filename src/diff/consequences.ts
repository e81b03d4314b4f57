// What a change does: diff's own consequences of any object (a Deployment's
// rollout, an admission policy's), then each system's record (System.consequences).
import type { K8sObject } from "../k8s/objects.ts";
import { type Consequence, type ObjectDiff, type BothSides, strategyOf, type SystemConsequences } from "../systems/consequences.ts";
import { SYSTEMS, type System } from "../systems/registry.ts";

/** The few words of diff's own consequences, for a one-line summary; a system's record gives its own. */
export const OWN_SHORT: Readonly<Record<string, string>> = {
  "server-downtime": "downtime (Recreate)",
  rollout: "rollout",
  admission: "admission changes at once",
  removed: "removal",
  added: "addition",
};

const ADMISSION_KINDS = new Set([
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
]);

/** Each system's consequences record once, however many systems share it, in the registry's order. */
export function consequenceRecords(systems: readonly System[] = SYSTEMS): SystemConsequences[] {
  return [...new Set(systems.flatMap((s) => (s.consequences ? [s.consequences] : [])))];
}

/** The consequences of each object's change, the systems' included; `diffs` is changed in place. */
export function judge(diffs: ObjectDiff[], sides: BothSides, systems: readonly System[] = SYSTEMS): void {
  const records = consequenceRecords(systems);
  for (const diff of diffs) diff.consequences = ownConsequences(diff, records);
  for (const record of records) record.judge(diffs, sides);
  for (const diff of diffs) diff.consequences = diff.consequences.filter((c, i, all) => all.findIndex((o) => o.message === c.message) === i);
}

/** The few words of a consequence id: diff's own, else the first record's that words it. */
export function shortOf(id: string, systems: readonly System[] = SYSTEMS): string | undefined {
  return OWN_SHORT[id] ?? consequenceRecords(systems).find((r) => Object.hasOwn(r.short, id))?.short[id];
}

/** A Deployment's rollout, or downtime under Recreate, unless a system words its restart; and an admission change. */
function ownConsequences(diff: ObjectDiff, records: readonly SystemConsequences[]): Consequence[] {
  const object = (diff.new ?? diff.old)!;
  const out: Consequence[] = [];
  const template = diff.change === "changed" && diff.fields.some((f) => f.path.startsWith("spec.template."));
  if (object.kind === "Deployment" && template && !records.some((r) => r.restartsItself?.(object))) {
    const strategy = strategyOf(object);
    const who = nameOf(object, records);
    if (strategy === "Recreate")
      out.push({
        id: "server-downtime",
        message: `downtime: under Recreate ${who}'s pod stops before its new pod starts, so ${who} is down until the new pod is ready`,
      });
    else out.push({ id: "rollout", message: `${who} rolls out new pods (${strategy})` });
  }
  if (ADMISSION_KINDS.has(object.kind))
    out.push({
      id: "admission",
      message: `takes effect at once, for every request the API server admits from then on, no restart needed${diff.change === "removed" ? "; removed, it stops guarding at once" : ""}`,
    });
  return out;
}

/** A Deployment in a message: as its system names it, else by its name. */
function nameOf(deployment: K8sObject, records: readonly SystemConsequences[]): string {
  for (const record of records) {
    const name = record.nameOf?.(deployment);
    if (name !== undefined) return name;
  }
  return `${deployment.metadata.name}`;
}
