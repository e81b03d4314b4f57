// Field-level comparison as apply sees it: server-written fields are ignored,
// against live objects only applied fields count, named lists match by name.
import type { K8sObject } from "../k8s/objects.ts";
import { isRecord } from "../k8s/access.ts";

export interface FieldChange {
  /** spec.template.spec.containers[runner].image */
  path: string;
  old?: unknown;
  new?: unknown;
}

/** Which side's fields are compared: both, or only those the applied side sets. */
type Mode = "both" | "old-applied" | "new-applied";

const SERVER_METADATA = [
  "managedFields",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "selfLink",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
];
const SERVER_ANNOTATIONS = [
  "kubectl.kubernetes.io/last-applied-configuration",
  "deployment.kubernetes.io/revision",
  "deprecated.daemonset.template.generation",
];
/** Keys that name an item of a list, in the order they are tried. */
const ITEM_KEYS = ["name", "mountPath", "devicePath", "containerPort", "port", "ip"];

export function isLive(object: K8sObject): boolean {
  const m = object.metadata as unknown as Record<string, unknown> | undefined;
  return object.status !== undefined || ["managedFields", "uid", "resourceVersion", "creationTimestamp"].some((k) => m?.[k] !== undefined);
}

export function compareObjects(old: K8sObject, next: K8sObject): FieldChange[] {
  const oldLive = isLive(old);
  const newLive = isLive(next);
  const mode: Mode = oldLive && !newLive ? "new-applied" : newLive && !oldLive ? "old-applied" : "both";
  const changes: FieldChange[] = [];
  compare(withoutServerFields(old), withoutServerFields(next), "", mode, changes);
  return changes;
}

/** The object without what only the API server writes. */
function withoutServerFields(object: K8sObject): Record<string, unknown> {
  const { status: _status, ...rest } = object;
  const metadata = { ...(object.metadata as unknown as Record<string, unknown>) };
  for (const key of SERVER_METADATA) delete metadata[key];
  if (isRecord(metadata.annotations)) {
    const annotations = { ...metadata.annotations };
    for (const key of SERVER_ANNOTATIONS) delete annotations[key];
    metadata.annotations = annotations;
    if (Object.keys(annotations).length === 0) delete metadata.annotations;
  }
  return { ...rest, metadata };
}

function compare(old: unknown, next: unknown, path: string, mode: Mode, out: FieldChange[]): void {
  if (isRecord(old) && isRecord(next)) compareMaps(old, next, path, mode, out);
  else if (Array.isArray(old) && Array.isArray(next)) compareLists(old, next, path, mode, out);
  else if (!sameScalar(old, next)) out.push({ path, old, new: next });
}

function compareMaps(old: Record<string, unknown>, next: Record<string, unknown>, path: string, mode: Mode, out: FieldChange[]): void {
  const keys = new Set<string>();
  if (mode !== "old-applied") for (const k of Object.keys(next)) keys.add(k);
  if (mode !== "new-applied") for (const k of Object.keys(old)) keys.add(k);
  for (const key of [...keys].sort(byCodePoint)) {
    const at = path === "" ? key : `${path}.${key}`;
    const inOld = Object.hasOwn(old, key);
    const inNew = Object.hasOwn(next, key);
    if (inOld && inNew) compare(old[key], next[key], at, mode, out);
    else if (inNew) out.push({ path: at, new: next[key] });
    else out.push({ path: at, old: old[key] });
  }
}

function compareLists(old: unknown[], next: unknown[], path: string, mode: Mode, out: FieldChange[]): void {
  const key = itemKey(old, next);
  if (key === undefined) {
    // A list of scalars (args, command) or of different length changes as a whole; items of one length are compared in place.
    const whole = old.length !== next.length || (old.every(isScalarLike) && next.every(isScalarLike));
    if (!whole) for (let i = 0; i < old.length; i++) compare(old[i], next[i], `${path}[${i}]`, mode, out);
    else if (old.length !== next.length || old.some((item, i) => !sameScalar(item, next[i]))) out.push({ path, old, new: next });
    return;
  }
  const oldItems = new Map(old.map((item) => [String((item as Record<string, unknown>)[key]), item]));
  const newItems = new Map(next.map((item) => [String((item as Record<string, unknown>)[key]), item]));
  for (const [name, item] of newItems) {
    const at = `${path}[${name}]`;
    if (oldItems.has(name)) compare(oldItems.get(name), item, at, mode, out);
    else out.push({ path: at, new: item });
  }
  for (const [name, item] of oldItems) if (!newItems.has(name)) out.push({ path: `${path}[${name}]`, old: item });
}

/** The key every item of both lists has, distinct within each list; undefined when there is none. */
function itemKey(old: unknown[], next: unknown[]): string | undefined {
  const items = [...old, ...next];
  if (items.length === 0 || !items.every(isRecord)) return undefined;
  for (const key of ITEM_KEYS) {
    const ok = [old, next].every((list) => {
      const seen = new Set<string>();
      for (const item of list as Record<string, unknown>[]) {
        const value = item[key];
        if ((typeof value !== "string" && typeof value !== "number") || seen.has(String(value))) return false;
        seen.add(String(value));
      }
      return true;
    });
    if (ok) return key;
  }
  return undefined;
}

/** Scalars compare as apply sends them: 80 and "80" differ, 1 and 1.0 do not. */
function sameScalar(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isRecord(a) || isRecord(b) || Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

function isScalarLike(value: unknown): boolean {
  return value === null || typeof value !== "object";
}

export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
