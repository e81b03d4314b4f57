// Renders the Compass Server: a pure function from values to objects (CS-01,
// CS-03, CS-04, CS-08, CS-13).
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, EnvVar, PodSpec, Service, ServiceAccount, Volume, VolumeMount, VolumeProjection } from "kubernetes-types/core/v1";
import type { NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import type { ClusterRoleBinding } from "kubernetes-types/rbac/v1";
import { pinned } from "../../values/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../k8s/labels.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { dnsEgress, egressAllowRules, hardenedContainer, namespaceObject, networkPolicyObject, resourceRequirements } from "../../k8s/workload.ts";
import { configHash, natsEgress, natsUrlSecret, renderNats } from "./nats.ts";
import { PRIVATE_MODE, podSecurityContext } from "./ports.ts";
import { SERVER_APP, SERVER_SERVICE_PORT, SERVER_TLS_PORT } from "../compass-contract/ports.ts";
import { clusterFileItem, runnerClustersFile, withClusterCa } from "./runner-clusters.ts";
import { ISSUER_DISCOVERY_ROLE, UNAUTHENTICATED_GROUP } from "../compass-contract/interface.ts";
import {
  ADMIN_TOKEN_DIR,
  ADMIN_TOKEN_FILE,
  CONTAINER_NAME,
  FORGE_SECRET_NAMES,
  MASTER_KEY_SECRET,
  RUN_VOLUME_DIR,
  RUNNER_CLUSTER_FILES_DIR,
  RUNNER_CLUSTERS_DIR,
  RUNNER_CLUSTERS_KEY,
  SECRET_PROVIDER_URI,
  SERVER_INTERFACE as F,
  SERVER_SECRET_PREFIX,
  STATE_VOLUME_DIR,
  TLS_DIR,
  secretspecFile,
} from "./interface.ts";
import type { ClusterEntry, CompassServerValues, ServerFields } from "./values.ts";

export function serverIdentity(v: ServerFields): AppIdentity {
  return { name: SERVER_APP, instance: v.name, component: "server", partOf: "compass", image: v.image };
}

export function runnerClustersConfigMapName(v: Pick<ServerFields, "name">): string {
  return `${v.name}-runner-clusters`;
}

export function renderCompassServer(v: CompassServerValues): K8sObject[] {
  return renderServer(v, v.runnerClusters);
}

/** The Server's objects for the given cluster entries (given, or derived from a Runner). */
export function renderServer(v: ServerFields, given: readonly ClusterEntry[]): K8sObject[] {
  // CS-15: the cluster's own API server is trusted through its CA.
  const clusters = given.map(withClusterCa);
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
  const clustersText = runnerClustersFile(clusters);
  const clustersMap: ConfigMap & K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: runnerClustersConfigMapName(v), namespace: v.namespace, labels },
    data: { [RUNNER_CLUSTERS_KEY]: clustersText },
  };
  objects.push(
    serviceAccount,
    clustersMap,
    deployment(v, clusters, app, labels, clustersText),
    service(v, app, labels),
    networkPolicy(v, clusters, app, labels),
  );
  if (v.nats.mode === "bundled") objects.push(...renderNats({ name: v.name, namespace: v.namespace, serverSelector: selectorLabels(app), nats: v.nats }));
  if (clusters.some((c) => c.allowUnauthenticatedDiscovery)) objects.push(discoveryBinding(v, labels));
  return objects;
}

/** The name of the opt-in binding: cluster-scoped, so it carries the namespace. */
export function discoveryBindingName(v: Pick<ServerFields, "name" | "namespace">): string {
  return `${v.name}.${v.namespace}-issuer-discovery`;
}

/** CS-15, opted in: issuer discovery and keys readable without credentials, as the Server fetches them. */
function discoveryBinding(v: ServerFields, labels: Record<string, string>): ClusterRoleBinding & K8sObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: discoveryBindingName(v), labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: ISSUER_DISCOVERY_ROLE },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: UNAUTHENTICATED_GROUP }],
  };
}

function deployment(
  v: ServerFields,
  clusters: readonly ClusterEntry[],
  app: AppIdentity,
  labels: Record<string, string>,
  clustersText: string,
): Deployment & K8sObject {
  const tag: Record<string, string> = v.image.tag ? { "rigging.dev/image-tag": v.image.tag } : {};
  // The Server reads the file at boot: a change restarts the pod (Recreate).
  const clustersHash = configHash(clustersText);
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
        metadata: { labels, annotations: { ...tag, "rigging.dev/runner-clusters-sha256": clustersHash } },
        spec: podSpec(v, clusters),
      },
    },
  };
}

