// Renders the Compass Runner: a pure function from validated values to
// objects (CR-01). No I/O, no clock, no globals.
import type { DaemonSet } from "kubernetes-types/apps/v1";
import type { EnvVar, PodSpec, ServiceAccount, Volume, VolumeMount } from "kubernetes-types/core/v1";
import { pinned } from "../../core/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../core/labels.ts";
import type { K8sObject } from "../../core/objects.ts";
import { dnsEgress, egressAllowRules, hardenedContainer, namespaceObject, networkPolicyObject, resourceRequirements } from "../../core/workload.ts";
import { admissionPolicies } from "./admission.ts";
import { serverEgress } from "./network.ts";
import { ARCH_LABEL, RUNNER_AUDIENCE, type RunnerFields } from "./values.ts";

/** Where the Runner finds its only credential (CR-03). */
export const TOKEN_DIR = "/var/run/secrets/compass/runner";
export const TOKEN_PATH = `${TOKEN_DIR}/token`;
/** Mount points inside the pod of the two host trees (CR-11). */
export const SESSIONS_MOUNT = "/var/lib/compass/sessions";
export const RUNTIME_MOUNT = "/var/lib/compass/runtime";
/** The quota subdirectory of the session mount, not the mount point (P8). */
export const VOLUME_ROOT = `${SESSIONS_MOUNT}/volumes`;
export const CA_DIR = "/etc/compass/server-ca";
export const RUNNER_UID = 65532;

export function runnerIdentity(v: RunnerFields): AppIdentity {
  return { name: "compass-runner", instance: v.name, component: "runner", partOf: "compass", image: v.image };
}

export function renderCompassRunner(v: RunnerFields): K8sObject[] {
  const app = runnerIdentity(v);
  const labels = recommendedLabels(app);
  const objects: K8sObject[] = [];
  if (v.createNamespace) objects.push(namespaceObject(v.namespace, "privileged", labels));
  objects.push(
    ...admissionPolicies({
      prefix: `${v.name}.${v.namespace}`,
      namespace: v.namespace,
      serviceAccount: v.serviceAccount,
      labels,
      daemonSetName: v.name,
      containerName: "runner",
      podSelector: selectorLabels(app),
      imageRepository: v.image.repository,
      hostPaths: [v.hostPaths.sessions, v.hostPaths.runtime],
      seccompProfile: v.seccompProfilePath,
      controllers: v.admission.controllers,
      deployers: v.admission.deployers,
      breakGlassGroups: v.admission.breakGlassGroups,
    }),
  );
  objects.push(serviceAccount(v, labels));
  const ca = v.server.serverCA;
  if (ca && "pem" in ca) {
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${v.name}-server-ca`, namespace: v.namespace, labels },
      data: { "ca.crt": ca.pem.endsWith("\n") ? ca.pem : ca.pem + "\n" },
    });
  }
  objects.push(daemonSet(v, app, labels));
  objects.push(networkPolicy(v, app, labels));
  return objects;
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
  const annotations: Record<string, string> = v.image.tag ? { "rigging.dev/image-tag": v.image.tag } : {};
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: v.name, namespace: v.namespace, labels, ...(v.image.tag ? { annotations } : {}) },
    spec: {
      selector: { matchLabels: selectorLabels(app) },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels, ...(v.image.tag ? { annotations } : {}) },
        spec: podSpec(v),
      },
    },
  };
}

function podSpec(v: RunnerFields): PodSpec {
  const env: EnvVar[] = [
    { name: "COMPASS_SERVER_URL", value: v.server.address },
    { name: "COMPASS_RUNNER_TOKEN_FILE", value: TOKEN_PATH },
    { name: "COMPASS_MICROVM_VOLUME_ROOT", value: VOLUME_ROOT },
    { name: "COMPASS_RUNTIME_ROOT", value: RUNTIME_MOUNT },
  ];
  const mounts: VolumeMount[] = [
    { name: "runner-token", mountPath: TOKEN_DIR, readOnly: true },
    { name: "sessions", mountPath: SESSIONS_MOUNT },
    { name: "runtime", mountPath: RUNTIME_MOUNT },
    { name: "tmp", mountPath: "/tmp" },
  ];
  const volumes: Volume[] = [
    {
      name: "runner-token",
      projected: {
        sources: [{ serviceAccountToken: { audience: RUNNER_AUDIENCE, expirationSeconds: v.tokenExpirationSeconds, path: "token" } }],
      },
    },
    { name: "sessions", hostPath: { path: v.hostPaths.sessions, type: "Directory" } },
    { name: "runtime", hostPath: { path: v.hostPaths.runtime, type: "Directory" } },
    { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
  ];
  const ca = v.server.serverCA;
  if (ca) {
    const source =
      "pem" in ca
        ? { configMap: { name: `${v.name}-server-ca`, items: [{ key: "ca.crt", path: "ca.crt" }] } }
        : "configMap" in ca
          ? { configMap: { name: ca.configMap.name, items: [{ key: ca.configMap.key, path: "ca.crt" }] } }
          : { secret: { secretName: ca.secret.name, items: [{ key: ca.secret.key, path: "ca.crt" }] } };
    volumes.push({ name: "server-ca", ...source });
    mounts.push({ name: "server-ca", mountPath: CA_DIR, readOnly: true });
    env.push({ name: "COMPASS_SERVER_CA_FILE", value: `${CA_DIR}/ca.crt` });
  }
  if (v.otel) env.push({ name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: v.otel.endpoint });
  return {
    serviceAccountName: v.serviceAccount,
    automountServiceAccountToken: false,
    hostUsers: false,
    enableServiceLinks: false,
    nodeSelector: { ...v.nodeSelector, [ARCH_LABEL]: "amd64", "kubernetes.io/os": "linux" },
    ...(v.tolerations.length > 0 ? { tolerations: v.tolerations } : {}),
    securityContext: {
      runAsUser: RUNNER_UID,
      runAsGroup: RUNNER_UID,
      runAsNonRoot: true,
      seccompProfile: { type: "Localhost", localhostProfile: v.seccompProfilePath },
    },
    containers: [
      {
        name: "runner",
        image: pinned(v.image),
        ...(v.server.serverName ? { args: ["--server-name", v.server.serverName] } : {}),
        env,
        resources: resourceRequirements(v.resources, { [v.kvmResourceName]: "1" }),
        securityContext: hardenedContainer(),
        volumeMounts: mounts,
      },
    ],
    volumes,
  };
}

function networkPolicy(v: RunnerFields, app: AppIdentity, labels: Record<string, string>): K8sObject {
  const server = serverEgress(v.server.address);
  // CR-15: no ingress rule; egress to DNS, the Server and egressAllow only.
  const egress = [dnsEgress(), ...(server ? [server] : []), ...egressAllowRules(v.egressAllow)];
  return networkPolicyObject({ name: v.name, namespace: v.namespace, labels, selector: selectorLabels(app), egress });
}
