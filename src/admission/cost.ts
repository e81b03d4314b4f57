// A bound on one CEL expression's cost before it runs, as the API server
// bounds it: nested comprehensions multiply, so cost could grow as a power of
// the text. The estimate never exceeds the true cost.

/** celconfig.PerCallLimit: the most one expression may cost. */
export const CEL_COST_LIMIT = 1_000_000;

interface Node {
  exprKind?: { case?: string; value?: Record<string, unknown> };
}

/** What the text shows of how many items a range holds. */
function sizeOf(node: Node | undefined): number {
  const kind = node?.exprKind;
  if (kind?.case === "listExpr" && Array.isArray(kind.value?.elements)) return kind.value.elements.length;
  if (kind?.case === "structExpr" && Array.isArray(kind.value?.entries)) return kind.value.entries.length;
  if (kind?.case === "comprehensionExpr") return sizeOf(kind.value?.iterRange as Node | undefined);
  if (kind?.case === "callExpr" && kind.value?.function === "_+_" && Array.isArray(kind.value.args))
    return (kind.value.args as Node[]).reduce((sum, arg) => sum + sizeOf(arg), 0);
  return 1;
}

/** The estimated cost of a parsed expression, counting no further than past `limit`. */
export function estimatedCost(node: Node | undefined, limit = CEL_COST_LIMIT): number {
  const kind = node?.exprKind;
  const value = kind?.value;
  if (!kind || !value) return 1;
  const sum = (children: unknown[]) => {
    let total = 1;
    for (const child of children) {
      total += estimatedCost(child as Node, limit);
      if (total > limit) return total;
    }
    return total;
  };
  switch (kind.case) {
    case "selectExpr":
      return sum([value.operand]);
    case "callExpr":
      return sum([value.target, ...((value.args as unknown[]) ?? [])]);
    case "listExpr":
      return 10 + sum((value.elements as unknown[]) ?? []);
    case "structExpr":
      return 30 + sum(((value.entries as { keyKind?: { value?: unknown }; value?: unknown }[]) ?? []).flatMap((e) => [e.keyKind?.value, e.value]));
    case "comprehensionExpr": {
      const items = sizeOf(value.iterRange as Node);
      const body = estimatedCost(value.loopCondition as Node, limit) + estimatedCost(value.loopStep as Node, limit);
      const outside = sum([value.iterRange, value.accuInit, value.result]);
      return Math.min(outside + items * body, limit + 1);
    }
    default:
      return 1;
  }
}
