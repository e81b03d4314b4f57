// Field-level comparison as apply sees it: server-written fields are ignored,
// against live objects only applied fields count, named lists match by name.
import type { K8sObject } from "../k8s/objects.ts";
import { isRecord } from "../k8s/access.ts";
import type { FieldChange } from "../systems/consequences.ts";
import { type Applied, appliedOf, KUBECTL_APPLY } from "./applied.ts";

/** Which side's fields are compared: both, or only those the applied side sets. */
type Mode = "both" | "old-applied" | "new-applied";

interface Walk {
  mode: Mode;
  out: FieldChange[];
}

export interface CompareOptions {
  /** The server-side apply managers whose fields an apply of the other side removes; kubectl's by default. */
  managers?: ReadonlySet<string>;
}

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

export function compareObjects(old: K8sObject, next: K8sObject, options: CompareOptions = {}): FieldChange[] {
  const oldLive = isLive(old);
  const newLive = isLive(next);
  const mode: Mode = oldLive && !newLive ? "new-applied" : newLive && !oldLive ? "old-applied" : "both";
  const managers = options.managers ?? new Set([KUBECTL_APPLY]);
  // The live side's record of what was applied tells a dropped field from a default.
  const record = mode === "new-applied" ? appliedOf(old, managers) : mode === "old-applied" ? appliedOf(next, managers) : undefined;
  const walk: Walk = { mode, out: [] };
  compare(withoutServerFields(old), withoutServerFields(next), "", walk, record);
  return walk.out;
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

function compare(old: unknown, next: unknown, path: string, w: Walk, record: Applied | undefined): void {
  if (isRecord(old) && isRecord(next)) compareMaps(old, next, path, w, record);
  else if (Array.isArray(old) && Array.isArray(next)) compareLists(old, next, path, w, record);
  else if (!sameScalar(old, next)) w.out.push({ path, old, new: next });
}

function compareMaps(old: Record<string, unknown>, next: Record<string, unknown>, path: string, w: Walk, record: Applied | undefined): void {
  const keys = new Set([...Object.keys(next), ...Object.keys(old)]);
  for (const key of [...keys].sort(byCodePoint)) {
    const at = path === "" ? key : `${path}.${key}`;
    const inOld = Object.hasOwn(old, key);
    const inNew = Object.hasOwn(next, key);
    if (inOld && inNew) compare(old[key], next[key], at, w, record?.field(key));
    else oneSided(inOld ? old[key] : next[key], at, inOld ? "old" : "new", w, record === undefined ? undefined : () => record.field(key), false);
  }
}

/** A field or item on one side only: a change, unless only the live side has it and its record says the apply leaves it. */
function oneSided(value: unknown, path: string, side: "old" | "new", w: Walk, record: (() => Applied) | undefined, item: boolean): void {
  const liveOnly = (side === "old" && w.mode === "new-applied") || (side === "new" && w.mode === "old-applied");
  if (!liveOnly) w.out.push(side === "old" ? { path, old: value } : { path, new: value });
  // Without a record, a live-only field stays as before: a default, or a list item reported as the lists differ.
  else if (!record) {
    if (item) w.out.push(side === "old" ? { path, old: value } : { path, new: value });
  } else dropped(value, path, side, w, record());
}

/** What an apply removes of a live-only value: all of it, or the parts an applying manager owns alone. */
function dropped(value: unknown, path: string, side: "old" | "new", w: Walk, record: Applied): void {
  if (record.removes) w.out.push(side === "old" ? { path, old: value } : { path, new: value });
  else if (record.shared && isRecord(value))
    for (const key of Object.keys(value).sort(byCodePoint)) dropped(value[key], `${path}.${key}`, side, w, record.field(key));
}

function compareLists(old: unknown[], next: unknown[], path: string, w: Walk, record: Applied | undefined): void {
  const key = itemKey(old, next);
  const liveList = w.mode === "old-applied" ? next : old;
  if (key === undefined) {
    // A list of scalars (args, command) or of different length changes as a whole; items of one length are compared in place.
    const whole = old.length !== next.length || (old.every(isScalarLike) && next.every(isScalarLike));
    if (!whole) for (let i = 0; i < old.length; i++) compare(old[i], next[i], `${path}[${i}]`, w, record?.item(liveList[i], i));
    else if (old.length !== next.length || old.some((item, i) => !sameScalar(item, next[i]))) w.out.push({ path, old, new: next });
    return;
  }
  const byKey = (list: unknown[]) => new Map(list.map((item, i) => [String((item as Record<string, unknown>)[key]), { item, i }]));
  const oldItems = byKey(old);
  const newItems = byKey(next);
  const liveRecord = (item: unknown, i: number) => (record === undefined ? undefined : () => record.item(item, i));
  for (const [name, { item, i }] of newItems) {
    const at = `${path}[${name}]`;
    const before = oldItems.get(name);
    if (before) compare(before.item, item, at, w, record?.item(w.mode === "old-applied" ? item : before.item, w.mode === "old-applied" ? i : before.i));
    else oneSided(item, at, "new", w, liveRecord(item, i), true);
  }
  for (const [name, { item, i }] of oldItems) if (!newItems.has(name)) oneSided(item, `${path}[${name}]`, "old", w, liveRecord(item, i), true);
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
