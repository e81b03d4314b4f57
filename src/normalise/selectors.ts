// Label selectors the API server would refuse: an operator it does not know.
import { dig, isRecord, list } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";
import type { Note } from "./notes.ts";

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/** Where each kind keeps its LabelSelectors. */
function selectorsOf(object: K8sObject): PropertyKey[][] {
  if (object.kind === "NetworkPolicy") {
    const out: PropertyKey[][] = [["spec", "podSelector"]];
    for (const [direction, peers] of [
      ["ingress", "from"],
      ["egress", "to"],
    ] as const) {
      list<Record<string, unknown>>(dig(object, ["spec", direction])).forEach((rule, i) =>
        list(rule?.[peers]).forEach((_, j) => {
          out.push(["spec", direction, i, peers, j, "podSelector"], ["spec", direction, i, peers, j, "namespaceSelector"]);
        }),
      );
    }
    return out;
  }
  return ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job", "PodDisruptionBudget"].includes(object.kind) ? [["spec", "selector"]] : [];
}

/** An error for each matchExpressions entry whose operator Kubernetes does not know. */
export function selectorNotes(object: K8sObject): Note[] {
  const notes: Note[] = [];
  for (const path of selectorsOf(object)) {
    const selector = dig(object, path);
    if (!isRecord(selector)) continue;
    list<Record<string, unknown>>(selector.matchExpressions).forEach((expression, i) => {
      if (!isRecord(expression) || OPERATORS.has(String(expression.operator))) return;
      notes.push({
        object,
        path: [...path, "matchExpressions", i, "operator"],
        severity: "error",
        message: `operator ${JSON.stringify(expression.operator)} is not one Kubernetes knows (In, NotIn, Exists, DoesNotExist): the API server refuses the selector`,
      });
    });
  }
  return notes;
}
