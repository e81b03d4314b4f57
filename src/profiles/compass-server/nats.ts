// NATS with password auth (CS-07): either bundled (one NATS pod, pinned by
// digest, reachable only from the Server) or external (a URL plus the
// password Secret). Either way the password reaches the Server from a
// Secret by name, never from values.
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, Service, ServiceAccount } from "kubernetes-types/core/v1";
import type { NetworkPolicy, NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import { z } from "zod";
import { cidrProblem, resourcesSchema, type Resources } from "../../core/common-values.ts";
import { imageSchema, pinned, type ImageRef } from "../../core/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../core/labels.ts";
import type { K8sObject } from "../../core/objects.ts";
import { once, req, tagged } from "../../core/values.ts";
import { hardenedContainer, ipLiteralPeer, resourceRequirements } from "../../core/workload.ts";
import { inClusterService } from "../compass-runner/network.ts";
import { NATS_APP, NATS_PORT, SERVER_UID } from "./ports.ts";
import { secretKeyReference } from "./secret-refs.ts";

export const NATS_RESOURCES = { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "256Mi" } };
const NATS_CONFIG_DIR = "/etc/nats";
const NATS_PASSWORD_VAR = "NATS_PASSWORD";

const natsUser = once(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9][-_.A-Za-z0-9]{0,62}$/, req("CS-07", "the NATS user is up to 63 of [-_.A-Za-z0-9], such as compass", "is not a NATS user name"))
    .default("compass")
    .meta({ description: "The NATS user the Server authenticates as (password from passwordSecret)" }),
);

const passwordSecret = once(() => secretKeyReference("CS-07", "the NATS password", "password").meta({ description: "The Secret key holding the NATS password (CS-04, CS-07)" }));

/** Why a NATS URL is unfit, if it is: nats:// or tls://, a host, no userinfo, path or query. */
export function natsUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "nats:" && url.protocol !== "tls:") return `uses ${url.protocol.replace(":", "")}://, not nats:// or tls://`;
  if (url.username || url.password) return "carries userinfo (the user goes in nats.user, the password in nats.passwordSecret)";
  if (!url.hostname) return "has no host";
  if ((url.pathname && url.pathname !== "/") || url.search || url.hash) return "carries a path, query or fragment";
  return undefined;
}

const natsUrl = once(() =>
  z.string(req("CS-07", "give the NATS URL, such as tls://nats.example.net:4222")).superRefine((text, ctx) => {
    const problem = natsUrlProblem(text);
    if (problem) ctx.addIssue({ code: "custom", input: text, message: tagged("CS-07", problem, "give the NATS URL as nats://host:port or tls://host:port") });
  }),
);

const cidr = once(() =>
  z.string().superRefine((text, ctx) => {
    const problem = cidrProblem(text);
    if (problem) ctx.addIssue({ code: "custom", input: text, message: tagged("CS-11", problem, "give the NATS servers' address range in CIDR notation; NetworkPolicy cannot match host names") });
  }),
);

export const natsSchema = once(() =>
  z.discriminatedUnion(
    "mode",
    [
      z.strictObject({
        mode: z.literal("bundled"),
        image: imageSchema(),
        user: natsUser(),
        passwordSecret: passwordSecret(),
        resources: resourcesSchema("G-08", NATS_RESOURCES),
      }),
      z.strictObject({
        mode: z.literal("external"),
        url: natsUrl(),
        user: natsUser(),
        passwordSecret: passwordSecret(),
        cidr: cidr().optional().meta({ description: "The NATS servers' address range, for the Server's egress (CS-11); not needed for an IP literal or an in-cluster Service name" }),
      }),
    ],
    req("CS-07", "set nats.mode to bundled (one NATS pod rendered here) or external (nats.url plus nats.passwordSecret)", "expected nats.mode bundled or external"),
  ),
);

export type NatsValues = z.output<ReturnType<typeof natsSchema>>;

export interface NatsInput {
  /** The installation name; the NATS objects are `<name>-nats`. */
  name: string;
  namespace: string;
  /** The Server pods, the only clients NATS accepts. */
  serverSelector: Record<string, string>;
  nats: Extract<NatsValues, { mode: "bundled" }>;
}

export function natsName(name: string): string {
  return `${name}-nats`;
}

/** The URL the Server dials. */
export function natsUrlOf(name: string, namespace: string, nats: NatsValues): string {
  return nats.mode === "external" ? nats.url : `nats://${natsName(name)}.${namespace}.svc:${NATS_PORT}`;
}

