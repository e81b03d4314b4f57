// A program's answers by the values it read, shared across policies with the
// same text; answers that read an installation's own objects stay local to it.
import type { Asking, Prepared } from "./decide.ts";
import type { Outcome } from "./evaluate.ts";
import type { Reads } from "./reads.ts";
import type { AdmissionRun } from "./run.ts";

const ANSWER = Symbol("answer");

/** Bounded in two generations: an answer found in the old one is kept young again, so answers asked across installations stay. */
export class Memo {
  static readonly MAX = 512;
  private young = new Map<unknown, unknown>();
  private old = new Map<unknown, unknown>();
  private size = 0;
  /** The answer kept for these read values (a tree with one level per value read, so that no key is ever built or hashed whole). */
  get(parts: readonly unknown[]): Outcome | undefined {
    const young = Memo.find(this.young, parts);
    if (young) return young;
    const old = Memo.find(this.old, parts);
    if (old) this.set(parts, old);
    return old;
  }
  set(parts: readonly unknown[], outcome: Outcome): void {
    if (this.size >= Memo.MAX) {
      this.old = this.young;
      this.young = new Map();
      this.size = 0;
    }
    let node = this.young;
    for (const part of parts) {
      let next = node.get(part) as Map<unknown, unknown> | undefined;
      if (!next) node.set(part, (next = new Map()));
      node = next;
    }
    node.set(ANSWER, outcome);
    this.size++;
  }
  private static find(root: Map<unknown, unknown>, parts: readonly unknown[]): Outcome | undefined {
    let node: Map<unknown, unknown> | undefined = root;
    for (const part of parts) {
      node = node.get(part) as Map<unknown, unknown> | undefined;
      if (!node) return undefined;
    }
    return node.get(ANSWER) as Outcome | undefined;
  }
}

const UNSET = Symbol("unset");
const NEGATIVE_ZERO = Symbol("-0");

/** What an expression read, in order: scalars by value, the rest by identity. */
export function memoKey(run: AdmissionRun, reads: Reads, asking: Asking, variables: ReadonlyMap<string, unknown>): { parts: unknown[]; local: boolean } {
  const { ready, user, groups } = asking;
  const parts: unknown[] = [];
  for (const field of reads.request) {
    let part = ready.fieldKeys.get(field);
    if (part === undefined) ready.fieldKeys.set(field, (part = JSON.stringify(ready.request[field as keyof Prepared["request"]]) ?? "-"));
    parts.push(part);
  }
  for (const field of reads.user) {
    if (field === "username" || field === "uid") parts.push(user);
    else if (field === "groups") parts.push(groupsKey(run, groups));
    else parts.push(user, groupsKey(run, groups));
  }
  // An object of this installation (one of its objects, or a value computed from them) keys an answer for this installation only.
  let local = false;
  for (const name of reads.variables) {
    const value = variables.get(name);
    parts.push(variables.has(name) ? part(value) : UNSET);
    if (typeof value === "object" && value !== null && !run.sharedValues.has(value)) local = true;
  }
  for (const root of reads.roots) {
    const value = ready.base[root];
    parts.push(part(value));
    if (typeof value === "object" && value !== null) local = true;
  }
  return { parts, local };
}

/** A value as a memo key: a Map takes -0 for 0, and CEL does not (1.0 / -0.0). */
function part(value: unknown): unknown {
  return Object.is(value, -0) ? NEGATIVE_ZERO : value;
}

function groupsKey(run: AdmissionRun, groups: readonly string[] | undefined): string {
  if (groups === undefined) return "-";
  let key = run.groupKeys.get(groups);
  if (key === undefined) run.groupKeys.set(groups, (key = JSON.stringify(groups)));
  return key;
}
