// The opinions of CR-06 (judge.ts), in a file of their own: the
// Compass Runner's rules list them at load, and the judge itself loads only
// when CR-06 is judged (scripts/build.mjs, LAZY_SOURCES), never in a render,
// whose self-check proves CR-06 another way.

export const INFERRED_E =
  "CR-06e is rigging's inference: the Runner namespace runs privileged, so admission is its only guard rail; the seeds name exec, attach and ephemeral containers only";

/**
 * The opinions the CR-06 rule lists so that `admissionHits` can report its
 * warnings under them (spread them into the rule's `opinions`).
 */
export const ADMISSION_OPINIONS = {
  "port-forward-proxy": { summary: "port-forward and proxy on Runner pods are denied like exec (CR-06e)", because: INFERRED_E },
  "cel-unjudged": {
    summary: "every policy can be evaluated",
    because: "rigging evaluates the standard CEL library and its strings extension; Kubernetes' own libraries (authorizer, quantity, url...) are not evaluated",
  },
} as const;
