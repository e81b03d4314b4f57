// Identities judged as classes: when every expression uses names only in
// tests against string literals, identities answering those tests alike are
// decided once. The proof is in docs/performance.md ("judged as classes").

import { isUserInfo, rootName } from "./reads.ts";

/** A test of a name against a literal. */
export interface Test {
  op: "==" | "startsWith" | "endsWith" | "contains";
  value: string;
}

/** What an expression does with who asks, when it passes the proof above. */
export interface Blind {
  /** The tests applied to the user name. */
  user: Test[];
  /** The tests applied to a group's name. */
  group: Test[];
  /** `NAME in variables.V`: V, for the user name and for a group's name. */
  userLists: string[];
  groupLists: string[];
  /** The expression is a list of string literals: their values (a variable `NAME in variables.V` may read). */
  strings?: string[];
}

interface Node {
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

type Source = "user" | "group";
const NAME_TESTS: ReadonlySet<string> = new Set(["startsWith", "endsWith", "contains"]);

/** `request.userInfo.FIELD`, plainly selected (not a `has()` test). */
function userField(node: Node | undefined, field: string): boolean {
  const value = node?.exprKind?.value;
  return node?.exprKind?.case === "selectExpr" && value?.field === field && value.testOnly !== true && isUserInfo(value.operand as Node);
}

function stringConst(node: Node | undefined): string | undefined {
  const constant = node?.exprKind?.case === "constExpr" ? (node.exprKind.value?.constantKind as { case?: string; value?: unknown } | undefined) : undefined;
  return constant?.case === "stringValue" && typeof constant.value === "string" ? constant.value : undefined;
}

function stringList(node: Node | undefined): string[] | undefined {
  const value = node?.exprKind?.value;
  if (node?.exprKind?.case !== "listExpr" || !Array.isArray(value?.elements)) return undefined;
  if (Array.isArray(value.optionalIndices) && value.optionalIndices.length > 0) return undefined;
  const out: string[] = [];
  for (const element of value.elements as Node[]) {
    const text = stringConst(element);
    if (text === undefined) return undefined;
    out.push(text);
  }
  return out;
}

/** `variables.NAME`: NAME. */
function variableRef(node: Node | undefined): string | undefined {
  const value = node?.exprKind?.value;
  if (node?.exprKind?.case !== "selectExpr" || value?.testOnly === true || typeof value?.field !== "string") return undefined;
  const operand = value.operand as Node | undefined;
  return operand?.exprKind?.case === "identExpr" && rootName(operand.exprKind.value?.name) === "variables" ? value.field : undefined;
}

/** A name: the user name, or a comprehension variable bound to a group's name. */
function sourceOf(node: Node | undefined, scope: ReadonlySet<string>): Source | undefined {
  if (userField(node, "username")) return "user";
  if (node?.exprKind?.case === "identExpr") {
    const name = rootName(node.exprKind.value?.name);
    if (name !== undefined && scope.has(name)) return "group";
  }
  return undefined;
}

/** Nodes still to visit, each with the comprehension variables bound to a group's name there. */
type Stack = [unknown, ReadonlySet<string>][];
type Fields = Record<string, unknown>;
type Push = (...nodes: unknown[]) => void;

/** What `expr` (the engine's Expr, as parsed) does with who asks; undefined when it does not pass the proof above. */
export function blindOf(expr: unknown): Blind | undefined {
  const blind: Blind = { user: [], group: [], userLists: [], groupLists: [] };
  const strings = stringList(expr as Node);
  if (strings) blind.strings = strings;
  // An explicit stack: a deep tree must not overflow the call stack here.
  const stack: Stack = [[expr, new Set()]];
  while (stack.length > 0) {
    const [node, scope] = stack.pop()! as [Node | undefined, ReadonlySet<string>];
    if (!visit(node, scope, blind, stack)) return undefined;
  }
  return blind;
}

/** One node against the proof: its tests noted, the nodes under it pushed; false when it fails. */
function visit(node: Node | undefined, scope: ReadonlySet<string>, blind: Blind, stack: Stack): boolean {
  const kind = node?.exprKind?.case;
  const value = node?.exprKind?.value;
  if (kind === "constExpr") return true;
  if (!value) return false;
  const push: Push = (...nodes) => {
    for (const n of nodes) stack.push([n, scope]);
  };
  switch (kind) {
    case "identExpr": {
      const name = rootName(value.name);
      return !(name === undefined || name === "request" || scope.has(name));
    }
    case "selectExpr":
      return visitSelect(value, push);
    case "callExpr":
      return visitCall(value, scope, blind, push);
    case "listExpr":
      if (!Array.isArray(value.elements)) return false;
      push(...value.elements);
      return true;
    case "structExpr":
      if (!Array.isArray(value.entries)) return false;
      for (const entry of value.entries as { keyKind?: { case?: string; value?: unknown }; value?: unknown }[]) {
        if (entry?.keyKind?.case === "mapKey") push(entry.keyKind.value);
        else if (entry?.keyKind?.case !== "fieldKey") return false;
        push(entry.value);
      }
      return true;
    case "comprehensionExpr":
      return visitComprehension(value, scope, stack);
    default:
      return false;
  }
}

function visitSelect(value: Fields, push: Push): boolean {
  if (typeof value.field !== "string") return false;
  const operand = value.operand as Node | undefined;
  // has(request.userInfo.F): whether the identity has groups.
  if (isUserInfo(operand)) return value.testOnly === true;
  // request.FIELD: any field but userInfo is the same whoever asks.
  if (operand?.exprKind?.case === "identExpr" && rootName(operand.exprKind.value?.name) === "request") return value.field !== "userInfo";
  push(operand);
  return true;
}

function visitCall(value: Fields, scope: ReadonlySet<string>, blind: Blind, push: Push): boolean {
  const fn = value.function;
  const args = value.args;
  if (typeof fn !== "string" || !Array.isArray(args)) return false;
  const target = value.target as Node | undefined;
  if (nameTest(fn, target, args as Node[], scope, blind)) return true;
  const sizeOfGroups =
    fn === "size" &&
    ((target === undefined && args.length === 1 && userField(args[0] as Node, "groups")) || (args.length === 0 && userField(target, "groups")));
  if (sizeOfGroups) return true;
  if (target !== undefined) push(target);
  push(...args);
  return true;
}

/** A call that tests a name against literals (noted in `blind`), or `"lit" in request.userInfo.groups`. */
function nameTest(fn: string, target: Node | undefined, args: Node[], scope: ReadonlySet<string>, blind: Blind): boolean {
  const test = (source: Source, op: Test["op"], value: string) => blind[source].push({ op, value });
  if ((fn === "_==_" || fn === "_!=_") && target === undefined && args.length === 2) {
    const [a, b] = args;
    const source = sourceOf(a, scope) ?? sourceOf(b, scope);
    const literal = sourceOf(a, scope) ? stringConst(b) : stringConst(a);
    if (source && literal !== undefined) {
      test(source, "==", literal);
      return true;
    }
  }
  if (fn === "@in" && target === undefined && args.length === 2) {
    const [a, b] = args;
    const source = sourceOf(a, scope);
    const list = source ? stringList(b) : undefined;
    const variable = source ? variableRef(b) : undefined;
    if (source && list) {
      for (const literal of list) test(source, "==", literal);
      return true;
    }
    if (source && variable !== undefined) {
      blind[source === "user" ? "userLists" : "groupLists"].push(variable);
      return true;
    }
    const literal = stringConst(a);
    if (literal !== undefined && userField(b, "groups")) {
      test("group", "==", literal);
      return true;
    }
  }
  if (NAME_TESTS.has(fn) && args.length === 1) {
    const source = sourceOf(target, scope);
    const literal = stringConst(args[0]);
    if (source && literal !== undefined) {
      test(source, fn as Test["op"], literal);
      return true;
    }
  }
  return false;
}

function visitComprehension(value: Fields, scope: ReadonlySet<string>, stack: Stack): boolean {
  for (const local of [value.iterVar, value.iterVar2, value.accuVar]) {
    if (local === undefined || local === "") continue;
    const name = rootName(local);
    if (name === undefined || name === "request" || name === "variables" || scope.has(name)) return false;
  }
  const overGroups = userField(value.iterRange as Node, "groups");
  if (!overGroups) stack.push([value.iterRange, scope]);
  else if (value.iterVar2 !== undefined && value.iterVar2 !== "") return false;
  else if (typeof value.iterVar !== "string" || value.iterVar === value.accuVar) return false;
  const inner = overGroups ? new Set([...scope, rootName(value.iterVar)!]) : scope;
  stack.push([value.accuInit, scope], [value.loopCondition, inner], [value.loopStep, inner], [value.result, inner]);
  return true;
}

/** Whose tests a set applies: the union of its expressions'. */
export interface Tests {
  user: Test[];
  group: Test[];
}

function passes(name: string, { op, value }: Test): boolean {
  return op === "==" ? name === value : op === "startsWith" ? name.startsWith(value) : op === "endsWith" ? name.endsWith(value) : name.includes(value);
}

/** A name's answers to `tests`: the bits of one number for up to 31 tests (cheaper to build and compare), else a string of 0s and 1s. */
function answers(name: string, tests: readonly Test[]): string {
  if (tests.length <= 31) {
    let bits = 0;
    for (let i = 0; i < tests.length; i++) if (passes(name, tests[i])) bits |= 1 << i;
    return String(bits >>> 0);
  }
  let out = "";
  for (const test of tests) out += passes(name, test) ? "1" : "0";
  return out;
}

const PRINTABLE = /^[\x20-\x7e]*$/;

/** An identity's class under a set's tests; one class is decided alike. */
export function classKey(tests: Tests, user: string, groups: readonly string[] | undefined): string {
  if (!PRINTABLE.test(user) || (groups && !groups.every((g) => PRINTABLE.test(g)))) return `\0${JSON.stringify([user, groups ?? null])}`;
  let key = answers(user, tests.user);
  if (groups === undefined) return `${key}|-`;
  key += `|${groups.length}`;
  for (const group of groups) key += `,${answers(group, tests.group)}`;
  return key;
}

/** Tests without repeats (the same literal tested twice is one test). */
export function uniqueTests(tests: readonly Test[]): Test[] {
  const seen = new Map<string, Test>();
  for (const t of tests) seen.set(`${t.op}\0${t.value}`, t);
  return [...seen.values()];
}
