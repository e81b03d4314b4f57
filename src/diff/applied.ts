// What a live object records as applied: kubectl's last-applied-configuration
// annotation and the managed fields of the managers that apply (fieldsV1), so
// that a field the new render drops is told from a default or another's field.
import type { K8sObject } from "../k8s/objects.ts";
import { isRecord, list } from "../k8s/access.ts";

/** The server-side apply manager `kubectl apply --server-side` records. */
export const KUBECTL_APPLY = "kubectl";
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Keys that name a list item in the annotation, as compare.ts matches items. */
const ITEM_KEYS = ["name", "mountPath", "devicePath", "containerPort", "port", "ip"];

/** A set of fields as a trie: a map's keys, a list's items by group (`k:` key names, `v`, `i`) and canonical value. */
interface FieldSet {
  fields: Map<string, FieldSet>;
  items: Map<string, Map<string, FieldSet>>;
}

const VALUE = "v";
const INDEX = "i";

/** Where a walk stands in each record of one live object. */
export class Applied {
  constructor(
    /** kubectl's annotation: client-side apply deletes what it holds and the new config drops, whoever owns it. */
    private readonly annotation: readonly FieldSet[],
    /** The applying managers' sets (operation Apply). */
    private readonly applied: readonly FieldSet[],
    /** Every other manager's set: a field one of them owns too stays after a server-side apply. */
    private readonly others: readonly FieldSet[],
  ) {}

  field(key: string): Applied {
    const at = (sets: readonly FieldSet[]) => sets.flatMap((s) => s.fields.get(key) ?? []);
    return new Applied(at(this.annotation), at(this.applied), at(this.others));
  }

  /** The record at a list item of the live object, by its key fields, its value or its index. */
  item(item: unknown, index: number): Applied {
    const at = (sets: readonly FieldSet[]) => sets.flatMap((s) => itemSets(s, item, index));
    return new Applied(at(this.annotation), at(this.applied), at(this.others));
  }

  /** Applying a config without this field removes it (or resets it to its default). */
  get removes(): boolean {
    return this.annotation.length > 0 || (this.applied.length > 0 && this.others.length === 0);
  }

  /** An applying manager owns this field with another: only the parts it owns alone go. */
  get shared(): boolean {
    return this.annotation.length === 0 && this.applied.length > 0 && this.others.length > 0;
  }
}

/** The record of `live`, or undefined when it has none (no annotation, managedFields not shown). */
export function appliedOf(live: K8sObject, managers: ReadonlySet<string>): Applied | undefined {
  const metadata = live.metadata as unknown as Record<string, unknown> | undefined;
  const annotation = lastApplied(metadata?.annotations);
  const applied: FieldSet[] = [];
  const others: FieldSet[] = [];
  for (const entry of list<unknown>(metadata?.managedFields)) {
    if (!isRecord(entry) || !isRecord(entry.fieldsV1)) continue;
    const set = fromFieldsV1(entry.fieldsV1);
    if (entry.operation === "Apply" && typeof entry.manager === "string" && managers.has(entry.manager)) applied.push(set);
    else others.push(set);
  }
  if (annotation === undefined && applied.length === 0 && others.length === 0) return undefined;
  return new Applied(annotation ? [annotation] : [], applied, others);
}

function lastApplied(annotations: unknown): FieldSet | undefined {
  const text = isRecord(annotations) ? annotations[LAST_APPLIED] : undefined;
  if (typeof text !== "string") return undefined;
  try {
    return fromValue(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function emptySet(): FieldSet {
  return { fields: new Map(), items: new Map() };
}

function add(set: FieldSet, group: string, key: string, child: FieldSet): void {
  let byKey = set.items.get(group);
  if (!byKey) set.items.set(group, (byKey = new Map()));
  byKey.set(key, child);
}

/** The fields an applied config sets: a list's items by the key every item has, else by value or index. */
function fromValue(value: unknown): FieldSet {
  const set = emptySet();
  if (isRecord(value)) for (const [key, child] of Object.entries(value)) set.fields.set(key, fromValue(child));
  else if (Array.isArray(value)) {
    const key = ITEM_KEYS.find((k) => value.every((item) => isRecord(item) && isKeyValue(item[k])));
    value.forEach((item, index) => {
      if (key !== undefined) add(set, `k:${JSON.stringify([key])}`, JSON.stringify([(item as Record<string, unknown>)[key]]), fromValue(item));
      else if (!isRecord(item) && !Array.isArray(item)) add(set, VALUE, JSON.stringify(item), emptySet());
      else add(set, INDEX, String(index), fromValue(item));
    });
  }
  return set;
}

/** fieldsV1: `f:NAME` a field, `k:{...}` an item by its key fields, `v:VALUE` a set's item, `i:N` an item by index, `.` the field itself. */
function fromFieldsV1(trie: Record<string, unknown>): FieldSet {
  const set = emptySet();
  for (const [key, child] of Object.entries(trie)) {
    const sub = isRecord(child) ? fromFieldsV1(child) : emptySet();
    if (key.startsWith("f:")) set.fields.set(key.slice(2), sub);
    else if (key.startsWith("i:")) add(set, INDEX, key.slice(2), sub);
    else if (key.startsWith("v:")) {
      const value = parsed(key.slice(2));
      if (value.ok) add(set, VALUE, JSON.stringify(value.value), sub);
    } else if (key.startsWith("k:")) {
      const value = parsed(key.slice(2));
      if (!value.ok || !isRecord(value.value)) continue;
      const names = Object.keys(value.value).sort();
      const fields = value.value;
      add(set, `k:${JSON.stringify(names)}`, JSON.stringify(names.map((n) => fields[n])), sub);
    }
  }
  return set;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The sets of `set` that hold a live list item. */
function itemSets(set: FieldSet, item: unknown, index: number): FieldSet[] {
  const out: FieldSet[] = [];
  for (const [group, byKey] of set.items) {
    let key: string | undefined;
    if (group === INDEX) key = String(index);
    else if (group === VALUE) key = isRecord(item) || Array.isArray(item) ? undefined : JSON.stringify(item);
    else if (isRecord(item)) key = JSON.stringify((JSON.parse(group.slice(2)) as string[]).map((n) => item[n]));
    const found = key === undefined ? undefined : byKey.get(key);
    if (found) out.push(found);
  }
  return out;
}

function isKeyValue(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number";
}
