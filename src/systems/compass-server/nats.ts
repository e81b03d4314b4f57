// NATS for the Server (CS-07, CS-13), bundled or external. The credentials
// travel inside COMPASS_NATS_URL, so the whole URL is one Secret key.
import { createHash } from "node:crypto";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, Service, ServiceAccount } from "kubernetes-types/core/v1";
import type { NetworkPolicy, NetworkPolicyEgressRule } from "kubernetes-types/networking/v1";
import { z } from "zod";
import { cidrSchema, resourcesSchema, type Resources } from "../../values/common-values.ts";
import { imageSchema, pinned, type ImageRef } from "../../values/image.ts";
import { recommendedLabels, selectorLabels, type AppIdentity } from "../../k8s/labels.ts";
import { dnsLabel } from "../../k8s/names.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { fail, once, refineBy, refused, req, type IssueSink } from "../../values/values.ts";
import { hardenedContainer, resourceRequirements } from "../../k8s/workload.ts";
import { NATS_PORT, podSecurityContext } from "./ports.ts";
import { NATS_APP, NATS_CONFIG_HASH } from "../compass-contract/ports.ts";
import { secretKeyReference } from "./secret-refs.ts";
import { MEMORY_STORE_WHY, reachesLimit } from "./nats-memory.ts";

export const NATS_RESOURCES = { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "256Mi" } };
export const NATS_CONFIG_DIR = "/etc/nats";
export const NATS_CONFIG_KEY = "nats.conf";
/** nats-server resolves `$NATS_PASSWORD` in its configuration from this variable. */
export const NATS_PASSWORD_VAR = "NATS_PASSWORD";
/** The JetStream store: an emptyDir, bounded (CS-13). */
export const JETSTREAM_DIR = "/data/jetstream";
export const JETSTREAM_DEFAULTS = { maxFileStoreMiB: 1024, maxMemoryStoreMiB: 64 };
const MiB = 1024 * 1024;

const natsUser = once(() =>
  z
    .string()
    .regex(/^[A-Za-z0-9][-_.A-Za-z0-9]{0,62}$/, req("CS-07", "is not a NATS user name", "the NATS user is up to 63 of [-_.A-Za-z0-9], such as compass"))
    .default("compass")
    .meta({ description: "The NATS user of the bundled NATS; the URL in urlSecret carries the same user" }),
);

const passwordSecret = once(() =>
  secretKeyReference("CS-07", "the NATS password", "password").meta({ description: "The Secret key holding the bundled NATS's password (CS-04, CS-07)" }),
);

const urlSecret = once(() =>
  secretKeyReference("CS-07", "the NATS URL with its credentials", "url").meta({
    description: "The Secret key holding the whole NATS URL with its credentials, nats://user:password@host:4222, fed to COMPASS_NATS_URL (CS-07)",
  }),
);

const mib = (what: string, min: number) =>
  z
    .number(req("CS-13", `${what} is a whole number of MiB (a number, not a string)`))
    .int(req("CS-13", `${what} is a whole number of MiB`))
    .min(min, req("CS-13", `${what} is at least ${min} MiB`))
    .max(1 << 20, req("CS-13", `${what} is at most 1048576 MiB (1 TiB)`));

const jetstream = once(() =>
  z
    .strictObject({
      maxFileStoreMiB: mib("jetstream.maxFileStoreMiB", 16)
        .default(JETSTREAM_DEFAULTS.maxFileStoreMiB)
        .meta({ description: "JetStream max_file_store, in MiB; the store's emptyDir is bounded a little above it" }),
      maxMemoryStoreMiB: mib("jetstream.maxMemoryStoreMiB", 0)
        .default(JETSTREAM_DEFAULTS.maxMemoryStoreMiB)
        .meta({ description: "JetStream max_memory_store, in MiB (counts against the NATS memory limit)" }),
    })
    .default(JETSTREAM_DEFAULTS)
    .meta({ description: "JetStream, which the Server's event fabric needs (CS-13): its store limits" }),
);

const URL_FIX =
  "put the whole URL with its credentials (nats://user:password@host:4222) in a Secret and name it in nats.urlSecret: compass-server reads credentials only from COMPASS_NATS_URL";

