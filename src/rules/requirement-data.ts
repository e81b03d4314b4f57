// A requirement's text lives once, as data: rules, values refusals, `explain`
// and the docs read it; a rule adds only how it is judged.
import type { Opinion, Rule, Severity, Source, SystemName } from "./engine.ts";

export interface RequirementData {
  summary: string;
  profiles: readonly SystemName[];
  /** Why it exists and what breaks without it, in the source documents' words where they help (`rigging explain`). */
  why?: string;
  /** How values meet it, in Markdown: keys, defaults, what is refused or warns; its system page's list shows it. */
  inValues?: string;
  /** What to change; values refusals and findings under the ID say it. */
  fix?: string;
  /** Where the requirement comes from (docs/rules.md shows it); its severity follows it. */
  source?: Source;
  /** Set when a rule over manifests reports it. */
  severity?: Severity;
  /** rigging's own hardening judged under this ID, by key: hits naming one are warnings. */
  opinions?: Readonly<Record<string, Opinion>>;
  /** What a finding puts at risk; security findings carry a security-severity in SARIF. Default security. */
  concern?: "security" | "reliability";
  /** Set when manifests cannot show the requirement: `check` reports it skipped with this note. */
  judgedFrom?: string;
  /** The part of the rule manifests cannot show; `check` lists it as not judged. */
  unjudged?: string;
  /** How the rule reads its fields beyond what every rule sees (READS_EVERY_RULE): quantities by value, paths cleaned... (`explain`). */
  reads?: string;
  /** Set when no rule over manifests judges it: where and how it is enforced instead. */
  enforcedBy?: string;
  /** For a requirement with `enforcedBy` that bears on manifests too: `check` lists it as not judged. */
  checkNote?: string;
}

/** A requirement with its ID. */
export type RequirementEntry = RequirementData & { readonly id: string };

/** A file's requirements by ID, in the file's order; each entry knows its ID. */
export type Requirements<T> = { readonly [K in keyof T & string]: T[K] & { readonly id: K } };

export function defineRequirements<T extends Record<string, RequirementData>>(data: T): Requirements<T> {
  return Object.fromEntries(Object.entries(data).map(([id, entry]) => [id, { id, ...entry }])) as Requirements<T>;
}

/** A requirement a rule over manifests judges: it has a severity and a fix. */
export type RuledRequirement = RequirementEntry & { readonly severity: Severity; readonly fix: string; readonly enforcedBy?: undefined };

/** How a rule judges its requirement: the check, and whether render's self-check may skip it. */
export type Judge = Pick<Rule, "check"> & Partial<Pick<Rule, "provenForRendered">>;

/** A rule: its requirement's data plus how it is judged. */
export function rule(requirement: RuledRequirement, judge: Judge): Rule {
  return { ...requirement, ...judge };
}
