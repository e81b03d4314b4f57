// A requirement's text lives once, as data: rules, values refusals, `explain`
// and the docs read it; a rule adds only how it is judged.
import type { Judged, Opinion, Rule, RuleJudged, Severity, Source, SystemName } from "./engine.ts";

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
  /** How it is judged (absent: by a rule over manifests, wholly). */
  judged?: Judged;
  /** How the rule reads its fields beyond what every rule sees (READS_EVERY_RULE): quantities by value, paths cleaned... (`explain`). */
  reads?: string;
  /** Values that render refuses with this ID (a system's requirement; the G- ones are in each system's `generalRefusedBy`). */
  refusedBy?: RefusedBy;
  /** Why no values can break it; a requirement has this or refusing values, never both. */
  noValues?: string;
}

/** One change to a values file: the key at `at` set to `value`, or deleted. */
export type ValuesEdit = { at: readonly (string | number)[]; value: unknown } | { at: readonly (string | number)[]; delete: true };

/** Values that break a requirement: edits to a bundled example of its system, and the key path render's refusal names. */
export interface RefusedBy {
  edits: readonly ValuesEdit[];
  path: string;
  /** Another of the system's bundled examples (a values kind's `example`); by default its first values kind's. */
  example?: string;
}

/** A requirement with its ID. */
export type RequirementEntry = RequirementData & { readonly id: string };

/** A file's requirements by ID, in the file's order; each entry knows its ID. */
export type Requirements<T> = { readonly [K in keyof T & string]: T[K] & { readonly id: K } };

export function defineRequirements<T extends Record<string, RequirementData>>(data: T): Requirements<T> {
  return Object.fromEntries(Object.entries(data).map(([id, entry]) => [id, { id, ...entry }])) as Requirements<T>;
}

/** A requirement a rule over manifests judges: it has a severity and a fix. */
export type RuledRequirement = RequirementEntry & { readonly severity: Severity; readonly fix: string; readonly judged?: RuleJudged };

/** How a rule judges its requirement: the check, and whether render's self-check may skip it. */
export type Judge = Pick<Rule, "check"> & Partial<Pick<Rule, "provenForRendered">>;

/** A rule: its requirement's data plus how it is judged. */
export function rule(requirement: RuledRequirement, judge: Judge): Rule {
  return { ...requirement, ...judge };
}
