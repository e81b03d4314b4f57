// CR-06's opinions apart from the judge, so listing the rules never loads the judge (src/seams.ts, PLACED).

export const INFERRED_E =
  "CR-06e is rigging's inference: the Runner namespace runs privileged, so admission is its only guard rail; the seeds name exec, attach and ephemeral containers only";

/** The opinions CR-06 lists, for `admissionHits` to report warnings under. */
export const ADMISSION_OPINIONS = {
  "port-forward-proxy": { summary: "port-forward and proxy on Runner pods are denied like exec (CR-06e)", because: INFERRED_E },
  "cel-unjudged": {
    summary: "every policy can be evaluated",
    because: "rigging evaluates the standard CEL library and its strings extension; Kubernetes' own libraries (authorizer, quantity, url...) are not evaluated",
  },
} as const;
