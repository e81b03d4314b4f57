// CR-18: node prerequisites that no manifest can express, and the warnings
// a render carries (CR-07, CR-15). `render` prints them on stderr after a
// successful render; the docs carry the same list.
import { admissionChecklist } from "./admission-notes.ts";
import { DEFAULT_TOKEN_SECONDS, HOSTNAME_LABEL, RUNNER_AUDIENCE, SESSIONS_MOUNT, VOLUME_ROOT } from "./runtime.ts";
import { serverReach, type RunnerFields, type ServerCluster } from "./values.ts";

export function runnerWarnings(v: RunnerFields): string[] {
  const warnings: string[] = [];
  if (v.nodeSelector.key !== HOSTNAME_LABEL) {
    warnings.push(
      `warning: CR-07: nodeSelector ${v.nodeSelector.key}=${v.nodeSelector.value} cannot prove one node; make sure exactly one node carries it, or select ${HOSTNAME_LABEL}: <node>`,
    );
  }
  const reach = serverReach(v);
  if (reach && !reach.covered) {
    warnings.push(
      `warning: CR-15: a NetworkPolicy cannot match the host name ${reach.host}, so the Runner may reach TCP ${reach.port} at any address; add egressAllow {cidr: <the Server's range>, ports: [{port: ${reach.port}}]} to narrow it`,
    );
  }
  return warnings;
}

export function nodeChecklist(v: RunnerFields): string[] {
  const node = v.nodeSelector.key === HOSTNAME_LABEL ? `node ${v.nodeSelector.value}` : `the one node labelled ${v.nodeSelector.key}=${v.nodeSelector.value}`;
  const lines = [
    ...runnerWarnings(v),
    `Before applying, on ${node} (CR-18; no manifest can do these):`,
    ...(v.nodeSelector.key === HOSTNAME_LABEL ? [] : [`  [ ] exactly one node carries ${v.nodeSelector.key}=${v.nodeSelector.value} (CR-07)`]),
    `  [ ] a digest-pinned KVM device plugin advertises ${v.kvmResourceName} for /dev/kvm`,
    "  [ ] /dev/kvm has mode 0666 (user-namespaced pods see it as 65534:65534; a kvm group grant does not work)",
    "  [ ] kernel.apparmor_restrict_unprivileged_userns=0 where the node image enables that restriction",
    `  [ ] seccomp/compass-runner.json is staged at <kubelet seccomp root>/${v.seccompProfilePath}`,
    `  [ ] ${v.hostPaths.sessionVolumeRoot} is on a filesystem with project quotas (the Runner uses ${VOLUME_ROOT} inside its mount at ${SESSIONS_MOUNT})`,
    `  [ ] ${v.hostPaths.sessionVolumeRoot} and ${v.hostPaths.runtimeRoot} exist and are owned by 65532:65532`,
  ];
  return [...lines, ...admissionChecklist({ deployers: v.admission.deployers, hostPaths: [v.hostPaths.sessionVolumeRoot, v.hostPaths.runtimeRoot] })];
}

/** The notes after a CompassRunner render: warnings, the node checklist, the Server's entry. */
export function runnerNotes(v: RunnerFields & { serverCluster?: ServerCluster }): string[] {
  return [...nodeChecklist(v), ...clusterEntryNote(v)];
}

/** The Server's --runner-clusters entry this Runner needs (CS-09, CS-13). */
export function clusterEntryNote(v: RunnerFields & { serverCluster?: ServerCluster }): string[] {
  const c = v.serverCluster;
  return [
    "The Server's --runner-clusters file needs this entry (CR-03, CR-04):",
    `  - name: ${c?.name ?? "local"}`,
    `    issuer: ${c?.issuer ?? "<this cluster's issuer: kubectl get --raw /.well-known/openid-configuration>"}`,
    `    audience: ${RUNNER_AUDIENCE}`,
    `    namespace: ${v.namespace}`,
    `    serviceAccount: ${v.serviceAccount}`,
    `    maxTokenLifetime: ${v.maxTokenLifetimeSeconds ?? DEFAULT_TOKEN_SECONDS}s`,
    ...(c?.jwksURI ? [`    jwksURI: ${c.jwksURI}`] : []),
    ...(c?.jwksFile ? [`    jwksFile: ${c.jwksFile}`] : []),
    ...(c?.caFile ? [`    caFile: ${c.caFile}`] : []),
  ];
}
