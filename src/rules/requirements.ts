// Every requirement ID in one list, for `explain` and the docs: the rules of
// the catalog and the requirements enforced only in values, tests or notes.
import { allRules } from "./catalog.ts";
import type { Opinion, SystemName, Rule, Source } from "./engine.ts";
import { ID_PREFIXES } from "./systems.ts";
import { VALUES_ONLY } from "./values-only.ts";

export interface Requirement {
  id: string;
  profiles: readonly SystemName[];
  /** Undefined for requirements no rule reports. */
  severity?: Rule["severity"];
  summary: string;
  fix?: string;
  why?: string;
  /** Where it comes from (seed, upstream, or rigging's choice and why). */
  source?: Source;
  /** rigging's own hardening under the ID: warnings, each with its reason. */
  opinions?: readonly Opinion[];
  /** How it is judged: from manifests, or what it needs instead. */
  judged: string;
}

export const FROM_MANIFESTS = "rule over manifests (render's self-check and check)";

export function requirements(): Requirement[] {
  const fromRules: Requirement[] = allRules().map((rule) => ({
    id: rule.id,
    profiles: rule.profiles,
    severity: rule.severity,
    summary: rule.summary,
    fix: rule.fix,
    why: rule.why,
    ...(rule.source ? { source: rule.source } : {}),
    ...(rule.opinions ? { opinions: Object.values(rule.opinions) } : {}),
    judged: rule.judgedFrom ? `not from manifests: ${rule.judgedFrom}` : rule.unjudged ? `${FROM_MANIFESTS}; not judged: ${rule.unjudged}` : FROM_MANIFESTS,
  }));
  const ruled = new Set(fromRules.map((r) => r.id));
  const others: Requirement[] = VALUES_ONLY.filter((entry) => !ruled.has(entry.id)).map((entry) => ({
    id: entry.id,
    profiles: entry.profiles,
    summary: entry.summary,
    judged: entry.enforcedBy,
  }));
  return [...fromRules, ...others].sort((a, b) => compareIds(a.id, b.id));
}

/** G- first, then each system's prefix in the registry's order; numbers in numeric order. */
export function compareIds(a: string, b: string): number {
  const [pa, na] = split(a);
  const [pb, nb] = split(b);
  return rank(pa) - rank(pb) || pa.localeCompare(pb, "en") || na - nb || (a < b ? -1 : a > b ? 1 : 0);
}

function split(id: string): [string, number] {
  const match = /^([A-Z]+)-(\d+)/.exec(id);
  return match ? [match[1], Number(match[2])] : [id, 0];
}

function rank(prefix: string): number {
  const index = ID_PREFIXES.indexOf(prefix);
  return index < 0 ? ID_PREFIXES.length : index;
}

/** A requirement's source, as the rules table shows it. */
export function sourceText(r: Pick<Requirement, "source">): string {
  if (!r.source) return "-";
  const from = r.source.from === "seed" ? "seed" : r.source.from === "upstream" ? "upstream" : "rigging's choice";
  return `${from}: ${r.source.says}`;
}
