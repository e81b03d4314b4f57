// A system page's list of its requirements, from its requirement file; pure,
// written by scripts/gen-docs.ts.
import { refreshBlocks } from "./blocks.ts";
import { judgedText } from "../rules/requirements.ts";
import { catalog } from "../systems/registry.ts";

export const REQUIREMENTS_CLOSE = "<!-- /requirements -->";

/** One item per requirement of the system: ID, summary, how it is judged when no rule over manifests does; how values meet it nested below. */
export function requirementList(system: string): string {
  const own = catalog.requirements().filter((r) => r.profiles.length === 1 && r.profiles[0] === system);
  if (own.length === 0) throw new Error(`no requirements of a system named ${system}`);
  return own
    .map((r) => `- **${r.id}** ${r.summary}${r.severity ? "" : ` (how judged: ${judgedText(r.judged)})`}${r.inValues ? `\n  - In values: ${r.inValues}` : ""}`)
    .join("\n");
}

/** Replaces (or fills in) every requirements block of a markdown page. */
export function refreshRequirementLists(markdown: string): string {
  return refreshBlocks(markdown, "requirements", requirementList);
}
