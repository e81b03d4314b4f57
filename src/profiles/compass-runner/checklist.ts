// CR-18: node prerequisites that no manifest can express. `render` prints
// them after a successful render; the docs carry the same list.
import { SESSIONS_MOUNT } from "./render.ts";
import type { RunnerFields } from "./values.ts";

export function nodeChecklist(v: RunnerFields): string[] {
  const node = v.nodeSelector["kubernetes.io/hostname"];
  return [
    `Before applying, on node ${node} (CR-18; no manifest can do these):`,
    `  [ ] a digest-pinned KVM device plugin advertises ${v.kvmResourceName} for /dev/kvm`,
    "  [ ] /dev/kvm has mode 0666 (user-namespaced pods see it as 65534:65534; a kvm group grant does not work)",
    "  [ ] Kubernetes user-namespace support is enabled (the pod sets hostUsers: false)",
    "  [ ] kernel.apparmor_restrict_unprivileged_userns=0 where the node image enables that restriction",
    `  [ ] seccomp/compass-runner.json is staged at <kubelet seccomp root>/${v.seccompProfilePath}`,
    `  [ ] ${v.hostPaths.sessions} is on a filesystem with project quotas (the Runner uses ${SESSIONS_MOUNT}/volumes inside it)`,
    `  [ ] ${v.hostPaths.sessions} and ${v.hostPaths.runtime} exist and are owned by 65532:65532`,
  ];
}
