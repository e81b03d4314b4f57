// Reading plain Kubernetes objects whose shape nobody has checked: paths, lists, label selectors.

export function dig(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

export function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

interface Selector {
  matchLabels?: Record<string, unknown> | null;
  matchExpressions?: { key?: unknown; operator?: unknown; values?: unknown }[] | null;
}

/** Whether a LabelSelector selects `labels` as the API server evaluates it; a malformed selector selects nothing. */
export function selects(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  if (selector === undefined || selector === null) return true;
  if (!isRecord(selector)) return false;
  const { matchLabels, matchExpressions } = selector as Selector;
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isRecord(matchLabels)) return false;
    if (!Object.entries(matchLabels).every(([key, value]) => labels[key] === value)) return false;
  }
  if (matchExpressions !== undefined && matchExpressions !== null) {
    if (!Array.isArray(matchExpressions)) return false;
    for (const expression of matchExpressions) {
      if (!isRecord(expression) || typeof expression.key !== "string") return false;
      const has = Object.hasOwn(labels, expression.key);
      const values = Array.isArray(expression.values) ? expression.values : [];
      const value = labels[expression.key];
      const ok =
        expression.operator === "In"
          ? has && values.includes(value)
          : expression.operator === "NotIn"
            ? !has || !values.includes(value)
            : expression.operator === "Exists"
              ? has
              : expression.operator === "DoesNotExist"
                ? !has
                : false;
      if (!ok) return false;
    }
  }
  return true;
}
