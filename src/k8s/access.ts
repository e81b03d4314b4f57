// Reading plain Kubernetes objects whose shape nobody has checked: paths, lists, label selectors.
import { selectsLabels } from "./selector.ts";

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

/** Whether a LabelSelector selects `labels` as the API server evaluates it; a malformed selector selects nothing. */
export function selects(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  return selectsLabels(selector, labels);
}
