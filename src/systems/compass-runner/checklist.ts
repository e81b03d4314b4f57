// CR-18: node prerequisites no manifest can express, and a render's warnings
// (CR-07, CR-15), printed after a render and listed in the docs.
import { admissionChecklist } from "./admission-notes.ts";
// A head of the Compass contract, loaded at start: no other chunk loads for a Runner render.
import { inClusterIssuer, JWKS_PATH, KUBE_ROOT_CA } from "../compass-contract/interface.ts";
import { DEFAULT_TOKEN_SECONDS, HOSTNAME_LABEL, RUNNER_AUDIENCE, SESSIONS_MOUNT, VOLUME_ROOT } from "./interface.ts";
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
    `  [ ] ${v.hostPaths.sessionVolumeRoot} is on a filesystem with project quotas, and ${v.hostPaths.sessionVolumeRoot} and ${v.hostPaths.runtimeRoot} exist, owned by 65532:65532`,
    `  [ ] create ${volumesDir(v)} owned by 65532:65532, with the project quota on it: the Runner's volume root is ${VOLUME_ROOT} inside its mount at ${SESSIONS_MOUNT}, and its quota probe fails closed on a missing path (CR-11, P8)`,
  ];
  return [...lines, ...admissionChecklist({ deployers: v.admission.deployers, hostPaths: [v.hostPaths.sessionVolumeRoot, v.hostPaths.runtimeRoot] })];
}

/** P8: the host directory behind the Runner's volume root. */
export function volumesDir(v: Pick<RunnerFields, "hostPaths">): string {
  return `${v.hostPaths.sessionVolumeRoot}${VOLUME_ROOT.slice(SESSIONS_MOUNT.length)}`;
}

/** The notes after a CompassRunner render: warnings, the node checklist, the Server's entry. */
export function runnerNotes(v: RunnerFields & { serverCluster?: ServerCluster }): string[] {
  return [...serverNameNotes(v), ...nodeChecklist(v), ...clusterEntryNote(v)];
}

/** CS-14: with P9 the Runner verifies serverName; without it, the host it dials. */
function serverNameNotes(v: RunnerFields): string[] {
  if (v.designed.P9)
    return [
      "note: CS-14: designed, opted in: --server-name needs a Compass Runner with P9, a task of the Compass Server-on-Kubernetes design; the released Runner exits 2 on the flag",
    ];
  const host = URL.canParse(v.serverAddr) ? new URL(v.serverAddr).hostname : v.serverAddr;
  return [
    `note: CS-14: the Runner verifies the Server's certificate for ${host}, the host of serverAddr (no --server-name without P9): the certificate must name it`,
  ];
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
    ...(c?.jwksFile === undefined && (c?.issuer === undefined || inClusterIssuer(c.issuer))
      ? [
          `  For this cluster's own API server as issuer the Server needs its CA (the ${KUBE_ROOT_CA.configMap} ConfigMap, key ${KUBE_ROOT_CA.key}) as caFile, and keys it can read (CS-15):`,
          `  a jwksFile filled from kubectl get --raw ${JWKS_PATH}, or issuer discovery opened to unauthenticated readers (docs/compass-server.md)`,
        ]
      : []),
  ];
}