export const natsSchema = once(() =>
  refineBy(
    z.discriminatedUnion(
      "mode",
      [
        z.strictObject({
          mode: z.literal("bundled"),
          image: imageSchema(),
          user: natsUser(),
          passwordSecret: passwordSecret(),
          urlSecret: urlSecret().optional().meta({
            description:
              "The Secret key holding nats://<user>:<password>@<name>-nats.<namespace>.svc:4222 for the Server. Default: key url of the passwordSecret's Secret",
          }),
          jetstream: jetstream(),
          resources: resourcesSchema("G-08", NATS_RESOURCES),
        }),
        z.strictObject({
          mode: z.literal("external"),
          urlSecret: urlSecret(),
          cidr: cidrSchema("CS-11", "give the NATS servers' address range in CIDR notation; NetworkPolicy cannot match host names")
            .optional()
            .meta({ description: "The NATS servers' address range, for the Server's egress (CS-11)" }),
          namespace: dnsLabel("CS-11", "nats.namespace")
            .optional()
            .meta({ description: "Or: the namespace of an in-cluster NATS, for the Server's egress (CS-11)" }),
          port: z.number().int().min(1, req("CS-11", "a port is 1..65535")).max(65535, req("CS-11", "a port is 1..65535")).default(4222),
          url: refused("CS-07", URL_FIX),
          user: refused("CS-07", URL_FIX),
          passwordSecret: refused("CS-07", URL_FIX),
        }),
      ],
      req(
        "CS-07",
        "expected nats.mode bundled or external",
        "set nats.mode to bundled (one NATS pod rendered here) or external (nats.urlSecret plus nats.cidr)",
      ),
    ),
    checkNats,
  ),
);

/** The checks of a NATS section that need more than one key. */
export function checkNats(nats: { mode: string; cidr?: string; namespace?: string }, ctx: IssueSink): void {
  checkNatsEgress(nats, ctx);
  if (nats.mode === "bundled") checkMemoryStore(nats as Extract<NatsValues, { mode: "bundled" }>, ctx);
}

/** The bundled NATS's memory store must fit below its memory limit (CS-13). */
function checkMemoryStore(nats: Pick<Extract<NatsValues, { mode: "bundled" }>, "jetstream" | "resources">, ctx: IssueSink): void {
  const store = nats.jetstream.maxMemoryStoreMiB;
  const limit = nats.resources.limits.memory;
  if (!reachesLimit(BigInt(store) * BigInt(MiB), limit)) return;
  fail(
    ctx,
    ["jetstream", "maxMemoryStoreMiB"],
    "CS-13",
    `is ${store} MiB, at or above the NATS memory limit ${limit} (resources.limits.memory): ${MEMORY_STORE_WHY}`,
    `lower maxMemoryStoreMiB well below the memory limit (its default is ${JETSTREAM_DEFAULTS.maxMemoryStoreMiB} against ${NATS_RESOURCES.limits.memory}), or raise resources.limits.memory above the store with room for nats-server itself`,
  );
}

/** An external NATS is reached by its cidr or its namespace, one of the two (CS-11). */
export function checkNatsEgress(nats: { mode: string; cidr?: string; namespace?: string }, ctx: IssueSink): void {
  if (nats.mode !== "external") return;
  if ((nats.cidr === undefined) === (nats.namespace === undefined)) {
    fail(
      ctx,
      [nats.cidr === undefined ? "cidr" : "namespace"],
      "CS-11",
      nats.cidr === undefined ? "is missing" : "is given with nats.namespace",
      "give the NATS servers' address range as nats.cidr, or the namespace of an in-cluster NATS as nats.namespace: one of the two opens the Server's egress",
    );
  }
}

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

/** The in-cluster address of the bundled NATS, for the URL in its Secret. */
export function bundledNatsAddress(name: string, namespace: string): string {
  return `${natsName(name)}.${namespace}.svc:${NATS_PORT}`;
}

/** Where the Server's COMPASS_NATS_URL comes from: one key of a Secret. */
export function natsUrlSecret(nats: NatsValues): { name: string; key: string } {
  if (nats.mode === "external") return nats.urlSecret;
  return nats.urlSecret ?? { name: nats.passwordSecret.name, key: "url" };
}

export function natsIdentity(name: string, image: ImageRef): AppIdentity {
  return { name: NATS_APP, instance: name, component: "nats", partOf: "compass", image };
}

