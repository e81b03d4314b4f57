// Values of the Compass Server on Kubernetes (seed 001: D1-D10, P2, P4, P9).
import { z } from "zod";
import { egressRuleSchema, cidrProblem, hardeningGuards, httpsUrl, nodeSelectorSchema, resourcesSchema, tolerationSchema } from "../../core/common-values.ts";
import { imageSchema } from "../../core/image.ts";
import { DNS1123_SUBDOMAIN, dnsLabel, dnsSubdomain } from "../../core/names.ts";
import { fail, once, refused, req, tagged } from "../../core/values.ts";
import { RUNNER_AUDIENCE, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS } from "../compass-runner/values.ts";
import { natsEgress, natsSchema } from "./nats.ts";
import { secretKeyReference, secretReference } from "./secret-refs.ts";

export const SERVER_RESOURCES = { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } };
export const DEFAULT_MAX_TOKEN_LIFETIME = 86400;
export const ARCH_LABELS = ["kubernetes.io/arch", "beta.kubernetes.io/arch"] as const;

/** An object name the Service can carry too: a DNS-1035 label, with room for suffixes. */
const instanceName = once(() =>
  z
    .string()
    .max(40, req("G-07", "name is at most 40 characters, leaving room for the -nats-config suffix"))
    .regex(/^[a-z]([-a-z0-9]*[a-z0-9])?$/, req("G-07", "name is lowercase letters, digits and '-', starting with a letter (it names the Service)", "is not a DNS-1035 label"))
    .default("compass-server")
    .meta({ description: "Instance name: object names and app.kubernetes.io/instance" }),
);

export const maxTokenLifetime = once(() =>
  z
    .number(req("CS-09", "maxTokenLifetime is an integer number of seconds"))
    .int(req("CS-09", "maxTokenLifetime is a whole number of seconds"))
    .min(TOKEN_MIN_SECONDS, req("CS-09", `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s`))
    .max(TOKEN_MAX_SECONDS, req("CS-09", `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s`)),
);

/** A Server cluster entry (CS-09): which Runner tokens the Server accepts. */
export const clusterEntrySchema = once(() =>
  z.strictObject({
    name: dnsSubdomain("CS-09", "the cluster entry name"),
    namespace: dnsLabel("CS-09", "the Runner's namespace"),
    serviceAccount: dnsSubdomain("CS-09", "the Runner's ServiceAccount"),
    audience: z.literal(RUNNER_AUDIENCE, req("CS-09", `the Runner's projected token carries audience ${RUNNER_AUDIENCE} (CR-03, CR-04)`)).default(RUNNER_AUDIENCE),
    maxTokenLifetime: maxTokenLifetime().default(DEFAULT_MAX_TOKEN_LIFETIME),
  }),
);

export type ClusterEntry = z.output<ReturnType<typeof clusterEntrySchema>>;

const FROM_FILE_FIX = (what: string) => `${what} is read at boot from a file of a Secret volume, never from an environment variable: give {name, key} of its Secret`;

const forgeApp = (what: string) =>
  z
    .strictObject(
      {
        appId: secretKeyReference("CS-04", `the ${what}'s app ID`, "app-id"),
        privateKey: secretKeyReference("CS-04", `the ${what}'s private key`, "private-key.pem"),
        webhookSecret: secretKeyReference("CS-04", `the ${what}'s webhook secret`, "webhook-secret"),
      },
      { error: (issue) => (issue.code === "invalid_type" ? tagged("CS-04", issue.input === undefined ? "is missing" : "expected {appId, privateKey, webhookSecret}", `reference the ${what}'s app ID, private key and webhook secret by Secret name and key`) : undefined) },
    )
    .meta({ description: `The ${what}: its app ID, private key and webhook secret, each by Secret name and key (mounted as files, 0400)` });

export const forgeSchema = once(() =>
  z.strictObject({
    provider: z.literal("github", req("CS-04", "the forge is github (a GitHub App)")).default("github"),
    url: httpsUrl("CS-04", "forge.url").default("https://github.com").meta({ description: "The forge's base URL (GitHub Enterprise Server: its own https:// URL)" }),
    app: forgeApp("primary App"),
    reviewerApp: forgeApp("reviewer App").optional(),
    egress: z.array(egressRuleSchema("CS-11")).min(1, req("CS-11", "list the forge's address ranges, such as {cidr: 140.82.112.0/20, ports: [{port: 443}]}")),
  }),
);

