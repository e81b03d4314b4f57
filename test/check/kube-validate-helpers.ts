// Valid objects (a container, a pod spec, a Deployment, a Service, a NetworkPolicy) to change one field of, for the kube-validate tests of this folder.
import type { Obj } from "../support/api-server.ts";

export const container = (extra: Obj = {}): Obj => ({
  name: "app",
  image: "ghcr.io/example/app:1.0",
  ports: [{ name: "http", containerPort: 8080 }],
  ...extra,
});
export const podSpec = (extra: Obj = {}): Obj => ({ containers: [container()], volumes: [{ name: "data", emptyDir: {} }], ...extra });
export const deployment = (spec: Obj = {}, name = "compass-server"): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "compass", labels: { "app.kubernetes.io/name": "compass-server" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { "app.kubernetes.io/name": "compass-server" } },
    template: { metadata: { labels: { "app.kubernetes.io/name": "compass-server" } }, spec: podSpec() },
    ...spec,
  },
});
export const withPod = (spec: Obj): Obj => deployment({ template: { metadata: { labels: { "app.kubernetes.io/name": "compass-server" } }, spec } });
export const service = (spec: Obj, name = "compass-server"): Obj => ({ apiVersion: "v1", kind: "Service", metadata: { name }, spec });
export const policy = (spec: Obj): Obj => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: "egress" },
  spec: { podSelector: {}, ...spec },
});
export const ipBlock = (cidr: string, except: string[] = []) => policy({ egress: [{ to: [{ ipBlock: { cidr, except } }] }] });
