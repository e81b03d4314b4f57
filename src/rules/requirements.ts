// Every requirement ID in one list, for `explain`, `check` and the docs: the
// general requirement file and each system's, read as data.
import type { Judged, Opinion, Rule, Source, SystemName } from "./engine.ts";
import { generalRequirements } from "./general-requirements.ts";
import type { JudgedSystem } from "./judged-system.ts";
import type { RequirementEntry } from "./requirement-data.ts";

export interface Requirement {
  id: string;
  profiles: readonly SystemName[];
  /** Undefined for requirements no rule reports. */
  severity?: Rule["severity"];
  summary: string;
  fix?: string;
  why?: string;
  /** Where it comes from (a source document, upstream, or rigging's choice and why). */
  source?: Source;
  /** rigging's own hardening under the ID: warnings, each with its reason. */
  opinions?: readonly Opinion[];
  /** How it is judged: from manifests, or what it needs instead. */
  judged: Judged;
  /** How values meet it (Markdown), for its system page's list. */
  inValues?: string;
  /** How a rule over manifests reads its fields (`explain`). */
  reads?: string;
}

/** What every rule over manifests reads: the object Kubernetes runs, not the text. */
export const READS_EVERY_RULE =
  "after the API server's defaults for the object (serviceAccount as serviceAccountName, requests from limits, the token's expirationSeconds 3600), with Secret, ConfigMap and projected mounts read-only as the kubelet mounts them; each container's environment as the kubelet builds it: env over envFrom, valueFrom and envFrom read from the ConfigMaps in the input (a Secret's keys as references to it, never values), $(VAR) expanded; one object per kind, namespace and name; an omitted namespace as the one every other object names. What the input cannot show (a ConfigMap elsewhere) is not judged.";

const FROM_MANIFESTS = "rule over manifests (render's self-check and check)";

/** Every requirement's data, the general ones first, then each system's (reading a system's loads its chunk). */
export function requirementEntries(systems: readonly JudgedSystem[]): RequirementEntry[] {
  return [...Object.values(generalRequirements(systems)), ...systems.flatMap((system) => Object.values(system.requirements))];
}

const WHOLLY: Judged = { by: "manifests" };

/** How a requirement is judged, in words (`explain`); the docs name the manifests' judges their own way. */
export function judgedText(judged: Judged, fromManifests = FROM_MANIFESTS): string {
  switch (judged.by) {
    case "elsewhere":
      return judged.where;
    case "not-manifests":
      return `not from manifests: ${judged.from}`;
    case "manifests":
      return judged.except ? `${fromManifests}; not judged: ${judged.except}` : fromManifests;
  }
}

export function requirements(systems: readonly JudgedSystem[]): Requirement[] {
  const compare = idOrder(systems);
  return requirementEntries(systems)
    .map((r): Requirement => {
      const judged = r.judged ?? WHOLLY;
      return {
        id: r.id,
        profiles: r.profiles,
        summary: r.summary,
        ...(judged.by === "elsewhere" ? {} : { severity: r.severity, fix: r.fix, why: r.why }),
        ...(r.source ? { source: r.source } : {}),
        ...(r.opinions ? { opinions: Object.values(r.opinions) } : {}),
        judged,
        ...(r.inValues ? { inValues: r.inValues } : {}),
        ...(r.severity && judged.by === "manifests" ? { reads: r.reads ? `${r.reads}; ${READS_EVERY_RULE}` : READS_EVERY_RULE } : {}),
      };
    })
    .sort((a, b) => compare(a.id, b.id));
}

/** How IDs sort: G- first, then each system's prefix in the systems' order; numbers in numeric order. */
export function idOrder(systems: readonly JudgedSystem[]): (a: string, b: string) => number {
  const prefixes = ["G", ...systems.map((s) => s.idPrefix)];
  const rank = (prefix: string) => (prefixes.includes(prefix) ? prefixes.indexOf(prefix) : prefixes.length);
  return (a, b) => {
    const [pa, na] = split(a);
    const [pb, nb] = split(b);
    return rank(pa) - rank(pb) || pa.localeCompare(pb, "en") || na - nb || (a < b ? -1 : a > b ? 1 : 0);
  };
}

function split(id: string): [string, number] {
  const match = /^([A-Z]+)-(\d+)/.exec(id);
  return match ? [match[1], Number(match[2])] : [id, 0];
}

/** A requirement's source, as the rules table shows it. */
export function sourceText(r: Pick<Requirement, "source">): string {
  if (!r.source) return "-";
  // Users know the source documents by their public names, which `says` gives: the label says only what kind of source it is.
  const from = r.source.from === "rigging" ? "rigging's choice" : r.source.from;
  return `${from}: ${r.source.says}`;
}
