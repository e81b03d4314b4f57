// What a CEL expression of an admission policy reads, from its syntax tree:
// whether it reads `request.userInfo` (who asks), and which `variables.NAME`
// it reads. The judge asks each request for many identities, which differ
// only in `request.userInfo`; an expression that reads neither it nor a
// variable that does gets the same inputs, so the same answer, for every
// identity (admission-eval.ts keeps that answer per request).
//
// Conservative: undefined ("may read anything") for `request` or
// `variables` used other than as `request.FIELD` / `variables.NAME` (an
// index, a bare use, a macro over them), for a comprehension variable that
// takes either name (a local `request` would shadow the real one), and for
// any node kind this walk does not know. A wrong "reads nothing" would be
// a wrong verdict; a wrong "may read anything" only costs speed.

export interface Reads {
  /** The expression reads `request.userInfo` (or tests for it). */
  userInfo: boolean;
  /** The names of the variables it reads as `variables.NAME`. */
  variables: Set<string>;
}

interface Node {
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

const REQUEST = "request";
const VARIABLES = "variables";

/** What `expr` (the engine's Expr, as parsed) reads; undefined when it cannot be told plainly. */
export function readsOf(expr: unknown): Reads | undefined {
  const reads: Reads = { userInfo: false, variables: new Set() };
  // An explicit stack: a deep tree must not overflow the call stack here (the parser bounds it anyway).
  const stack: unknown[] = [expr];
  while (stack.length > 0) {
    const node = stack.pop() as Node | undefined;
    const kind = node?.exprKind?.case;
    const value = node?.exprKind?.value;
    if (kind === "constExpr") continue;
    if (!value) return undefined;
    switch (kind) {
      case "identExpr": {
        const name = rootName(value.name);
        if (name === undefined || name === REQUEST || name === VARIABLES) return undefined;
        break;
      }
      case "selectExpr": {
        const operand = value.operand as Node | undefined;
        const field = value.field;
        if (typeof field !== "string") return undefined;
        const name = operand?.exprKind?.case === "identExpr" ? rootName(operand.exprKind.value?.name) : undefined;
        if (name === REQUEST) {
          if (field === "userInfo") reads.userInfo = true;
        } else if (name === VARIABLES) reads.variables.add(field);
        else stack.push(operand);
        break;
      }
      case "callExpr": {
        if (!Array.isArray(value.args)) return undefined;
        if (value.target !== undefined) stack.push(value.target);
        stack.push(...value.args);
        break;
      }
      case "listExpr": {
        if (!Array.isArray(value.elements)) return undefined;
        stack.push(...value.elements);
        break;
      }
      case "structExpr": {
        if (!Array.isArray(value.entries)) return undefined;
        for (const entry of value.entries as { keyKind?: { case?: string; value?: unknown }; value?: unknown }[]) {
          if (entry?.keyKind?.case === "mapKey") stack.push(entry.keyKind.value);
          else if (entry?.keyKind?.case !== "fieldKey") return undefined;
          stack.push(entry.value);
        }
        break;
      }
      case "comprehensionExpr": {
        for (const local of [value.iterVar, value.iterVar2, value.accuVar]) {
          if (local === undefined || local === "") continue;
          if (typeof local !== "string" || rootName(local) === REQUEST || rootName(local) === VARIABLES) return undefined;
        }
        stack.push(value.iterRange, value.accuInit, value.loopCondition, value.loopStep, value.result);
        break;
      }
      default:
        return undefined;
    }
  }
  return reads;
}

/** An identifier as it resolves at the root (`.request` is `request`). */
function rootName(name: unknown): string | undefined {
  if (typeof name !== "string") return undefined;
  return name.startsWith(".") ? name.slice(1) : name;
}
