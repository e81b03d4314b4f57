// Runner objects as an admission policy sees them: a DaemonSet as a
// deployer applies it and a pod as the DaemonSet controller creates it,
// both after the API server's defaulting and the mutations of its built-in
// admission plugins, converted back to JSON (where a non-pointer field at
// its zero value, such as hostNetwork: false, is absent).
//
// No API server runs in the tests, so the defaults a policy could read are
// written out here, each from the upstream function that sets it:
// pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container, _Volume,
// _HostPathVolumeSource, _ProjectedVolumeSource,
// _ServiceAccountTokenProjection, _ConfigMapVolumeSource,
// _SecretVolumeSource), pkg/apis/apps/v1/defaults.go
// (SetDefaults_DaemonSet), and the DaemonSet controller's pod construction
// (pkg/controller/daemon: controllerRef, node affinity, tolerations).
import type { K8sObject } from "../../src/k8s/objects.ts";

type Json = Record<string, any>;

export interface RunnerFixture {
  name: string;
  namespace: string;
  serviceAccount: string;
  containerName: string;
  repository: string;
  digest: string;
  sessions: string;
  runtime: string;
  seccompProfile: string;
  selector: Record<string, string>;
  ca?: { configMap: string } | { secret: string };
}

export const DIGEST_A = `sha256:${"a".repeat(64)}`;
export const DIGEST_B = `sha256:${"b".repeat(64)}`;

/** The upstream runner-manifests shape, with its defaults. */
export const RUNNER: RunnerFixture = {
  name: "compass-runner",
  namespace: "compass-runner",
  serviceAccount: "compass-runner",
  containerName: "compass-runner",
  repository: "registry.example.com/rigelbuild/compass-runner",
  digest: DIGEST_A,
  sessions: "/var/lib/compass/sessions",
  runtime: "/run/compass",
  seccompProfile: "profiles/compass-runner.json",
  selector: { "app.kubernetes.io/name": "compass-runner", "app.kubernetes.io/instance": "compass-runner" },
  ca: { configMap: "compass-server-ca" },
};

/** The DaemonSet as a deployer writes it (before the API server's defaults). */
export function runnerDaemonSet(f: RunnerFixture = RUNNER): K8sObject {
  const labels = { ...f.selector, "app.kubernetes.io/component": "runner", "app.kubernetes.io/part-of": "compass" };
  const caVolume = f.ca ? ("configMap" in f.ca ? { configMap: { name: f.ca.configMap } } : { secret: { secretName: f.ca.secret } }) : undefined;
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: f.name, namespace: f.namespace, labels },
    spec: {
      selector: { matchLabels: f.selector },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          serviceAccountName: f.serviceAccount,
          automountServiceAccountToken: false,
          hostUsers: false,
          hostNetwork: false,
          nodeSelector: { workload: "compass" },
          tolerations: [{ key: "workload", operator: "Equal", value: "compass", effect: "NoSchedule" }],
          securityContext: {
            runAsUser: 65532,
            runAsGroup: 65532,
            runAsNonRoot: true,
            seccompProfile: { type: "Localhost", localhostProfile: f.seccompProfile },
          },
          containers: [
            {
              name: f.containerName,
              image: `${f.repository}@${f.digest}`,
              env: [{ name: "COMPASS_RUNNER_TOKEN_FILE", value: "/var/run/secrets/compass/runner/token" }],
              resources: {
                requests: { cpu: "500m", memory: "512Mi", "devices.kubevirt.io/kvm": "1" },
                limits: { memory: "2Gi", "devices.kubevirt.io/kvm": "1" },
              },
              securityContext: {
                privileged: false,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
                procMount: "Unmasked",
                appArmorProfile: { type: "Unconfined" },
              },
              volumeMounts: [
                { name: "runner-token", mountPath: "/var/run/secrets/compass/runner", readOnly: true },
                { name: "sessions", mountPath: "/var/lib/compass/sessions" },
                { name: "runtime", mountPath: "/run/compass" },
                { name: "tmp", mountPath: "/tmp" },
                ...(caVolume ? [{ name: "server-ca", mountPath: "/etc/compass/server-ca", readOnly: true }] : []),
              ],
            },
          ],
          volumes: [
            { name: "runner-token", projected: { sources: [{ serviceAccountToken: { audience: "compass-runner", expirationSeconds: 3600, path: "token" } }] } },
            { name: "sessions", hostPath: { path: f.sessions, type: "Directory" } },
            { name: "runtime", hostPath: { path: f.runtime, type: "Directory" } },
            { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
            ...(caVolume ? [{ name: "server-ca", ...caVolume }] : []),
          ],
        },
      },
    },
  };
}

