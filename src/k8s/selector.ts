// Label selectors as sets of requirements, read as apimachinery's
// metav1.LabelSelectorAsSelector and labels.NewRequirement do
// (pkg/apis/meta/v1/helpers.go, pkg/labels/selector.go): `matchLabels: {a: x}`
// is the requirement `a In [x]`, and two selectors are the same when they select the same labels.
import { isLabelKey, isLabelValue } from "./names.ts";

export type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

/** One requirement, its values sorted and without repeats (none for Exists and DoesNotExist). */
export interface Requirement {
  key: string;
  operator: SelectorOperator;
  values: string[];
}

const OPERATORS: readonly string[] = ["In", "NotIn", "Exists", "DoesNotExist"];

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const show = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : v === undefined ? "missing" : (JSON.stringify(v) ?? String(v)));

/**
 * A selector's requirements, sorted, repeats merged; or why the API server rejects it. An absent
 * (null) selector is the empty one, which selects everything, as a NetworkPolicy's podSelector;
 * where null selects nothing (a PodDisruptionBudget), the caller checks for it first.
 */
export function selectorRequirements(selector: unknown): { requirements: Requirement[] } | { error: string } {
  if (selector === undefined || selector === null) return { requirements: [] };
  if (!isRecord(selector)) return { error: `a label selector is an object with matchLabels and matchExpressions, not ${show(selector)}` };
  const out = new Map<string, Requirement>();
  const add = (r: Requirement) => out.set(JSON.stringify([r.key, r.operator, r.values]), r);
  const { matchLabels, matchExpressions } = selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) return { error: `matchLabels is a map of label keys to values, not ${show(matchLabels)}` };
    for (const [key, value] of Object.entries(matchLabels)) {
      if (!isLabelKey(key)) return { error: `matchLabels: ${show(key)} is not a valid label key` };
      if (typeof value !== "string" || !isLabelValue(value)) return { error: `matchLabels[${show(key)}]: ${show(value)} is not a valid label value` };
      add({ key, operator: "In", values: [value] });
    }
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) return { error: `matchExpressions is a list, not ${show(matchExpressions)}` };
    for (const [i, expression] of matchExpressions.entries()) {
      const r = requirementOf(expression, `matchExpressions[${i}]`);
      if ("error" in r) return r;
      add(r);
    }
  }
  return { requirements: [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r) };
}

/** One matchExpressions entry as labels.NewRequirement checks it. */
function requirementOf(expression: unknown, where: string): Requirement | { error: string } {
  if (!isRecord(expression)) return { error: `${where} is an object with key, operator and values, not ${show(expression)}` };
  const { key, operator, values } = expression;
  if (typeof key !== "string" || !isLabelKey(key)) return { error: `${where}.key: ${show(key)} is not a valid label key` };
  if (typeof operator !== "string" || !OPERATORS.includes(operator))
    return { error: `${where}: ${show(operator)} is not a valid label selector operator (key ${show(key)}); use In, NotIn, Exists or DoesNotExist` };
  if (values !== undefined && values !== null && !Array.isArray(values)) return { error: `${where}.values is a list of strings, not ${show(values)}` };
  const list: unknown[] = values ?? [];
  const needsValues = operator === "In" || operator === "NotIn";
  if (needsValues && list.length === 0) return { error: `${where}: operator ${operator} (key ${show(key)}) needs at least one value` };
  if (!needsValues && list.length > 0) return { error: `${where}: operator ${operator} (key ${show(key)}) takes no values` };
  for (const v of list) {
    if (typeof v !== "string" || !isLabelValue(v)) return { error: `${where}.values: ${show(v)} is not a valid label value (key ${show(key)})` };
  }
  return { key, operator: operator as SelectorOperator, values: [...new Set(list as string[])].sort() };
}

/** Whether one requirement holds for `labels` (labels.Requirement.Matches). */
function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case "In":
      return has && r.values.includes(labels[r.key]);
    case "NotIn":
      return !has || !r.values.includes(labels[r.key]);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
  }
}

/** Whether `selector` selects `labels`; a selector the API server rejects selects nothing. */
export function selectsLabels(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  const parsed = selectorRequirements(selector);
  return "requirements" in parsed && parsed.requirements.every((r) => holds(r, labels));
}

/** What one key's requirements allow together: a normal form, so equal forms allow the same values. */
type KeyForm =
  | { kind: "absent" }
  | { kind: "in"; values: string[] }
  | { kind: "present-not-in"; values: string[] }
  | { kind: "absent-or-not-in"; values: string[] };

/** A selector as the label sets it selects, by key; undefined when it selects nothing at all. */
function normalForm(requirements: readonly Requirement[]): Map<string, KeyForm> | undefined {
  const byKey = new Map<string, { present?: boolean; allowed?: Set<string>; denied: Set<string> }>();
  for (const r of requirements) {
    const k = byKey.get(r.key) ?? { denied: new Set<string>() };
    byKey.set(r.key, k);
    if (r.operator === "DoesNotExist") {
      if (k.present === true) return undefined;
      k.present = false;
    } else {
      if (k.present === false && r.operator !== "NotIn") return undefined;
      if (r.operator !== "NotIn") k.present = true;
      if (r.operator === "In") k.allowed = new Set(r.values.filter((v) => k.allowed === undefined || k.allowed.has(v)));
      if (r.operator === "NotIn") for (const v of r.values) k.denied.add(v);
    }
  }
  const forms = new Map<string, KeyForm>();
  for (const [key, k] of [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k.present === false) forms.set(key, { kind: "absent" });
    else if (k.allowed !== undefined) {
      const values = [...k.allowed].filter((v) => !k.denied.has(v)).sort();
      if (values.length === 0) return undefined;
      forms.set(key, { kind: "in", values });
    } else forms.set(key, { kind: k.present ? "present-not-in" : "absent-or-not-in", values: [...k.denied].sort() });
  }
  return forms;
}

/**
 * Whether two selectors select the same label sets: `matchLabels: {a: x}` is `a In [x]`, repeats and
 * order do not count, `Exists` with `In` is the `In`. Two selectors the API server rejects are never the same.
 */
export function sameSelector(a: unknown, b: unknown): boolean {
  const ra = selectorRequirements(a);
  const rb = selectorRequirements(b);
  if ("error" in ra || "error" in rb) return false;
  const fa = normalForm(ra.requirements);
  const fb = normalForm(rb.requirements);
  if (fa === undefined || fb === undefined) return fa === fb;
  return JSON.stringify([...fa]) === JSON.stringify([...fb]);
}
