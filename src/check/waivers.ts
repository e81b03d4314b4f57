// Waivers (`rigging.dev/waive`, docs/check.md) keep a warning out of the
// verdict with a reason; an invalid waiver is itself an error.
import type { K8sObject } from "../k8s/objects.ts";
import { closest } from "../values/values.ts";
import { canWarn, type Rule, type RuleHit } from "../rules/engine.ts";

export const WAIVER_ANNOTATION = "rigging.dev/waive";
/** The rule ID of findings about waiver annotations themselves. */
export const WAIVER_RULE_ID = "waiver";
/** Longer annotations are refused before they are read. */
export const WAIVER_MAX_LENGTH = 4096;

export const WAIVER_RULE = {
  id: WAIVER_RULE_ID,
  summary: `A ${WAIVER_ANNOTATION} annotation names known rule IDs, each with a reason, and waives only warnings`,
  fix: `write ${WAIVER_ANNOTATION}: "ID[, ID]: reason[; ID: reason]" with the IDs of warnings (rigging explain lists them) and a reason each`,
} as const;

/** The waivers an object carries: rule ID to reason, and the problems of its annotation. */
export interface ObjectWaivers {
  reasons: Map<string, string>;
  problems: RuleHit[];
}

const ID_LIST = /^[A-Za-z]+-\d+$/;

/** The rules that judge an object: its profile's, when it has one. */
export interface Judges {
  profile: string;
  rules: readonly Rule[];
}

/** Reads an object's waiver annotation against the catalog, and against the rules of its profile (`judges`) when it has one. */
export function waiversOf(object: K8sObject, catalog: readonly Rule[], judges?: Judges): ObjectWaivers {
  const reasons = new Map<string, string>();
  const problems: RuleHit[] = [];
  const annotations = object.metadata?.annotations;
  if (annotations === null || typeof annotations !== "object" || !Object.hasOwn(annotations, WAIVER_ANNOTATION)) return { reasons, problems };
  const path = ["metadata", "annotations", WAIVER_ANNOTATION];
  const problem = (message: string) => problems.push({ object, path, message });
  const text: unknown = (annotations as Record<string, unknown>)[WAIVER_ANNOTATION];
  if (typeof text !== "string") return problem(`${WAIVER_ANNOTATION} is not a string`), { reasons, problems };
  if (text.length > WAIVER_MAX_LENGTH)
    return problem(`${WAIVER_ANNOTATION} is ${text.length} characters long, over the limit of ${WAIVER_MAX_LENGTH}`), { reasons, problems };
  const known = byId(catalog);
  const own = judges ? byId(judges.rules) : known;
  for (const raw of text.split(/[;\n]/)) {
    const entry = raw.trim();
    if (entry === "") continue;
    const colon = entry.indexOf(":");
    const idsText = colon < 0 ? entry : entry.slice(0, colon);
    const reason = colon < 0 ? "" : entry.slice(colon + 1).trim();
    const ids = idsText.split(/[\s,]+/).filter(Boolean);
    if (ids.length === 0) {
      problem(`${JSON.stringify(entry)} names no rule ID (write "ID: reason")`);
      continue;
    }
    if (!/\p{L}/u.test(reason)) {
      problem(`the waiver of ${ids.join(", ")} gives no reason (write "${ids.join(", ")}: why the warning does not apply here")`);
      continue;
    }
    for (const raw of ids) {
      const id = raw.toUpperCase();
      const rules = ID_LIST.test(id) ? own.get(id) : undefined;
      if (!rules) {
        problem(unknownId(raw, known, own, judges));
      } else if (!rules.some(canWarn)) {
        const where = judges && known.get(id)!.some(canWarn) ? ` on ${judges.profile} objects` : "";
        problem(`${id} is an error${where} (${rules[0].summary}); errors cannot be waived, only rigging's own warnings`);
      } else reasons.set(id, reason);
    }
  }
  return { reasons, problems };
}

function byId(rules: readonly Rule[]): Map<string, Rule[]> {
  const out = new Map<string, Rule[]>();
  for (const rule of rules) out.set(rule.id, [...(out.get(rule.id) ?? []), rule]);
  return out;
}

/** Why a waiver's ID waives nothing: no rule has it, or none of the rules that judge this object. */
function unknownId(raw: string, known: Map<string, Rule[]>, own: Map<string, Rule[]>, judges: Judges | undefined): string {
  const id = raw.toUpperCase();
  const elsewhere = ID_LIST.test(id) ? known.get(id) : undefined;
  if (elsewhere && judges) {
    const profiles = [...new Set(elsewhere.flatMap((rule) => rule.profiles))].join(", ");
    return `${id} is not a rule of ${judges.profile}, the profile of this object (it judges ${profiles} objects)`;
  }
  const near = closest(id, [...own.keys()]);
  return `${JSON.stringify(raw)} is not a rule ID${near ? ` (did you mean ${near}?)` : ""}`;
}
