// IDs commands print besides requirements, so `explain` answers each.
import { LIVE_DECISIONS } from "../preflight/decisions.ts";
import { PSEUDO_RULES } from "./pseudo-rules.ts";
import { WAIVER_RULE } from "./waivers.ts";

/** Why a waiver's problems are findings. */
export const WAIVER_WHY = "A waiver that names no known warning, or gives no reason, would hide nothing or hide an error unseen.";

export interface OtherId {
  id: string;
  summary: string;
  /** The paragraphs of its explanation, each with a heading. */
  sections: [string, string][];
}

export function otherIds(): OtherId[] {
  return [
    ...[...PSEUDO_RULES, { ...WAIVER_RULE, why: WAIVER_WHY }].map(
      (rule): OtherId => ({
        id: rule.id,
        summary: rule.summary,
        sections: [
          ["Reported", "by rigging check, beside the rules of the catalog (rigging rules lists them all)"],
          ["Why", rule.why],
          ...("opinions" in rule && rule.opinions ? rule.opinions.map((o): [string, string] => ["Warning", `${o.summary}: ${o.because}`]) : []),
          ["Fix", rule.fix],
        ],
      }),
    ),
    ...LIVE_DECISIONS.map(
      (d): OtherId => ({
        id: d.id,
        summary: `decision ${d.id} of the Compass Server-on-Kubernetes design: ${d.decision}`,
        sections: [
          ["Bears on", d.requirements.join(", ")],
          ["Checked", d.checked],
          ["By", d.command.replace(/`/g, "")],
        ],
      }),
    ),
  ];
}