/** The Server's egress rule to NATS (CS-11). */
export function natsEgress(input: { name: string; namespace: string; nats: NatsValues }): NetworkPolicyEgressRule {
  const { nats } = input;
  if (nats.mode === "bundled") {
    return { to: [{ podSelector: { matchLabels: selectorLabels(natsIdentity(input.name, nats.image)) } }], ports: [{ protocol: "TCP", port: NATS_PORT }] };
  }
  const ports = [{ protocol: "TCP", port: nats.port }];
  if (nats.cidr) return { to: [{ ipBlock: { cidr: nats.cidr } }], ports };
  return { to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": nats.namespace! } } }], ports };
}

/** The JetStream emptyDir: the store's bound plus room for its index files. */
export function jetstreamVolumeMiB(maxFileStoreMiB: number): number {
  return maxFileStoreMiB + Math.max(64, Math.ceil(maxFileStoreMiB / 4));
}

/** The bundled NATS: ServiceAccount, ConfigMap, Deployment, Service, NetworkPolicy. */
export function renderNats(input: NatsInput): K8sObject[] {
  const app = natsIdentity(input.name, input.nats.image);
  const labels = recommendedLabels(app);
  const name = natsName(input.name);
  const meta = { name, namespace: input.namespace, labels };
  const serviceAccount: ServiceAccount & K8sObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: meta, automountServiceAccountToken: false };
  const text = natsConfig(input.nats);
  const config: ConfigMap & K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { ...meta, name: `${name}-config` },
    // `$NATS_PASSWORD` is resolved by nats-server from its environment,
    // which takes it from the Secret: the password is in neither file.
    data: { [NATS_CONFIG_KEY]: text },
  };
  return [serviceAccount, config, deployment(input, app, labels, name, configHash(text)), service(app, meta), networkPolicy(input, app, meta)];
}

/** The first 16 hex digits of a rendered file's SHA-256, for a pod template annotation that changes with the file. */
export function configHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** nats.conf: the client port, JetStream with bounded stores, one password user. */
export function natsConfig(nats: Pick<Extract<NatsValues, { mode: "bundled" }>, "user" | "jetstream">): string {
  return [
    "# nats-server configuration rendered by rigging: password auth (CS-07) and JetStream (CS-13).",
    `port: ${NATS_PORT}`,
    "jetstream {",
    `  store_dir: ${JSON.stringify(JETSTREAM_DIR)}`,
    `  max_memory_store: ${nats.jetstream.maxMemoryStoreMiB * MiB}`,
    `  max_file_store: ${nats.jetstream.maxFileStoreMiB * MiB}`,
    "}",
    "authorization {",
    `  user: ${JSON.stringify(nats.user)}`,
    `  password: $${NATS_PASSWORD_VAR}`,
    "}",
    "",
  ].join("\n");
}

function deployment(input: NatsInput, app: AppIdentity, labels: Record<string, string>, name: string, hash: string): Deployment & K8sObject {
  const { nats } = input;
  const tag: Record<string, string> = nats.image.tag ? { "rigging.dev/image-tag": nats.image.tag } : {};
  const annotations = nats.image.tag ? { annotations: tag } : {};
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
        // nats-server reads its configuration at start: a change of it changes the template, which restarts the pod.
        metadata: { labels, annotations: { ...tag, [NATS_CONFIG_HASH]: hash } },
        spec: {
          serviceAccountName: name,
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext(),

          containers: [
            {
              name: "nats",
              image: pinned(nats.image),
              args: ["--config", `${NATS_CONFIG_DIR}/${NATS_CONFIG_KEY}`],
              env: [{ name: NATS_PASSWORD_VAR, valueFrom: { secretKeyRef: { name: nats.passwordSecret.name, key: nats.passwordSecret.key } } }],
              ports: [{ name: "client", containerPort: NATS_PORT, protocol: "TCP" }],
              readinessProbe: { tcpSocket: { port: "client" }, periodSeconds: 10 },
              resources: resourceRequirements(nats.resources as Resources),
              securityContext: hardenedContainer(),
              volumeMounts: [
                { name: "config", mountPath: NATS_CONFIG_DIR, readOnly: true },
                { name: "jetstream", mountPath: JETSTREAM_DIR },
              ],
            },
          ],
          volumes: [
            { name: "config", configMap: { name: `${name}-config` } },
            // CS-13: JetStream's store, bounded; a new pod starts empty (the
            // fabric is a trigger, the Server's cursor sweep recovers).
            { name: "jetstream", emptyDir: { sizeLimit: `${jetstreamVolumeMiB(nats.jetstream.maxFileStoreMiB)}Mi` } },
          ],
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