/** The SecretSpec files: NAME in the provider, and the Secret key that holds its value. */
function secretspecItems(v: ServerFields): { name: string; secret: { name: string; key: string } }[] {
  const items = [{ name: MASTER_KEY_SECRET, secret: v.masterKey }];
  const forge = v.forge;
  if (forge) {
    items.push({ name: SERVER_SECRET_PREFIX + FORGE_SECRET_NAMES.appKey, secret: forge.appKeySecret });
    items.push({ name: SERVER_SECRET_PREFIX + FORGE_SECRET_NAMES.appWebhook, secret: forge.appWebhookSecret });
    if (forge.reviewerAppKeySecret) items.push({ name: SERVER_SECRET_PREFIX + FORGE_SECRET_NAMES.reviewerAppKey, secret: forge.reviewerAppKeySecret });
  }
  return items;
}

/** The Server's command line: only its own flags (CS-13), in a fixed order. */
export function serverArgs(v: ServerFields): string[] {
  const args = [
    F.listen.flag,
    F.listen.rendered,
    F.tlsCert.flag,
    F.tlsCert.rendered,
    F.tlsKey.flag,
    F.tlsKey.rendered,
    F.socket.flag,
    F.socket.rendered,
    F.stateDir.flag,
    F.stateDir.rendered,
    F.secretProvider.flag,
    SECRET_PROVIDER_URI,
    F.runnerClusters.flag,
    F.runnerClusters.rendered,
    F.publicUrl.flag,
    `https://${v.publicHost}`,
  ];
  // CS-14: P4's flag only when asked for; the released Server exits 2 on it.
  if (v.designed.P4) args.push(F.adminTokenFile.flag, ADMIN_TOKEN_FILE);
  const forge = v.forge;
  if (forge) {
    args.push(F.forgeHost.flag, forge.host);
    if (forge.repos && forge.repos.length > 0) args.push(F.forgeRepos.flag, forge.repos.join(","));
    args.push(F.forgeAppId.flag, String(forge.appId), F.forgeInstallationId.flag, String(forge.installationId));
    args.push(F.forgeAppKeySecret.flag, FORGE_SECRET_NAMES.appKey, F.forgeAppWebhookSecret.flag, FORGE_SECRET_NAMES.appWebhook);
    if (forge.reviewerAppId !== undefined && forge.reviewerAppInstallationId !== undefined && forge.reviewerAppKeySecret) {
      args.push(F.forgeReviewerAppId.flag, String(forge.reviewerAppId), F.forgeReviewerAppInstallationId.flag, String(forge.reviewerAppInstallationId));
      args.push(F.forgeReviewerAppKeySecret.flag, FORGE_SECRET_NAMES.reviewerAppKey);
    }
    if (forge.scopeGrants && forge.scopeGrants.length > 0) args.push(F.forgeScopeGrants.flag, forge.scopeGrants.join(","));
    // `=`: one token, read alike whether the Server declares it a bool flag or a string.
    if (forge.disableScopeEnforcement) args.push(`${F.forgeDisableScopeEnforcement.flag}=true`);
  }
  return args;
}

