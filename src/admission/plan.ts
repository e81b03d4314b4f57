// Every bound policy of a set, compiled once, each expression marked with what
// it may be answered from (shared, memo, guard or class).
import type { K8sObject } from "../k8s/objects.ts";
import { uniqueTests, type Blind, type Test, type Tests } from "./classes.ts";
import { compileExpression, type CompiledProgram } from "./compile.ts";
import type { Evaluator } from "./engine.ts";
import type { Memo } from "./memo.ts";
import type { Guard, Reads } from "./reads.ts";
import type { AdmissionRun } from "./run.ts";
import { dig, isRecord, list } from "../k8s/access.ts";

/** A policy found in a set, with its CEL planned once. */
export interface Planned {
  policy: K8sObject;
  bindings: K8sObject[];
  failClosed: boolean;
  matchConditions: ({ path: PropertyKey[] } & Slot)[];
  variables: ({ name: string } & Slot)[];
  validations: ({ path: PropertyKey[]; message: string } & Slot)[];
  /** What its expressions test of who asks, when all of them pass the proof of classes.ts. */
  tests?: Tests;
}

/** An expression in its place in a policy. */
export interface Slot {
  fn: Evaluator;
  /** Its answer is the same whoever asks: kept per request. */
  shared: boolean;
  /** What it reads, when that is plain, and its answers by what it read. */
  reads?: Reads;
  memo?: Memo;
  /** Leading variable terms that may decide it alone (reads.ts, `guardOf`). */
  guard?: Guard;
  /** What it does with who asks, when that passes the proof of classes.ts. */
  blind?: Blind;
}

/** A CEL expression that the API server would refuse, with where it is. */
export interface Uncompiled {
  object: K8sObject;
  path: PropertyKey[];
  message: string;
}

/** The longest CEL expression evaluated (the API server's own limit on one is 5 KiB). */
export const MAX_EXPRESSION = 64 * 1024;

/** Plans every bound policy of the set; expressions that do not compile are returned apart. */
export function planPolicies(run: AdmissionRun, objects: readonly K8sObject[]): { planned: Planned[]; uncompiled: Uncompiled[] } {
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
  const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
  const planned: Planned[] = [];
  const uncompiled: Uncompiled[] = [];
  for (const policy of policies) {
    const entry = planPolicy(run, policy, bindings, uncompiled);
    if (entry) planned.push(entry);
  }
  return { planned, uncompiled };
}

/** One policy planned, or undefined when one of its expressions does not compile (the API server refuses it: it decides nothing). */
function planPolicy(run: AdmissionRun, policy: K8sObject, bindings: readonly K8sObject[], uncompiled: Uncompiled[]): Planned | undefined {
  const spec = isRecord(policy.spec) ? policy.spec : {};
  const compile = (expression: unknown, path: PropertyKey[]): CompiledProgram | undefined => {
    const refused = refusal(run, expression);
    if (typeof refused === "string") uncompiled.push({ object: policy, path, message: refused });
    return typeof refused === "string" ? undefined : refused;
  };
  const entry: Planned = {
    policy,
    bindings: bindings.filter((b) => dig(b, ["spec", "policyName"]) === policy.metadata.name),
    failClosed: spec.failurePolicy !== "Ignore",
    matchConditions: [],
    variables: [],
    validations: [],
  };
  if (!planSlots(entry, spec, compile)) return undefined;
  const tests = run.plain ? undefined : testsOf(run, entry, spec);
  if (tests) entry.tests = tests;
  return entry;
}

/** The compiled expression, or why the API server refuses it. */
function refusal(run: AdmissionRun, expression: unknown): CompiledProgram | string {
  if (typeof expression !== "string") return "the expression is not a string";
  // Read no further than the API server would: the CEL parser is not linear on hostile text.
  if (expression.length > MAX_EXPRESSION)
    return `is ${expression.length} characters long, over the ${MAX_EXPRESSION} rigging evaluates: the API server refuses such a policy`;
  const compiled = compileExpression(run, expression);
  return "fn" in compiled ? compiled : `does not compile (${compiled.error}): the API server refuses the policy`;
}

