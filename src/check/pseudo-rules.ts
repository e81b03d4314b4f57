// Findings of `check` that no rule of the catalog raises: a walked file that
// cannot be read as kubectl would apply it, and (with --strict) a workload
// no profile claims. Each has an ID that SARIF, explain and rules name.
import { POD_SPEC_PATH } from "../rules/engine.ts";
import { SYSTEM_NAMES } from "../rules/systems.ts";

export interface PseudoRule {
  id: string;
  summary: string;
  fix: string;
  why: string;
}

export const INPUT_RULE: PseudoRule = {
  id: "input",
  summary: "A file that holds Kubernetes objects can be read as kubectl would apply it",
  fix: "make the file valid YAML of Kubernetes objects (kubectl apply --dry-run=client -f FILE), or leave it out with --exclude",
  why: "kubectl refuses the whole file: none of its objects would be applied.",
};

export const UNRECOGNISED_RULE: PseudoRule = {
  id: "unrecognised",
  summary: "Every workload checked is recognised as one of rigging's profiles",
  fix: `give the workload the app.kubernetes.io/name label of its system (${SYSTEM_NAMES.join(", ")}), or check it with --profile NAME`,
  why: "A workload no profile claims is not judged at all: a Runner whose labels are misnamed would pass unseen. It is skipped, or an error with --strict.",
};

export const PSEUDO_RULES: readonly PseudoRule[] = [INPUT_RULE, UNRECOGNISED_RULE];

/** Whether objects of this kind run pods (the kinds whose pod spec the rules read). */
export function isWorkloadKind(kind: string): boolean {
  return POD_SPEC_PATH[kind] !== undefined;
}
