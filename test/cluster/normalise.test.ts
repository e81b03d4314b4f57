// The normalising stage's defaults (src/normalise/defaults.ts) against a real
// API server: each object normalised equals what the server stores for it, but
// for the fields listed here, each with why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { DEFAULTS } from "../../src/normalise/defaults.ts";
import { normalise } from "../../src/normalise/index.ts";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { EXAMPLES, examplePath, rendered } from "./support/install.ts";

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
  await cp.api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } });
  await cp.api("POST", "/api/v1/namespaces/ns/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "runner" } });
});
afterAll(async () => {
  await cp?.stop();
});

/** Fields the server writes that are no default of an object's own, or that the kubelet's view adds. */
const NOT_DEFAULTS: [pattern: RegExp, why: string][] = [
  [/^metadata\.(uid|resourceVersion|creationTimestamp|managedFields|generation)$/, "written by the server for every object"],
  [/^status$/, "the object's status, not its spec"],
  [/^spec\.(clusterIPs?|ipFamilies|ipFamilyPolicy|internalTrafficPolicy)$/, "the Service registry's allocation, not a default"],
  [/volumeMounts\.\d+\.readOnly$/, "the kubelet mounts Secret, ConfigMap, downward API and projected volumes read-only; the server stores what was written"],
  [/^spec\.template\.metadata\.creationTimestamp$/, "a null the server writes into templates"],
  [/^metadata\.namespace$/, "the namespace of the request"],
  [/^metadata\.annotations(\.deprecated\.daemonset\.template\.generation)?$/, "the DaemonSet controller's bookkeeping"],
  [
    /^spec\.(containers\.\d+\.volumeMounts(\.\d+)?|volumes\.\d+|tolerations|priority|preemptionPolicy)$/,
    "added to a Pod by admission plugins (ServiceAccount's API token volume, DefaultTolerationSeconds, Priority), not defaults of the object",
  ],
  [/^spec\.ports\.\d+\.nodePort$/, "the Service registry's allocation, not a default"],
  [
    /^spec\.template\.spec\.(enableServiceLinks|containers\.\d+\.resources\.requests)$/,
    "pkg/apis/core/v1/defaults.go SetDefaults_Pod sets it when the pod is stored, not in a template: the pod that runs has it (the Pod case shows it)",
  ],
];

/** Paths and values where two objects differ, as `path: a → b`. */
function differences(a: unknown, b: unknown, path = ""): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  // The server drops a false of an omitempty boolean; absent and false are one value.
  if ((a === false && b === undefined) || (a === undefined && b === false)) return [];
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => differences((a as any)[k], (b as any)[k], path ? `${path}.${k}` : k));
  }
  return [`${path}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`];
}

async function storedFor(object: K8sObject): Promise<unknown> {
  const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const list = (await cp.api("GET", base)).json() as { resources: { name: string; kind: string; namespaced: boolean }[] };
  const resource = list.resources.find((r) => r.kind === object.kind && !r.name.includes("/"))!;
  const path = `${base}${resource.namespaced ? "/namespaces/ns" : ""}/${resource.name}?dryRun=All&fieldValidation=Strict`;
  const reply = await cp.api("POST", path, { ...object, metadata: { ...object.metadata, ...(resource.namespaced ? { namespace: "ns" } : {}) } });
  if (reply.status !== 201) throw new Error(`${object.kind}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return reply.json();
}

async function expectServerDefaults(object: K8sObject): Promise<void> {
  const stored = await storedFor(object);
  const [normal] = normalise([{ ...object, metadata: { ...object.metadata, namespace: "ns" } }]).objects;
  const left = differences(normal, stored).filter((d) => !NOT_DEFAULTS.some(([pattern]) => pattern.test(d.split(":")[0])));
  expect(left.join("\n"), `${object.kind} ${object.metadata.name}`).toBe("");
}

const container = {
  name: "c",
  image: "registry.example.com/app:1.0",
  ports: [{ containerPort: 8080 }],
  env: [{ name: "NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }],
  livenessProbe: { httpGet: { port: 8080 } },
  readinessProbe: { tcpSocket: { port: 8080 } },
  resources: { limits: { memory: "1Gi", cpu: "1" } },
  volumeMounts: [{ name: "token", mountPath: "/token" }],
};
const podSpec = {
  serviceAccount: "runner",
  containers: [container, { name: "latest", image: "busybox" }],
  volumes: [
    { name: "token", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } },
    { name: "secret", secret: { secretName: "s" } },
    { name: "config", configMap: { name: "c" } },
    { name: "down", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
    { name: "host", hostPath: { path: "/var/lib/x" } },
  ],
};
const template = { metadata: { labels: { app: "a" } }, spec: podSpec };

const OBJECTS: K8sObject[] = [
  { apiVersion: "v1", kind: "Pod", metadata: { name: "pod" }, spec: podSpec },
  { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "deploy" }, spec: { selector: { matchLabels: { app: "a" } }, template } },
  { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds" }, spec: { selector: { matchLabels: { app: "a" } }, template } },
  {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "sts" },
    spec: { selector: { matchLabels: { app: "a" } }, serviceName: "svc", template, updateStrategy: { type: "OnDelete" } },
  },
  { apiVersion: "v1", kind: "Service", metadata: { name: "svc" }, spec: { selector: { app: "a" }, ports: [{ port: 443 }] } },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "lb" },
    spec: { type: "LoadBalancer", selector: { app: "a" }, ports: [{ port: 443, targetPort: "https" }] },
  },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "np" },
    spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }], ingress: [{ ports: [{ port: 443 }] }] },
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "rb" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
    subjects: [
      { kind: "User", name: "alice" },
      { kind: "Group", name: "devs" },
      { kind: "ServiceAccount", name: "sa", namespace: "ns" },
    ],
  },
] as K8sObject[];

describe("the stage's defaults are the API server's", () => {
  for (const object of OBJECTS) {
    it(`${object.kind}: normalised equals stored`, async () => {
      await expectServerDefaults(object);
    });
  }

  for (const example of EXAMPLES) {
    it(`${example}: each workload normalised equals stored`, async () => {
      for (const object of await rendered(examplePath(example))) {
        if (["DaemonSet", "Deployment", "Service", "NetworkPolicy", "RoleBinding", "ClusterRoleBinding"].includes(object.kind))
          await expectServerDefaults(object);
      }
    });
  }

  it("every default of the data is exercised by the objects above", () => {
    const text = JSON.stringify(normalise(OBJECTS.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: "ns" } }))).objects);
    const missing = DEFAULTS.filter((d) => !text.includes(`"${d.field}"`)).map((d) => `${d.scope}.${d.field}`);
    expect(missing, "defaults no object above shows").toEqual([]);
  });
});
