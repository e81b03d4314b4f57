// Whether a CEL expression reads `request.userInfo` and which variables: one
// that reads neither gets one answer per request. Unknown shapes answer
// undefined ("may read anything"), which only costs speed.

export interface Reads {
  /** The expression reads `request.userInfo` (or tests for it). */
  userInfo: boolean;
  /** The fields of `request.userInfo` it reads as `request.userInfo.FIELD`; "*" where it reads the whole of it. */
  user: Set<string>;
  /** The fields of the request other than userInfo it reads as `request.FIELD`. */
  request: Set<string>;
  /** The names of the variables it reads as `variables.NAME`. */
  variables: Set<string>;
  /** The other names of the evaluation it reads (`object`, `oldObject`, `namespaceObject`, `params`). */
  roots: Set<string>;
}

/** The names an admission policy's CEL is evaluated with besides `request` and `variables`. */
export const OTHER_ROOTS: ReadonlySet<string> = new Set(["object", "oldObject", "namespaceObject", "params", "authorizer"]);

interface Node {
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

const REQUEST = "request";
const VARIABLES = "variables";

/** What `expr` (the engine's Expr, as parsed) reads; undefined when it cannot be told plainly. */
export function readsOf(expr: unknown): Reads | undefined {
  const reads: Reads = { userInfo: false, user: new Set(), request: new Set(), variables: new Set(), roots: new Set() };
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
        // Any other name is a comprehension's own, a type, or one of these (a local that takes one of their names is counted too).
        if (OTHER_ROOTS.has(name)) reads.roots.add(name);
        break;
      }
      case "selectExpr": {
        const operand = value.operand as Node | undefined;
        const field = value.field;
        if (typeof field !== "string") return undefined;
        const name = operand?.exprKind?.case === "identExpr" ? rootName(operand.exprKind.value?.name) : undefined;
        if (name === REQUEST) {
          if (field === "userInfo") {
            reads.userInfo = true;
            reads.user.add("*");
          } else reads.request.add(field);
        } else if (name === VARIABLES) reads.variables.add(field);
        else if (isUserInfo(operand)) {
          reads.userInfo = true;
          reads.user.add(field);
        } else stack.push(operand);
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

/** `request.userInfo`, selected plainly. */
export function isUserInfo(node: Node | undefined): boolean {
  if (node?.exprKind?.case !== "selectExpr") return false;
  const { operand, field, testOnly } = node.exprKind.value as { operand?: Node; field?: unknown; testOnly?: unknown };
  return field === "userInfo" && testOnly !== true && operand?.exprKind?.case === "identExpr" && rootName(operand.exprKind.value?.name) === REQUEST;
}

/** An identifier as it resolves at the root (`.request` is `request`). */
export function rootName(name: unknown): string | undefined {
  if (typeof name !== "string") return undefined;
  return name.startsWith(".") ? name.slice(1) : name;
}

/** The leading `variables.NAME` terms of an `&&`/`||` chain, which decide it in order whatever follows. */
export interface Guard {
  op: "&&" | "||";
  terms: { name: string; negated: boolean }[];
}

export function guardOf(expr: unknown): Guard | undefined {
  const root = expr as Node | undefined;
  const fn = root?.exprKind?.case === "callExpr" ? root.exprKind.value?.function : undefined;
  if (fn !== "_&&_" && fn !== "_||_") return undefined;
  const terms: Guard["terms"] = [];
  // The chain's terms in evaluation order: the parser balances a long chain into nested calls of the same operator.
  const leading = (node: Node | undefined): boolean => {
    const value = node?.exprKind?.value;
    if (node?.exprKind?.case === "callExpr" && value?.function === fn && Array.isArray(value.args) && value.target === undefined)
      return (value.args as Node[]).every((arg) => leading(arg));
    const term = variableTerm(node);
    if (term) terms.push(term);
    return term !== undefined;
  };
  leading(root);
  return terms.length > 0 ? { op: fn === "_&&_" ? "&&" : "||", terms } : undefined;
}

function variableTerm(node: Node | undefined): Guard["terms"][number] | undefined {
  const value = node?.exprKind?.value;
  if (node?.exprKind?.case === "callExpr" && value?.function === "!_" && Array.isArray(value.args) && value.args.length === 1 && value.target === undefined) {
    const inner = variableTerm(value.args[0] as Node);
    return inner && !inner.negated ? { name: inner.name, negated: true } : undefined;
  }
  if (node?.exprKind?.case !== "selectExpr" || value?.testOnly === true || typeof value?.field !== "string") return undefined;
  const operand = value.operand as Node | undefined;
  return operand?.exprKind?.case === "identExpr" && rootName(operand.exprKind.value?.name) === VARIABLES ? { name: value.field, negated: false } : undefined;
}
