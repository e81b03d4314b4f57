// Renders the Compass Server: a pure function from validated values to
// objects. One pod (CS-01), Postgres never rendered (CS-03), every secret
// by Secret name (CS-04), TLS terminated by the Server itself (CS-08).
import { createHash } from "node:crypto";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, EnvVar, PodSpec, Service, ServiceAccount, Volume, VolumeMount } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import { pinned } from "../../core/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../core/labels.ts";
import type { K8sObject } from "../../core/objects.ts";
import { dnsEgress, egressAllowRules, hardenedContainer, namespaceObject, networkPolicyObject, resourceRequirements } from "../../core/workload.ts";
import { FORGE_APPS, FORGE_FILES, forgeAppDir, serverConfigText } from "./config.ts";
import { natsEgress, renderNats } from "./nats.ts";
import {
  ADMIN_TOKEN_DIR,
  CONFIG_DIR,
  CONFIG_FILE,
  DATABASE_URL_ENV,
  MASTER_KEY_DIR,
  NATS_PASSWORD_ENV,
  PRIVATE_MODE,
  SERVER_APP,
  SERVER_SERVICE_PORT,
  SERVER_TLS_PORT,
  SERVER_UID,
  TLS_DIR,
} from "./ports.ts";
import type { ClusterEntry, CompassServerValues, ServerFields } from "./values.ts";

export const MASTER_KEY_FILE = `${MASTER_KEY_DIR}/master-key`;
export const ADMIN_TOKEN_FILE = `${ADMIN_TOKEN_DIR}/token`;
export const TLS_CERT_FILE = `${TLS_DIR}/tls.crt`;
export const TLS_KEY_FILE = `${TLS_DIR}/tls.key`;

export function serverIdentity(v: ServerFields): AppIdentity {
  return { name: SERVER_APP, instance: v.name, component: "server", partOf: "compass", image: v.image };
}

export function configMapName(v: Pick<ServerFields, "name">): string {
  return `${v.name}-config`;
}

export function renderCompassServer(v: CompassServerValues): K8sObject[] {
  return renderServer(v, v.clusters);
}

/** The Server's objects for the given cluster entries (given, or derived from a Runner). */
export function renderServer(v: ServerFields, clusters: readonly ClusterEntry[]): K8sObject[] {
  const app = serverIdentity(v);
  const labels = recommendedLabels(app);
  const objects: K8sObject[] = [];
  if (v.createNamespace) objects.push(namespaceObject(v.namespace, "restricted", labels));
  const serviceAccount: ServiceAccount & K8sObject = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: v.serviceAccount, namespace: v.namespace, labels },
    // The Server calls no Kubernetes API: an API token would be an unused credential.
    automountServiceAccountToken: false,
  };
  const configText = serverConfigText(v, clusters);
  const config: ConfigMap & K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: configMapName(v), namespace: v.namespace, labels },
    data: { [CONFIG_FILE]: configText },
  };
  objects.push(serviceAccount, config, deployment(v, app, labels, configText), service(v, app, labels), networkPolicy(v, app, labels));
  if (v.nats.mode === "bundled") objects.push(...renderNats({ name: v.name, namespace: v.namespace, serverSelector: selectorLabels(app), nats: v.nats }));
  return objects;
}

function deployment(v: ServerFields, app: AppIdentity, labels: Record<string, string>, configText: string): Deployment & K8sObject {
  const tag: Record<string, string> = v.image.tag ? { "rigging.dev/image-tag": v.image.tag } : {};
  // A config change restarts the pod (Recreate): the Server reads its file at boot.
  const configHash = createHash("sha256").update(configText).digest("hex").slice(0, 16);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: v.name, namespace: v.namespace, labels, ...(v.image.tag ? { annotations: tag } : {}) },
    spec: {
      // CS-01 (D1): one Server pod; Recreate stops it before its successor starts.
      replicas: 1,
      strategy: { type: "Recreate" },
      selector: { matchLabels: selectorLabels(app) },
      template: {
        metadata: { labels, annotations: { ...tag, "rigging.dev/config-sha256": configHash } },
        spec: podSpec(v),
      },
    },
  };
}

