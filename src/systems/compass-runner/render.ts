// Renders the Compass Runner: a pure function from values to objects (CR-01),
// the upstream tool's pod plus rigging's guard rails.
import type { DaemonSet } from "kubernetes-types/apps/v1";
import type { Container, EnvVar, PodSpec, ServiceAccount, Volume, VolumeMount } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import type { PriorityClass } from "kubernetes-types/scheduling/v1";
import { pinned } from "../../values/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../k8s/labels.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { dnsEgress, namespaceObject, networkPolicyObject } from "../../k8s/workload.ts";
import { admissionPolicies } from "./admission.ts";
import { serverEgress } from "./network.ts";
import {
  APP_NAME,
  ARCH_LABEL,
  CA_DIR,
  CA_FILE,
  CA_PATH,
  CONTAINER_NAME,
  derived,
  MAX_SURGE,
  MAX_UNAVAILABLE,
  OS_LABEL,
  RUN_ROOT,
  RUNNER_AUDIENCE,
  RUNNER_GID,
  RUNNER_SETTINGS as S,
  RUNNER_UID,
  RUNTIME_MOUNT,
  RUNTIME_VOLUME,
  SESSIONS_MOUNT,
  SESSIONS_VOLUME,
  TMP_MOUNT,
  TMP_SIZE,
  TOKEN_DIR,
  TOKEN_FILE,
  TOKEN_PATH,
  TOKEN_VOLUME,
  VOLUME_ROOT,
} from "./interface.ts";
import { egressCidr, serverReach, type RunnerFields } from "./values.ts";

export function runnerIdentity(v: RunnerFields): AppIdentity {
  return { name: APP_NAME, instance: v.name, component: "runner", partOf: "compass", image: v.image };
}

/** Cluster-scoped names carry the namespace, so two installations never collide. */
export function clusterScopedName(v: RunnerFields): string {
  return `${v.name}.${v.namespace}`;
}

