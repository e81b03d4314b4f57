// The reason of CR-06's inferred opinion, apart from the judge, so listing the rules never loads the judge (src/seams.ts, PLACED).

export const INFERRED_E =
  "CR-06e is rigging's inference: the Runner namespace runs privileged, so admission is its only guard rail; the seeds name exec, attach and ephemeral containers only";