function podSpec(v: ServerFields): PodSpec {
  const env: EnvVar[] = [
    // CS-03: the connection string comes from a Secret by name.
    { name: DATABASE_URL_ENV, valueFrom: { secretKeyRef: { name: v.database.urlSecret.name, key: v.database.urlSecret.key } } },
    { name: NATS_PASSWORD_ENV, valueFrom: { secretKeyRef: { name: v.nats.passwordSecret.name, key: v.nats.passwordSecret.key } } },
  ];
  const mounts: VolumeMount[] = [
    { name: "config", mountPath: CONFIG_DIR, readOnly: true },
    { name: "tls", mountPath: TLS_DIR, readOnly: true },
    { name: "master-key", mountPath: MASTER_KEY_DIR, readOnly: true },
    { name: "admin-token", mountPath: ADMIN_TOKEN_DIR, readOnly: true },
  ];
  const volumes: Volume[] = [
    { name: "config", configMap: { name: configMapName(v) } },
    // CS-08: the kubernetes.io/tls Secret; the Server terminates TLS itself.
    { name: "tls", secret: { secretName: v.tls.secretName, defaultMode: PRIVATE_MODE, items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }] } },
    // CS-05 and CS-06: files of Secret volumes, owner-read only, passed by path.
    { name: "master-key", secret: { secretName: v.masterKey.name, defaultMode: PRIVATE_MODE, items: [{ key: v.masterKey.key, path: "master-key" }] } },
    { name: "admin-token", secret: { secretName: v.adminToken.name, defaultMode: PRIVATE_MODE, items: [{ key: v.adminToken.key, path: "token" }] } },
  ];
  if (v.forge) {
    for (const which of ["app", "reviewerApp"] as const) {
      const app = v.forge[which];
      if (!app) continue;
      const name = `forge-${FORGE_APPS[which]}`;
      volumes.push({
        name,
        projected: {
          defaultMode: PRIVATE_MODE,
          sources: (["appId", "privateKey", "webhookSecret"] as const).map((item) => ({ secret: { name: app[item].name, items: [{ key: app[item].key, path: FORGE_FILES[item] }] } })),
        },
      });
      mounts.push({ name, mountPath: forgeAppDir(which), readOnly: true });
    }
  }
  volumes.push({ name: "tmp", emptyDir: { sizeLimit: "64Mi" } });
  mounts.push({ name: "tmp", mountPath: "/tmp" });
  return {
    serviceAccountName: v.serviceAccount,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // CS-10: no kubernetes.io/arch here; the image is multi-arch (D10).
    ...(Object.keys(v.nodeSelector).length > 0 ? { nodeSelector: v.nodeSelector } : {}),
    ...(v.tolerations.length > 0 ? { tolerations: v.tolerations } : {}),
    securityContext: {
      runAsUser: SERVER_UID,
      runAsGroup: SERVER_UID,
      runAsNonRoot: true,
      // Secret volume files belong to root unless fsGroup is set; with it the
      // kubelet gives them to group 65532, so the Server can read its 0400 files.
      fsGroup: SERVER_UID,
      seccompProfile: { type: "RuntimeDefault" },
    },
    containers: [
      {
        name: "server",
        image: pinned(v.image),
        args: [
          "--config", `${CONFIG_DIR}/${CONFIG_FILE}`,
          "--tls-cert-file", TLS_CERT_FILE,
          "--tls-key-file", TLS_KEY_FILE,
          "--master-key-file", MASTER_KEY_FILE,
          "--admin-token-file", ADMIN_TOKEN_FILE,
        ],
        env,
        ports: [{ name: "https", containerPort: SERVER_TLS_PORT, protocol: "TCP" }],
        readinessProbe: { tcpSocket: { port: "https" }, periodSeconds: 10 },
        resources: resourceRequirements(v.resources),
        securityContext: hardenedContainer(),
        volumeMounts: mounts,
      },
    ],
    volumes,
  };
}

function service(v: ServerFields, app: AppIdentity, labels: Record<string, string>): Service & K8sObject {
  const annotations = Object.keys(v.service.annotations).length > 0 ? { annotations: v.service.annotations } : {};
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: v.name, namespace: v.namespace, labels, ...annotations },
    spec: {
      type: v.service.type,
      selector: selectorLabels(app),
      // CS-08: 443 straight to the Server's own TLS listener; nothing in between decrypts.
      ports: [{ name: "https", port: SERVER_SERVICE_PORT, targetPort: SERVER_TLS_PORT, protocol: "TCP" }],
    },
  };
}

function networkPolicy(v: ServerFields, app: AppIdentity, labels: Record<string, string>): K8sObject {
  const egress: NetworkPolicyEgressRule[] = [dnsEgress(), { to: [{ ipBlock: { cidr: v.database.cidr } }], ports: [{ protocol: "TCP", port: v.database.port }] }];
  const nats = natsEgress({ name: v.name, namespace: v.namespace, nats: v.nats });
  if (nats) egress.push(nats);
  if (v.forge) egress.push(...egressAllowRules(v.forge.egress));
  // CS-11: in only on the TLS port (from anywhere: Runners, people, forge webhooks).
  const ingress = [{ ports: [{ protocol: "TCP", port: SERVER_TLS_PORT }] }];
  return networkPolicyObject({ name: v.name, namespace: v.namespace, labels, selector: selectorLabels(app), ingress, egress });
}
