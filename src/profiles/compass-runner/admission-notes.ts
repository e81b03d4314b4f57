// CR-06 in words for `explain` and the post-render checklist
// (docs/compass-runner-admission.md says it at length).

/** Kubernetes from which user namespaces and procMount need no feature gate. */
export const KUBERNETES_DEFAULT_ON = "1.33";
/** The oldest Kubernetes the Runner supports (bound tokens with node claims). */
export const KUBERNETES_FLOOR = "1.32";

/** summary, fix and why of the CR-06 rule (`rigging explain CR-06`). */
export const CR06_TEXT = {
  summary: "Admission policies guard Runner pods, new pods, the DaemonSet and Runner tokens, by who asks and by what the request does",
  fix: "apply the four ValidatingAdmissionPolicies (failurePolicy: Fail) with their bindings (validationActions: [Deny]) that rigging renders, applied by a member of admission.deployers (docs/compass-runner-admission.md)",
  why:
    'Seed 000: the admission policy "denies exec, attach, and ephemeral containers on Runner pods except to admission.breakGlassGroups (default system:masters)"; only admission.controllers create Runner pods and only admission.deployers change the DaemonSet. ' +
    "The Runner namespace runs at Pod Security privileged for its hostPath trees (G-10), so these policies are its only guard rails, and they must judge what a request does, not only who sends it (inferred, CR-06e): " +
    "port-forward and proxy get around the NetworkPolicy like exec gets around everything; patching a running pod's image or labels hands the Runner's token, host trees and KVM to another program or takes the pod out of its NetworkPolicy; " +
    "system:kube-controller-manager creates the pods of every controller when controllers share its credentials, so only a controller ownerReference to the Runner DaemonSet tells a Runner pod apart; " +
    "a deployer (or a GitOps controller many people commit to) could otherwise make the DaemonSet privileged, mount the host root or drop hostUsers: false. " +
    "An API server without user namespaces drops hostUsers: false without an error, so the policies refuse a Runner pod without it instead of running it in the host user namespace. " +
    "Anyone who can mint a token for the Runner ServiceAccount can enroll as a Runner (CR-06d, inferred), so only kubelets and the break-glass groups may.",
} as const;

export interface FloorInput {
  deployers: readonly string[];
  hostPaths: readonly string[];
}

/** Checklist lines on the cluster, the node and the first apply (CR-06, CR-09). */
export function admissionChecklist(input: FloorInput): string[] {
  return [
    "Before applying, on the cluster (CR-06, CR-09; docs/compass-runner-admission.md):",
    `  [ ] Kubernetes ${KUBERNETES_DEFAULT_ON} or newer on the API server and the Runner node's kubelet; on ${KUBERNETES_FLOOR}, feature gates UserNamespacesSupport=true and ProcMountType=true on both (the policies refuse a Runner pod whose hostUsers: false the API server dropped)`,
    "  [ ] the node's container runtime supports user namespaces: containerd 2.0+ or CRI-O 1.25+, with runc 1.2+ or crun 1.9+",
    `  [ ] the node runs Linux 6.3 or newer, and the filesystems of /var/lib/kubelet/pods, ${input.hostPaths.join(" and ")} support idmap mounts (ext4, xfs, btrfs, tmpfs and overlayfs do)`,
    `  [ ] whoever applies this output is ${input.deployers.length === 1 ? input.deployers[0] : `one of ${input.deployers.join(", ")}`} (admission.deployers; kubectl auth whoami shows who you are), or the DaemonSet is refused`,
  ];
}
