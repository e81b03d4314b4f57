// CR-06's post-render checklist (docs/compass-runner-admission.md says it at length).

/** Kubernetes from which user namespaces and procMount need no feature gate. */
export const KUBERNETES_DEFAULT_ON = "1.33";
/** The oldest Kubernetes the Runner supports (bound tokens with node claims). */
export const KUBERNETES_FLOOR = "1.32";

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