const clone = <T>(value: T): T => structuredClone(value);

/** Non-pointer booleans of PodSpec and Container: false is left out of the JSON. */
const PLAIN_BOOLS = ["hostNetwork", "hostPID", "hostIPC", "stdin", "stdinOnce", "tty"];

function defaultContainer(c: Json): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  // A digest reference has no tag, so not "latest": IfNotPresent.
  c.imagePullPolicy ??= "IfNotPresent";
  const r = c.resources;
  // Requests default to limits where a limit has no request.
  if (r?.limits) r.requests = { ...r.limits, ...(r.requests ?? {}) };
  for (const key of PLAIN_BOOLS) if (c[key] === false) delete c[key];
}

function defaultVolume(v: Json): void {
  if (v.hostPath) v.hostPath.type ??= "";
  if (v.configMap) v.configMap.defaultMode ??= 420;
  if (v.secret) v.secret.defaultMode ??= 420;
  if (v.downwardAPI) v.downwardAPI.defaultMode ??= 420;
  if (v.projected) {
    v.projected.defaultMode ??= 420;
    for (const s of v.projected.sources ?? []) if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= 3600;
  }
}

/** A PodSpec as the API server stores it. */
export function defaultPodSpec(spec: Json): Json {
  spec.dnsPolicy ??= "ClusterFirst";
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  spec.enableServiceLinks ??= true;
  for (const key of PLAIN_BOOLS) if (spec[key] === false) delete spec[key];
  for (const list of ["containers", "initContainers"]) for (const c of spec[list] ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  for (const key of ["volumes", "initContainers", "tolerations", "ephemeralContainers"])
    if (Array.isArray(spec[key]) && spec[key].length === 0) delete spec[key];
  return spec;
}

let serial = 0;
const uid = () => `00000000-0000-4000-8000-${String(++serial).padStart(12, "0")}`;

/** A DaemonSet as the API server stores it and hands it to admission. */
export function storedDaemonSet(ds: K8sObject, generation = 1): K8sObject {
  const out = clone(ds) as Json;
  out.metadata.uid ??= uid();
  out.metadata.generation = generation;
  out.metadata.resourceVersion = String(1000 + generation);
  out.metadata.annotations = { ...(out.metadata.annotations ?? {}), "deprecated.daemonset.template.generation": String(generation) };
  out.spec.revisionHistoryLimit ??= 10;
  out.spec.updateStrategy ??= { type: "RollingUpdate" };
  if (out.spec.updateStrategy.type === "RollingUpdate")
    out.spec.updateStrategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 0, ...(out.spec.updateStrategy.rollingUpdate ?? {}) };
  defaultPodSpec(out.spec.template.spec);
  return out as K8sObject;
}

/** Tolerations the DaemonSet controller adds to every daemon pod. */
const DAEMON_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

/** The pod the DaemonSet controller creates for `node`, as admission sees it on CREATE. */
export function daemonSetPod(storedDs: K8sObject, node = "kvm-node-1"): K8sObject {
  const ds = storedDs as Json;
  const template = clone(ds.spec.template);
  const spec = template.spec;
  spec.affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }] },
    },
  };
  spec.tolerations = [...(spec.tolerations ?? []), ...DAEMON_TOLERATIONS];
  // The Priority admission plugin: no priorityClassName, priority 0.
  spec.priority = 0;
  defaultPodSpec(spec);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${ds.metadata.name}-x7k2p`,
      generateName: `${ds.metadata.name}-`,
      namespace: ds.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), "controller-revision-hash": "6d9f7c8b5", "pod-template-generation": String(ds.metadata.generation ?? 1) },
      ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata.name, uid: ds.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
}

/** The same pod once it runs: bound, with a uid and a status. */
export function runningPod(pod: K8sObject, node = "kvm-node-1"): K8sObject {
  const out = clone(pod) as Json;
  out.metadata.uid = uid();
  out.metadata.resourceVersion = "2000";
  out.spec.nodeName = node;
  out.status = { phase: "Running", podIP: "10.244.1.7", conditions: [{ type: "Ready", status: "True" }] };
  return out as K8sObject;
}
