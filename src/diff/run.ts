// `rigging diff`'s result in one deterministic order, as text or JSON.
import { printable } from "../core/printable.ts";
import { MANAGED_BY } from "../k8s/labels.ts";
import type { K8sObject } from "../k8s/objects.ts";
import type { FieldChange, ObjectDiff } from "../systems/consequences.ts";
import { byCodePoint, type CompareOptions, compareObjects, isLive } from "./compare.ts";
import { judge, shortOf } from "./consequences.ts";
import type { Side } from "./inputs.ts";

export interface SidesDiff {
  diffs: ObjectDiff[];
  /** Objects on one side only that rigging did not render: not compared, never reported as removed. */
  notRigging: string[];
}

export function compareSides(old: Side, next: Side, options: CompareOptions = {}): SidesDiff {
  const keys = new Set([...old.objects.keys(), ...next.objects.keys()]);
  const diffs: ObjectDiff[] = [];
  const notRigging: string[] = [];
  for (const key of [...keys].sort(byCodePoint)) {
    const a = old.objects.get(key);
    const b = next.objects.get(key);
    if (a && b) {
      const fields = a.kind === "Secret" || b.kind === "Secret" ? compareObjects(a, b, options).map(hideSecret) : compareObjects(a, b, options);
      if (fields.length > 0) diffs.push({ key, change: "changed", old: a, new: b, fields, consequences: [] });
    } else if (a && !isRiggings(old, key, a)) notRigging.push(key);
    // Another's live object on NEW's side is not rigging's to add either.
    else if (b && isLive(b) && !isRiggings(next, key, b)) notRigging.push(key);
    else diffs.push({ key, change: a ? "removed" : "added", old: a, new: b, fields: [], consequences: [] });
  }
  judge(diffs, { old: [...old.objects.values()], new: [...next.objects.values()] });
  return { diffs, notRigging };
}

/** Rendered by rigging: its managed-by label, or read from a render or the files a render -o manifest lists. */
function isRiggings(side: Side, key: string, object: K8sObject): boolean {
  return side.rigging === "all" || side.rigging.has(key) || object.metadata?.labels?.["app.kubernetes.io/managed-by"] === MANAGED_BY;
}

const HIDDEN = "(secret value)";

/** A Secret's field with its values hidden where they are data: secrets never reach output. */
function hideSecret(field: FieldChange): FieldChange {
  if (!/^(data|stringData)(\.|\[|$)/.test(field.path)) return field;
  return { path: field.path, ...(field.old !== undefined ? { old: HIDDEN } : {}), ...(field.new !== undefined ? { new: HIDDEN } : {}) };
}

/** One line: how many objects, and what they do. */
export function summaryLine(diffs: readonly ObjectDiff[]): string {
  if (diffs.length === 0) return "no change";
  const count = (c: ObjectDiff["change"]) => diffs.filter((d) => d.change === c).length;
  const what = [...new Set(diffs.flatMap((d) => d.consequences.map((c) => c.short ?? shortOf(c.id))))];
  return `${count("changed")} changed, ${count("added")} added, ${count("removed")} removed${what.length > 0 ? `: ${what.join("; ")}` : ""}`;
}

const SIGN = { added: "+", removed: "-", changed: "~" } as const;
const SHOWN = 200;
const MAX_LINES = 40;

export function formatDiff(diffs: readonly ObjectDiff[], format: "text" | "json", notRigging: readonly string[] = []): string {
  if (format === "json") {
    const changes = diffs.map((d) => ({ object: d.key, change: d.change, fields: d.fields, consequences: d.consequences }));
    return `${JSON.stringify({ summary: summaryLine(diffs), changes, ...(notRigging.length > 0 ? { notRigging } : {}) }, null, 2)}\n`;
  }
  const lines: string[] = [];
  for (const d of diffs) {
    lines.push(`${SIGN[d.change]} ${printable(d.key)}`);
    for (const f of d.fields) {
      if (typeof f.old === "string" && typeof f.new === "string" && (f.old.includes("\n") || f.new.includes("\n")))
        lines.push(`    ${printable(f.path)}:`, ...changedLines(f.old, f.new));
      else lines.push(`    ${printable(f.path)}: ${shown(f.old)} -> ${shown(f.new)}`);
    }
    for (const c of d.consequences) lines.push(`  consequence: ${printable(c.message)}`);
  }
  if (notRigging.length > 0)
    lines.push(
      `not rigging's, not compared: ${notRigging.length} object(s) on one side only without the app.kubernetes.io/managed-by: ${MANAGED_BY} label (${printable(cut(notRigging))})`,
    );
  lines.push(`summary: ${summaryLine(diffs)}`);
  return `${lines.join("\n")}\n`;
}

/** The lines between the common first and last lines of two texts, each side's marked. */
function changedLines(old: string, next: string): string[] {
  const a = old.split("\n");
  const b = next.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const cut = (lines: string[], sign: string) => {
    const middle = lines.slice(start, lines.length - end);
    const out = middle.slice(0, MAX_LINES).map((line) => `      ${sign} ${printable(line.length > SHOWN ? `${line.slice(0, SHOWN)}...` : line)}`);
    if (middle.length > MAX_LINES) out.push(`      ${sign} ... (${middle.length - MAX_LINES} more lines)`);
    return out;
  };
  return [...cut(a, "-"), ...cut(b, "+")];
}

/** The first few names, and how many more. */
function cut(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/** A value as JSON, cut at a bound with its length said. */
function shown(value: unknown): string {
  if (value === undefined) return "(none)";
  const text = JSON.stringify(value);
  return printable(text.length > SHOWN ? `${text.slice(0, SHOWN)}... (${text.length} characters)` : text);
}