function podSpec(v: ServerFields, clusters: readonly ClusterEntry[]): PodSpec {
  const nats = natsUrlSecret(v.nats);
  const env: EnvVar[] = [
    // CS-03: the DSN from a Secret by name.
    { name: F.database.env, valueFrom: { secretKeyRef: { name: v.database.dsnSecret.name, key: v.database.dsnSecret.key } } },
    // CS-07: the URL carries the NATS credentials, so the whole URL is a Secret key.
    { name: F.natsUrl.env, valueFrom: { secretKeyRef: { name: nats.name, key: nats.key } } },
  ];
  const secrets = secretspecItems(v);
  const mounts: VolumeMount[] = [
    { name: "tls", mountPath: TLS_DIR, readOnly: true },
    { name: "runner-clusters", mountPath: RUNNER_CLUSTERS_DIR, readOnly: true },
    // CS-05: SecretSpec's file provider refuses symbolic links under its
    // root, and a Secret volume is made of them: each file is bound alone.
    ...secrets.map((s) => ({ name: "secretspec", mountPath: secretspecFile(s.name), subPath: s.name, readOnly: true })),
    ...(v.adminToken && v.designed.P4 ? [{ name: "admin-token", mountPath: ADMIN_TOKEN_DIR, readOnly: true }] : []),
    { name: "run", mountPath: RUN_VOLUME_DIR },
    { name: "state", mountPath: STATE_VOLUME_DIR },
    { name: "tmp", mountPath: "/tmp" },
  ];
  const volumes: Volume[] = [
    // CS-08: the kubernetes.io/tls Secret; the Server terminates TLS itself.
    {
      name: "tls",
      secret: {
        secretName: v.tls.secretName,
        defaultMode: PRIVATE_MODE,
        items: [
          { key: "tls.crt", path: "tls.crt" },
          { key: "tls.key", path: "tls.key" },
        ],
      },
    },
    { name: "runner-clusters", configMap: { name: runnerClustersConfigMapName(v) } },
    {
      name: "secretspec",
      projected: {
        defaultMode: PRIVATE_MODE,
        sources: secrets.map((s) => ({ secret: { name: s.secret.name, items: [{ key: s.secret.key, path: s.name }] } })),
      },
    },
    // CS-06 (P4, opted in): the admin token, a 0400 file passed by path.
    ...(v.adminToken && v.designed.P4
      ? [{ name: "admin-token", secret: { secretName: v.adminToken.name, defaultMode: PRIVATE_MODE, items: [{ key: v.adminToken.key, path: "token" }] } }]
      : []),
    // CS-13: the socket's and the state's trees, writable under the read-only root.
    { name: "run", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
    { name: "state", emptyDir: { sizeLimit: "16Mi" } },
    { name: "tmp", emptyDir: { sizeLimit: "64Mi" } },
  ];
  const files = clusterFileSources(clusters);
  if (files.length > 0) {
    volumes.splice(2, 0, { name: "runner-cluster-files", projected: { sources: files } });
    mounts.splice(2, 0, { name: "runner-cluster-files", mountPath: RUNNER_CLUSTER_FILES_DIR, readOnly: true });
  }
  return {
    serviceAccountName: v.serviceAccount,
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // CS-10: no kubernetes.io/arch here; the image is multi-arch (D10).
    ...(Object.keys(v.nodeSelector).length > 0 ? { nodeSelector: v.nodeSelector } : {}),
    ...(v.tolerations.length > 0 ? { tolerations: v.tolerations } : {}),
    securityContext: podSecurityContext(),
    containers: [
      {
        name: CONTAINER_NAME,
        image: pinned(v.image),
        args: serverArgs(v),
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

/** Each entry's jwksFile and caFile, from its ConfigMap key to `<entry>/<file>`. */
function clusterFileSources(clusters: readonly ClusterEntry[]): VolumeProjection[] {
  return clusters.flatMap((c) =>
    (["jwksFile", "caFile"] as const).flatMap((which) => {
      const ref = c[which];
      return ref ? [{ configMap: { name: ref.configMap, items: [{ key: ref.key, path: clusterFileItem(c, which) }] } }] : [];
    }),
  );
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

function networkPolicy(v: ServerFields, clusters: readonly ClusterEntry[], app: AppIdentity, labels: Record<string, string>): K8sObject {
  const egress: NetworkPolicyEgressRule[] = [
    dnsEgress(),
    { to: [{ ipBlock: { cidr: v.database.cidr } }], ports: [{ protocol: "TCP", port: v.database.port }] },
  ];
  egress.push(natsEgress({ name: v.name, namespace: v.namespace, nats: v.nats }));
  if (v.forge) egress.push(...egressAllowRules(v.forge.egress));
  // Issuer discovery and JWKS, unless every entry has its keys in a file.
  if (clusters.some((c) => c.jwksFile === undefined)) egress.push(...egressAllowRules(v.issuerEgress ?? []));
  // CS-11: in only on the TLS port (from anywhere: Runners, people, forge webhooks).
  const ingress = [{ ports: [{ protocol: "TCP", port: SERVER_TLS_PORT }] }];
  return networkPolicyObject({ name: v.name, namespace: v.namespace, labels, selector: selectorLabels(app), ingress, egress });
}
