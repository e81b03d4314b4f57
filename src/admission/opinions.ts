// The reason of CR-06's inferred opinion, apart from the judge, so listing the rules never loads the judge (src/seams.ts, PLACED).

export const INFERRED_E =
  "CR-06e is rigging's inference: the Runner namespace runs privileged, so admission is its only guard rail; the Compass Runner manifests guide names exec, attach and ephemeral containers only";

export const GITOPS_APPLIER =
  "the input names a GitOps controller (a Flux Kustomization or HelmRelease, an Argo CD Application) whose identity the policies refuse; whether it applies this DaemonSet, and the controller's namespace, are not in the manifests";