export function natsIdentity(name: string, image: ImageRef): AppIdentity {
  return { name: NATS_APP, instance: name, component: "nats", partOf: "compass", image };
}

/** The Server's egress rule to NATS (CS-11). */
export function natsEgress(input: { name: string; namespace: string; nats: NatsValues }): NetworkPolicyEgressRule | undefined {
  const { nats } = input;
  if (nats.mode === "bundled") {
    return { to: [{ podSelector: { matchLabels: selectorLabels(natsIdentity(input.name, nats.image)) } }], ports: [{ protocol: "TCP", port: NATS_PORT }] };
  }
  const url = new URL(nats.url);
  const port = Number(url.port || NATS_PORT);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const ports = [{ protocol: "TCP", port }];
  if (nats.cidr) return { to: [{ ipBlock: { cidr: nats.cidr } }], ports };
  const peer = ipLiteralPeer(host);
  if (peer) return { to: [peer], ports };
  const service = inClusterService(host);
  if (service) return { to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": service.namespace } } }], ports };
  return undefined;
}

/** The bundled NATS: ServiceAccount, ConfigMap, Deployment, Service, NetworkPolicy. */
export function renderNats(input: NatsInput): K8sObject[] {
  const app = natsIdentity(input.name, input.nats.image);
  const labels = recommendedLabels(app);
  const name = natsName(input.name);
  const meta = { name, namespace: input.namespace, labels };
  const serviceAccount: ServiceAccount & K8sObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: meta, automountServiceAccountToken: false };
  const config: ConfigMap & K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { ...meta, name: `${name}-config` },
    // `$NATS_PASSWORD` is resolved by nats-server from its environment,
    // which takes it from the Secret: the password is in neither file.
    data: { "nats.conf": natsConfig(input.nats.user) },
  };
  return [serviceAccount, config, deployment(input, app, labels, name), service(app, meta), networkPolicy(input, app, meta)];
}

function natsConfig(user: string): string {
  return [
    "# nats-server configuration rendered by rigging (CS-07): core NATS with password auth.",
    `port: ${NATS_PORT}`,
    "authorization {",
    `  user: ${JSON.stringify(user)}`,
    `  password: $${NATS_PASSWORD_VAR}`,
    "}",
    "",
  ].join("\n");
}

function deployment(input: NatsInput, app: AppIdentity, labels: Record<string, string>, name: string): Deployment & K8sObject {
  const { nats } = input;
  const annotations = nats.image.tag ? { annotations: { "rigging.dev/image-tag": nats.image.tag } } : {};
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: input.namespace, labels, ...annotations },
    spec: {
      // A single NATS pod (CS-07); Recreate keeps it single across updates.
      replicas: 1,
      strategy: { type: "Recreate" },
      selector: { matchLabels: selectorLabels(app) },
      template: {
        metadata: { labels, ...annotations },
        spec: {
          serviceAccountName: name,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsUser: SERVER_UID, runAsGroup: SERVER_UID, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "nats",
              image: pinned(nats.image),
              args: ["--config", `${NATS_CONFIG_DIR}/nats.conf`],
              env: [{ name: NATS_PASSWORD_VAR, valueFrom: { secretKeyRef: { name: nats.passwordSecret.name, key: nats.passwordSecret.key } } }],
              ports: [{ name: "client", containerPort: NATS_PORT, protocol: "TCP" }],
              readinessProbe: { tcpSocket: { port: "client" }, periodSeconds: 10 },
              resources: resourceRequirements(nats.resources as Resources),
              securityContext: hardenedContainer(),
              volumeMounts: [{ name: "config", mountPath: NATS_CONFIG_DIR, readOnly: true }],
            },
          ],
          volumes: [{ name: "config", configMap: { name: `${name}-config` } }],
        },
      },
    },
  };
}

function service(app: AppIdentity, meta: K8sObject["metadata"]): Service & K8sObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta,
    spec: { type: "ClusterIP", selector: selectorLabels(app), ports: [{ name: "client", port: NATS_PORT, targetPort: "client", protocol: "TCP" }] },
  };
}

function networkPolicy(input: NatsInput, app: AppIdentity, meta: K8sObject["metadata"]): NetworkPolicy & K8sObject {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: meta,
    spec: {
      podSelector: { matchLabels: selectorLabels(app) },
      // Reachable only from the Server pods (CS-07); NATS dials nothing.
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ from: [{ podSelector: { matchLabels: input.serverSelector } }], ports: [{ protocol: "TCP", port: NATS_PORT }] }],
    },
  };
}
