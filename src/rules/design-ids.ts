// Whose a task (P1-P9) or decision (D1-D10) ID is: a text that names one
// says so once, so a reader never meets a bare ID (docs/glossary.md explains each).

/** The public name of the document the IDs belong to. */
export const DESIGN = "the Compass Server-on-Kubernetes design";

const DESIGN_ID = /\b(?:P[1-9]|D(?:10|[1-9]))\b/g;

/** A sentence saying whose the IDs `text` names are; undefined when it names none or names the design already. */
export function designIdsNote(text: string): string | undefined {
  if (text.includes("Server-on-Kubernetes design")) return undefined;
  const ids = [...new Set(text.match(DESIGN_ID) ?? [])];
  if (ids.length === 0) return undefined;
  const decisions = ids.filter((id) => id.startsWith("D"));
  const tasks = ids.filter((id) => id.startsWith("P"));
  const parts = [
    ...(decisions.length ? [`${decisions.join(", ")} ${decisions.length === 1 ? "is a decision" : "are decisions"}`] : []),
    ...(tasks.length ? [`${tasks.join(", ")} ${tasks.length === 1 ? "is a task" : "are tasks"}`] : []),
  ];
  return `${parts.join(", ")}${parts.length > 1 ? "," : ""} of ${DESIGN} (docs/glossary.md).`;
}
