// A system page's list of its requirements, from its requirement file; pure,
// written by scripts/gen-docs.ts.
import { requirements } from "../rules/requirements.ts";

export const REQUIREMENTS_CLOSE = "<!-- /requirements -->";
const OPEN = /^<!-- requirements:([a-z-]+) -->$/;

/** One item per requirement of the system: ID, summary, how it is judged when no rule over manifests does; how values meet it nested below. */
export function requirementList(system: string): string {
  const own = requirements().filter((r) => r.profiles.length === 1 && r.profiles[0] === system);
  if (own.length === 0) throw new Error(`no requirements of a system named ${system}`);
  return own
    .map((r) => `- **${r.id}** ${r.summary}${r.severity ? "" : ` (how judged: ${r.judged})`}${r.inValues ? `\n  - In values: ${r.inValues}` : ""}`)
    .join("\n");
}

/** Replaces (or fills in) every requirements block of a markdown page. */
export function refreshRequirementLists(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const open = OPEN.exec(lines[i].trim());
    if (!open) continue;
    const close = lines.findIndex((line, j) => j > i && line.trim() === REQUIREMENTS_CLOSE);
    const nextOpen = lines.findIndex((line, j) => j > i && OPEN.test(line.trim()));
    out.push("", requirementList(open[1]), "", REQUIREMENTS_CLOSE);
    if (close >= 0 && (nextOpen < 0 || close < nextOpen)) i = close;
  }
  return out.join("\n");
}