/** Every key of the Server's values except `kind` and `clusters`. */
export const serverFields = once(() => ({
  name: instanceName(),
  namespace: dnsLabel("G-07", "namespace").default("compass"),
  createNamespace: z.boolean().default(true).meta({ description: "Render the Namespace (Pod Security level restricted, G-10)" }),
  serviceAccount: dnsSubdomain("G-07", "serviceAccount").default("compass-server"),
  image: imageSchema(),
  replicas: z.literal(1, req("CS-01", "the Server is one pod (D1): replicas is 1")).default(1),
  strategy: z.literal("Recreate", req("CS-01", "the Server is one pod (D1): strategy is Recreate, so an update never runs two Servers")).default("Recreate"),
  publicHost: z
    .string(req("CS-08", "give publicHost, the DNS name on the Server's certificate, such as compass.example.com"))
    .max(253, req("CS-08", "publicHost is a DNS name of at most 253 characters"))
    .regex(DNS1123_SUBDOMAIN, req("CS-08", "publicHost is a lowercase DNS name such as compass.example.com, without a scheme or port", "is not a DNS name"))
    .meta({ description: "The public DNS name on the Server's certificate; Runners verify it (P9)" }),
  tls: secretReference("CS-08", "the Server's certificate and key (kubernetes.io/tls)").meta({ description: "The kubernetes.io/tls Secret (tls.crt, tls.key) the Server terminates TLS with (CS-08)" }),
  service: z
    .strictObject({
      type: z.enum(["ClusterIP", "LoadBalancer", "NodePort"], req("CS-08", "service.type is ClusterIP, LoadBalancer or NodePort")).default("ClusterIP"),
      annotations: z.record(z.string(), z.string()).default({}),
    })
    .default({ type: "ClusterIP", annotations: {} })
    .meta({ description: "The Service that exposes 443 to the Server's TLS port; a load balancer in front must pass TLS through" }),
  database: z.strictObject({
    urlSecret: secretKeyReference("CS-03", "the Postgres connection URL", "url").meta({ description: "The Secret key holding the Postgres URL (CS-03)" }),
    cidr: z.string().superRefine((text, ctx) => {
      const problem = cidrProblem(text);
      if (problem) ctx.addIssue({ code: "custom", input: text, message: tagged("CS-11", problem, "give Postgres's address range in CIDR notation, such as 10.0.5.10/32") });
    }),
    port: z.number().int().min(1, req("CS-11", "a port is 1..65535")).max(65535, req("CS-11", "a port is 1..65535")).default(5432),
    bundled: refused("CS-03", "Postgres is user-provided and never rendered (D3): create it outside, put its URL in a Secret and name it in database.urlSecret"),
    image: refused("CS-03", "Postgres is user-provided and never rendered (D3): rigging renders no database"),
  }, { error: (issue) => (issue.code === "invalid_type" ? tagged("CS-03", issue.input === undefined ? "is missing" : "expected a mapping", "give database.urlSecret (the Secret holding the Postgres URL) and database.cidr (where Postgres is)") : undefined) }),
  masterKey: secretKeyReference("CS-05", "the master key", "master-key", {
    env: refused("CS-05", FROM_FILE_FIX("the master key")),
  }).meta({ description: "The Secret key holding the master key, mounted as a file (0400) and passed as --master-key-file (CS-05)" }),
  adminToken: secretKeyReference("CS-06", "the admin token", "token", {
    env: refused("CS-06", FROM_FILE_FIX("the admin token")),
  }).meta({ description: "The Secret key holding the admin token, mounted as a file (0400) and passed as --admin-token-file (CS-06, P4)" }),
  nats: natsSchema(),
  forge: forgeSchema().optional(),
  nodeSelector: nodeSelectorSchema("CS-10").default({}),
  tolerations: z.array(tolerationSchema("CS-10")).default([]),
  resources: resourcesSchema("G-08", SERVER_RESOURCES),
  postgres: refused("CS-03", "Postgres is user-provided and never rendered (D3): name its URL's Secret in database.urlSecret"),
  initContainers: refused("CS-03", "no init container: the Server runs its migrations at boot (D3)"),
  migrations: refused("CS-03", "the Server runs its migrations at boot (D3); there is no migration job or init container"),
  ingress: refused("CS-08", "the Server terminates TLS itself (D6): expose the Service (LoadBalancer or TLS passthrough), never an Ingress that terminates TLS"),
  ...hardeningGuards(),
  securityContext: refused("CS-02", "the Server runs as 65532:65532, non-root, on a read-only root; rigging sets the security context"),
  podSecurityContext: refused("CS-02", "the Server runs as 65532:65532, non-root, on a read-only root; rigging sets the security context"),
  arch: refused("CS-10", "the Server image is multi-arch (D10): it is not pinned to an architecture"),
}));

const serverObject = once(() => z.strictObject(serverFields()));
export type ServerFields = z.output<ReturnType<typeof serverObject>>;
export type CompassServerValues = ServerFields & { clusters: ClusterEntry[] };

/** Checks that need more than one key; `at` prefixes paths in a combined file. */
export function checkServer(v: ServerFields, ctx: z.RefinementCtx, at: PropertyKey[] = []): void {
  for (const label of ARCH_LABELS) {
    if (v.nodeSelector[label] !== undefined) fail(ctx, [...at, "nodeSelector", label], "CS-10", `pins the Server to ${v.nodeSelector[label]}`, "remove it: the Server image is multi-arch (D10) and runs on amd64 and arm64 nodes");
  }
  if (v.nats.mode === "external" && !natsEgress({ name: v.name, namespace: v.namespace, nats: v.nats })) {
    const host = URL.canParse(v.nats.url) ? new URL(v.nats.url).host : v.nats.url;
    fail(ctx, [...at, "nats", "cidr"], "CS-11", `is missing, and ${host} is a host name that a NetworkPolicy cannot match`, "give the NATS servers' address range as nats.cidr, such as 10.0.7.0/24");
  }
}

export function checkClusters(clusters: readonly ClusterEntry[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  clusters.forEach((cluster, index) => {
    if (seen.has(cluster.name)) fail(ctx, ["clusters", index, "name"], "CS-09", `repeats the cluster entry name ${cluster.name}`, "give each cluster entry its own name");
    seen.add(cluster.name);
  });
}

export const compassServerSchema = once(() =>
  z
    .strictObject({
      kind: z.literal("CompassServer"),
      ...serverFields(),
      clusters: z
        .array(clusterEntrySchema(), req("CS-09", "list the Server's cluster entries: {name, namespace, serviceAccount, audience, maxTokenLifetime}"))
        .min(1, req("CS-09", "list at least one cluster entry, the Runner's: {name, namespace, serviceAccount, maxTokenLifetime}"))
        .meta({ description: "The Server's cluster entries (CS-09): the Runners whose projected tokens it accepts" }),
    })
    .superRefine((v, ctx) => {
      checkServer(v, ctx);
      checkClusters(v.clusters, ctx);
    })
    .meta({ title: "CompassServer values", description: "rigging values for the Compass Server Deployment" }),
);