export function renderCompassRunner(v: RunnerFields): K8sObject[] {
  const app = runnerIdentity(v);
  const labels = recommendedLabels(app);
  const objects: K8sObject[] = [];
  if (v.createNamespace) objects.push(namespaceObject(v.namespace, "privileged", labels));
  objects.push(priorityClass(v, labels));
  objects.push(
    ...admissionPolicies({
      prefix: clusterScopedName(v),
      namespace: v.namespace,
      serviceAccount: v.serviceAccount,
      labels,
      daemonSetName: v.name,
      containerName: CONTAINER_NAME,
      podSelector: selectorLabels(app),
      imageRepository: v.image.repository,
      hostPaths: [v.hostPaths.sessionVolumeRoot, v.hostPaths.runtimeRoot],
      seccompProfile: v.seccompProfilePath,
      controllers: v.admission.controllers,
      deployers: v.admission.deployers,
      breakGlassGroups: v.admission.breakGlassGroups,
    }),
  );
  objects.push(serviceAccount(v, labels));
  const ca = v.serverCA;
  if (ca && "pem" in ca) {
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${v.name}-server-ca`, namespace: v.namespace, labels },
      data: { [CA_FILE]: ca.pem.endsWith("\n") ? ca.pem : `${ca.pem}\n` },
    });
  }
  objects.push(daemonSet(v, app, labels));
  objects.push(networkPolicy(v, app, labels));
  return objects;
}

function priorityClass(v: RunnerFields, labels: Record<string, string>): PriorityClass & K8sObject {
  return {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: clusterScopedName(v), labels },
    value: v.priorityClassValue,
    globalDefault: false,
    description: "Prioritizes the node-local Compass Runner over ordinary workloads.",
  };
}

function serviceAccount(v: RunnerFields, labels: Record<string, string>): ServiceAccount & K8sObject {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: v.serviceAccount, namespace: v.namespace, labels },
    // CR-05: the API token would be an unused credential; the Runner's
    // only credential is the projected compass-runner token.
    automountServiceAccountToken: false,
  };
}

function daemonSet(v: RunnerFields, app: AppIdentity, labels: Record<string, string>): DaemonSet & K8sObject {
  const annotations = v.image.tag ? { annotations: { "rigging.dev/image-tag": v.image.tag } } : {};
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: v.name, namespace: v.namespace, labels, ...annotations },
    spec: {
      selector: { matchLabels: selectorLabels(app) },
      // CR-07: the Runner ID is per node, so a rollout never runs two.
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: MAX_SURGE, maxUnavailable: MAX_UNAVAILABLE } },
      template: { metadata: { labels, ...annotations }, spec: podSpec(v) },
    },
  };
}

/** The sessions' allowlist for the Runner's own --egress-allow (D7). */
export function egressHosts(v: RunnerFields): string[] {
  return v.egressAllow.flatMap((rule) => (rule.host ? [rule.host] : []));
}

function runnerContainer(v: RunnerFields): Container {
  const numbers = derived(v);
  const env: EnvVar[] = [
    { name: S.server.env, value: v.serverAddr },
    { name: S.tokenFile.env, value: TOKEN_PATH },
    { name: S.runRoot.env, value: RUN_ROOT },
    { name: S.volumeRoot.env, value: VOLUME_ROOT },
    { name: S.memoryMb.env, value: String(v.guestMemoryMiB) },
    { name: S.cpus.env, value: String(v.guestCpus) },
    { name: S.quotaRequired.env, value: "true" },
  ];
  if (v.serverCA) env.push({ name: S.ca.env, value: CA_PATH });
  if (v.otel) env.push({ name: S.otel.env, value: v.otel.endpoint });
  const args: string[] = [];
  // CS-14: P9's flag only when asked for; the released Runner exits 2 on it.
  if (v.designed.P9 && v.serverName) args.push(S.serverName.flag, v.serverName);
  const hosts = egressHosts(v);
  if (hosts.length > 0) args.push(`${S.egressAllow.flag}=${hosts.join(",")}`);
  const mounts: VolumeMount[] = [
    { name: SESSIONS_VOLUME, mountPath: SESSIONS_MOUNT },
    { name: RUNTIME_VOLUME, mountPath: RUNTIME_MOUNT },
    { name: TOKEN_VOLUME, mountPath: TOKEN_DIR, readOnly: true },
    { name: "tmp", mountPath: TMP_MOUNT },
  ];
  if (v.serverCA) mounts.push({ name: "server-ca", mountPath: CA_DIR, readOnly: true });
  const memory = `${numbers.memoryMiB}Mi`;
  return {
    name: CONTAINER_NAME,
    image: pinned(v.image),
    imagePullPolicy: "IfNotPresent",
    // No command: the image's exec-form ENTRYPOINT is the Runner, pid 1.
    ...(args.length > 0 ? { args } : {}),
    env,
    // CR-19: request = limit for memory; no CPU limit (VMM throttling).
    resources: {
      requests: { cpu: String(numbers.cpu), memory, [v.kvmResourceName]: "1" },
      limits: { memory, [v.kvmResourceName]: "1" },
    },
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: RUNNER_UID,
      runAsGroup: RUNNER_GID,
      // CR-19: the microVM stack mounts; the default AppArmor profile and a masked /proc deny it.
      procMount: "Unmasked",
      appArmorProfile: { type: "Unconfined" },
      seccompProfile: { type: "Localhost", localhostProfile: v.seccompProfilePath },
    },
    volumeMounts: mounts,
    // No probes: a restart of pid 1 tears down every session on the node.
  };
}

function podSpec(v: RunnerFields): PodSpec {
  const volumes: Volume[] = [
    { name: SESSIONS_VOLUME, hostPath: { path: v.hostPaths.sessionVolumeRoot, type: "Directory" } },
    { name: RUNTIME_VOLUME, hostPath: { path: v.hostPaths.runtimeRoot, type: "Directory" } },
    {
      name: TOKEN_VOLUME,
      projected: { sources: [{ serviceAccountToken: { audience: RUNNER_AUDIENCE, expirationSeconds: v.tokenExpirationSeconds, path: TOKEN_FILE } }] },
    },
    { name: "tmp", emptyDir: { sizeLimit: TMP_SIZE } },
  ];
  const ca = v.serverCA;
  if (ca) {
    const items = (key: string) => [{ key, path: CA_FILE }];
    const source =
      "pem" in ca
        ? { configMap: { name: `${v.name}-server-ca`, items: items(CA_FILE) } }
        : "configMap" in ca
          ? { configMap: { name: ca.configMap.name, items: items(ca.configMap.key) } }
          : { secret: { secretName: ca.secret.name, items: items(ca.secret.key) } };
    volumes.push({ name: "server-ca", ...source });
  }
  return {
    serviceAccountName: v.serviceAccount,
    automountServiceAccountToken: false,
    priorityClassName: clusterScopedName(v),
    terminationGracePeriodSeconds: derived(v).graceSeconds,
    hostUsers: false,
    hostNetwork: false,
    hostPID: false,
    hostIPC: false,
    enableServiceLinks: false,
    nodeSelector: { [v.nodeSelector.key]: v.nodeSelector.value, [ARCH_LABEL]: "amd64", [OS_LABEL]: "linux" },
    ...(v.toleration ? { tolerations: [{ key: v.toleration.key, operator: "Equal", value: v.toleration.value, effect: v.toleration.effect }] } : {}),
    securityContext: {
      runAsUser: RUNNER_UID,
      runAsGroup: RUNNER_GID,
      runAsNonRoot: true,
      seccompProfile: { type: "Localhost", localhostProfile: v.seccompProfilePath },
    },
    containers: [runnerContainer(v)],
    volumes,
  };
}

function networkPolicy(v: RunnerFields, app: AppIdentity, labels: Record<string, string>): K8sObject {
  // CR-15: no ingress rule; egress to DNS, the Server and egressAllow only.
  const egress: NetworkPolicyEgressRule[] = [dnsEgress()];
  const server = serverEgress(v.serverAddr);
  if (server) egress.push(server);
  const reach = serverReach(v);
  if (reach && !reach.covered) {
    // A NetworkPolicy cannot match a host name: the Server's port, to any address (a warning says so).
    egress.push({ to: [{ ipBlock: { cidr: "0.0.0.0/0" } }, { ipBlock: { cidr: "::/0" } }], ports: [{ protocol: "TCP", port: reach.port }] });
  }
  for (const rule of v.egressAllow) {
    const cidr = egressCidr(rule);
    if (!cidr) continue;
    const ports = rule.ports?.map((p) => ({ protocol: p.protocol, port: p.port }));
    egress.push(ports ? { to: [{ ipBlock: { cidr } }], ports } : { to: [{ ipBlock: { cidr } }] });
  }
  return networkPolicyObject({ name: v.name, namespace: v.namespace, labels, selector: selectorLabels(app), egress });
}