/** Fills the entry's slots; false when an expression does not compile. */
function planSlots(entry: Planned, spec: Record<string, unknown>, compile: (expression: unknown, path: PropertyKey[]) => CompiledProgram | undefined): boolean {
  const alike = (reads: Reads | undefined, names: ReadonlySet<string> | undefined): boolean =>
    reads !== undefined && !reads.userInfo && [...reads.variables].every((name) => names === undefined || names.has(name));
  const sharedNames = new Set<string>();
  const differingNames = new Set<string>();
  let broken = false;
  list<Record<string, unknown>>(spec.matchConditions).forEach((c, i) => {
    const compiled = compile(c?.expression, ["spec", "matchConditions", i, "expression"]);
    if (compiled) entry.matchConditions.push(slotOf(compiled, alike(compiled.reads, undefined), { path: ["spec", "matchConditions", i, "expression"] }));
    else broken = true;
  });
  list<Record<string, unknown>>(spec.variables).forEach((v, i) => {
    const compiled = compile(v?.expression, ["spec", "variables", i, "expression"]);
    if (!compiled || typeof v?.name !== "string") {
      broken = true;
      return;
    }
    const shared = alike(compiled.reads, sharedNames);
    entry.variables.push(slotOf(compiled, shared, { name: v.name }));
    if (shared && !differingNames.has(v.name)) sharedNames.add(v.name);
    else {
      sharedNames.delete(v.name);
      differingNames.add(v.name);
    }
  });
  list<Record<string, unknown>>(spec.validations).forEach((v, i) => {
    const compiled = compile(v?.expression, ["spec", "validations", i, "expression"]);
    if (!compiled) {
      broken = true;
      return;
    }
    const message = typeof v?.message === "string" ? v.message : `failed expression: ${String(v?.expression)}`;
    entry.validations.push(slotOf(compiled, alike(compiled.reads, sharedNames), { path: ["spec", "validations", i, "expression"], message }));
  });
  return !broken;
}

/** A slot: `place` with the program's parts, built by assignment so that every slot has one shape. */
function slotOf<T extends object>({ fn, reads, memo, guard, blind }: CompiledProgram, shared: boolean, place: T): Slot & T {
  const slot = place as Slot & T;
  slot.fn = fn;
  slot.shared = shared;
  slot.reads = reads && memo ? reads : undefined;
  slot.memo = reads && memo ? memo : undefined;
  slot.guard = guard;
  slot.blind = blind;
  return slot;
}

/** What a planned policy tests of who asks, when all of it passes classes.ts's proof. */
function testsOf(run: AdmissionRun, entry: Planned, spec: Record<string, unknown>): Tests | undefined {
  const user: Test[] = [];
  const group: Test[] = [];
  const defined = new Map<string, number>();
  entry.variables.forEach((v, i) => defined.set(v.name, defined.has(v.name) ? -1 : i));
  const add = (blind: Blind | undefined, before: number): boolean => {
    if (!blind) return false;
    user.push(...blind.user);
    group.push(...blind.group);
    for (const [names, into] of [
      [blind.userLists, user],
      [blind.groupLists, group],
    ] as const) {
      for (const name of names) {
        const at = defined.get(name) ?? -1;
        const strings = at >= 0 && at < before ? entry.variables[at].blind?.strings : undefined;
        if (!strings) return false;
        for (const value of strings) into.push({ op: "==" as const, value });
      }
    }
    return true;
  };
  if (!entry.matchConditions.every((c) => add(c.blind, 0))) return undefined;
  if (!entry.variables.every((v, i) => add(v.blind, i))) return undefined;
  const all = entry.variables.length;
  if (!entry.validations.every((v) => add(v.blind, all))) return undefined;
  for (const v of list<Record<string, unknown>>(spec.validations)) {
    const text = v?.messageExpression;
    if (text === undefined) continue;
    if (typeof text !== "string" || text.length > MAX_EXPRESSION) return undefined;
    const compiled = compileExpression(run, text);
    if (!("fn" in compiled) || !add(compiled.blind, all)) return undefined;
  }
  return { user: uniqueTests(user), group: uniqueTests(group) };
}

/** What a set tests of who asks: every policy's tests, or undefined when one of them does not pass the proof. */
export function setTests(planned: readonly Planned[]): Tests | undefined {
  const user: Test[] = [];
  const group: Test[] = [];
  for (const entry of planned) {
    if (!entry.tests) return undefined;
    user.push(...entry.tests.user);
    group.push(...entry.tests.group);
  }
  return { user: uniqueTests(user), group: uniqueTests(group) };
}
