// Values of the Compass Runner (seed 000; P3, P8, P9 of seed 001).
import { X509Certificate } from "node:crypto";
import { posix } from "node:path";
import { z } from "zod";
import { egressRuleSchema, endpointUrl, hardeningGuards, httpsUrl, nodeSelectorSchema, resourcesSchema, tolerationSchema } from "../../core/common-values.ts";
import { formatPath } from "../../core/diagnostic.ts";
import { imageSchema } from "../../core/image.ts";
import { splitPem } from "../../core/pem.ts";
import { dnsLabel, dnsSubdomain, hostName, objectKey } from "../../core/names.ts";
import { fail, once, refused, req, tagged } from "../../core/values.ts";
import { serverEgress } from "./network.ts";

export const RUNNER_AUDIENCE = "compass-runner";
export const TOKEN_MIN_SECONDS = 600;
export const TOKEN_MAX_SECONDS = 4294967296;
export const HOSTNAME_LABEL = "kubernetes.io/hostname";
export const ARCH_LABEL = "kubernetes.io/arch";

/** Host trees a Runner must never mount (CR-11). */
export const FORBIDDEN_HOST_ROOTS = ["/dev", "/proc", "/sys", "/etc", "/var/run/secrets"] as const;

const tokenLifetime = (id: string, what: string) =>
  z
    .number(req(id, `${what} is an integer number of seconds`))
    .int(req(id, `${what} is a whole number of seconds`))
    .min(TOKEN_MIN_SECONDS, req(id, `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s`))
    .max(TOKEN_MAX_SECONDS, req(id, `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s`));

/** Why a host path is unfit for a Runner host tree, if it is (CR-11). */
export function hostPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "is not an absolute path";
  if (posix.normalize(path) !== path || (path.length > 1 && path.endsWith("/"))) return `is not normalized (write ${posix.normalize(path).replace(/(.)\/$/, "$1")})`;
  if (path === "/") return "is the host root";
  const under = FORBIDDEN_HOST_ROOTS.find((root) => path === root || path.startsWith(root + "/"));
  if (under) return `is under ${under}, which a Runner must never mount`;
  return undefined;
}

export function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(b + "/") || b.startsWith(a + "/");
}

const hostPath = once(() =>
  z.string().superRefine((path, ctx) => {
    const problem = hostPathProblem(path);
    if (problem) ctx.addIssue({ code: "custom", input: path, message: tagged("CR-11", problem, "use an absolute, normalized host directory such as /var/lib/compass/sessions, outside /dev, /proc, /sys, /etc and /var/run/secrets") });
  }),
);

function pemProblem(pem: string): string | undefined {
  const { blocks, rest } = splitPem(pem, "CERTIFICATE");
  if (blocks.length === 0) return "holds no PEM certificate";
  if (rest.trim() !== "") return "holds text besides PEM certificates (a private key?)";
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${index + 1} does not parse`;
    }
  }
  return undefined;
}

export const CA_FIX = "give the Server CA as PEM certificates (pem), or the name of a ConfigMap or Secret holding ca.crt";

const objectKeyRef = once(() =>
  z.strictObject({
    name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, req("CR-14", CA_FIX, "is not a Kubernetes object name")),
    key: objectKey("CR-14", CA_FIX).default("ca.crt"),
  }),
);

export const serverCASchema = once(() =>
  z.union(
    [
      z.strictObject({
        pem: z.string().superRefine((pem, ctx) => {
          const problem = pemProblem(pem);
          if (problem) ctx.addIssue({ code: "custom", input: pem, message: tagged("CR-14", problem, CA_FIX) });
        }),
      }),
      z.strictObject({ configMap: objectKeyRef() }),
      z.strictObject({ secret: objectKeyRef() }),
    ],
    req("CR-14", CA_FIX, "expected exactly one of pem, configMap or secret"),
  ),
);

export const serverClusterSchema = once(() =>
  z
    .strictObject({
      name: dnsSubdomain("CS-09", "the cluster entry name").optional(),
      namespace: dnsLabel("CR-04", "serverCluster.namespace"),
      serviceAccount: dnsSubdomain("CR-04", "serverCluster.serviceAccount"),
      audience: z.string().min(1, req("CR-04", "the Server cluster entry's audience is compass-runner")),
      maxTokenLifetime: tokenLifetime("CR-03", "maxTokenLifetime"),
    })
    .meta({ description: "The Server's cluster entry for this Runner; namespace, serviceAccount and audience must equal the Runner's (CR-04)" }),
);

const identities = (what: string) =>
  z
    .array(z.string().min(1, req("CR-06", `list ${what} by user name, such as system:serviceaccount:kube-system:daemon-set-controller`)), req("CR-06", `list ${what}`))
    .min(1, req("CR-06", `admission.${what} is required: list ${what === "controllers" ? "the controller identities that create Runner pods" : "the identities that apply the Runner DaemonSet"}`));

export const admissionSchema = once(() =>
  z.strictObject({
    controllers: identities("controllers").meta({ description: "User names that may create Runner pods, such as the DaemonSet controller (CR-06b)" }),
    deployers: identities("deployers").meta({ description: "User names that may create, update or delete the Runner DaemonSet (CR-06c)" }),
    breakGlassGroups: z
      .array(z.string().min(1))
      .min(1, req("CR-06", "list at least one break-glass group, or leave it out for [system:masters]"))
      .default(["system:masters"])
      .meta({ description: "Groups that may exec, attach, debug and request Runner tokens (CR-06a, d)" }),
  }),
);

/** Every key of a CompassRunner values file except `kind` and `serverCluster`. */
export const runnerFields = once(() => ({
  name: dnsLabel("G-07", "name").default("compass-runner").meta({ description: "Instance name: object names and app.kubernetes.io/instance" }),
  namespace: dnsLabel("CR-04", "namespace").default("compass-runner").meta({ description: "Namespace of the Runner; holds only Runner pods (CR-06) and equals serverCluster.namespace (CR-04)" }),
  createNamespace: z.boolean().default(true).meta({ description: "Render the Namespace (with Pod Security labels, G-10)" }),
  serviceAccount: dnsSubdomain("CR-04", "serviceAccount").default("compass-runner").meta({ description: "The Runner's ServiceAccount, without RBAC (CR-05); equals serverCluster.serviceAccount (CR-04)" }),
  image: imageSchema(),
  server: z.strictObject({
    address: httpsUrl("CR-02", "server.address").meta({ description: "The Server address, an absolute https:// URL (CR-02): COMPASS_SERVER_URL" }),
    serverName: hostName("CR-14", "server.serverName").optional().meta({ description: "TLS server name the Runner verifies (--server-name, P9)" }),
    serverCA: serverCASchema().optional().meta({ description: "The Server CA (CR-14): pem inline (rendered into a ConfigMap), or configMap/secret {name, key}; COMPASS_SERVER_CA_FILE" }),
  }),
  tokenExpirationSeconds: tokenLifetime("CR-03", "tokenExpirationSeconds").default(3600).meta({ description: "Lifetime of the projected compass-runner token, 600..4294967296 s and at most serverCluster.maxTokenLifetime (CR-03)" }),
  nodeSelector: nodeSelectorSchema("CR-12").meta({ description: "Node labels; must pin one node with kubernetes.io/hostname (CR-07, CR-12)" }),
  tolerations: z.array(tolerationSchema("CR-12")).default([]).meta({ description: "Tolerations for the Runner node's taints (CR-12)" }),
  hostPaths: z
    .strictObject({ sessions: hostPath().default("/var/lib/compass/sessions"), runtime: hostPath().default("/var/lib/compass/runtime") })
    .default({ sessions: "/var/lib/compass/sessions", runtime: "/var/lib/compass/runtime" })
    .meta({ description: "Host trees: sessions (on a project-quota filesystem) and runtime (stale-session reaping); absolute, distinct, owned by 65532:65532 (CR-11)" }),
  kvmResourceName: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, req("CR-08", "the device plugin's extended resource name, such as devices.kubevirt.io/kvm", "is not an extended resource name (domain/name)"))
    .default("devices.kubevirt.io/kvm")
    .meta({ description: "Extended resource the KVM device plugin advertises; the container requests and limits 1 (CR-08)" }),
  seccompProfilePath: z
    .string()
    .superRefine((path, ctx) => {
      const problem = path.startsWith("/") ? "is absolute" : path.split("/").includes("..") ? "contains .." : !path.endsWith(".json") ? "does not end in .json" : undefined;
      if (problem) ctx.addIssue({ code: "custom", input: path, message: tagged("CR-10", problem, "give the profile's path relative to the kubelet seccomp root, such as compass/compass-runner.json") });
    })
    .default("compass/compass-runner.json")
    .meta({ description: "Localhost seccomp profile, relative to the kubelet seccomp root (CR-10)" }),
  admission: admissionSchema().meta({ description: "Identities for the CR-06 admission policies" }),
  egressAllow: z.array(egressRuleSchema("CR-15")).default([]).meta({ description: "Egress beyond DNS and the Server, as CIDRs with optional ports (CR-15)" }),
  otel: z.strictObject({ endpoint: endpointUrl("CR-16", "otel.endpoint") }).optional().meta({ description: "OTLP endpoint metrics are pushed to: OTEL_EXPORTER_OTLP_ENDPOINT (CR-16)" }),
  resources: resourcesSchema("G-08", { requests: { cpu: "500m", memory: "512Mi" }, limits: { memory: "2Gi" } }),
  runnerId: refused("CR-17", "remove runnerId: the Server assigns each Runner ID at enrollment", "is not a values key"),
  hostUsers: refused("CR-09", "remove it: the Runner always runs in a user namespace (hostUsers: false); nodes need user-namespace support (CR-18)"),
  extraObjects: refused("CR-01", "remove it: rigging renders exactly the Runner's object set; apply other objects on their own"),
  rbac: refused("CR-05", "remove it: the Runner ServiceAccount has no RBAC binding; its only credential is the projected compass-runner token"),
  automountServiceAccountToken: refused("CR-05", "remove it: the API token would be an unused credential, so rigging always sets automountServiceAccountToken: false"),
  ...hardeningGuards(),
  arch: z.literal("amd64", req("CR-13", "the Runner is amd64-only until an arm64 KVM boot passes (DL-577); remove arch or set amd64")).default("amd64").meta({ description: "Only amd64 until an arm64 KVM boot passes (CR-13)" }),
}));

/** Checks that need more than one key; run once the shape is right. */
export function checkRunner(v: RunnerFields, ctx: z.RefinementCtx, at: PropertyKey[] = []): void {
  const hostname = v.nodeSelector[HOSTNAME_LABEL];
  if (!hostname) fail(ctx, [...at, "nodeSelector"], "CR-07", `does not pin one node with ${HOSTNAME_LABEL}`, `add ${HOSTNAME_LABEL}: <node name>; one Runner node until the multi-Runner hub exists`);
  const arch = v.nodeSelector[ARCH_LABEL];
  if (arch !== undefined && arch !== "amd64") fail(ctx, [...at, "nodeSelector", ARCH_LABEL], "CR-13", `asks for ${arch}`, "the Runner is amd64-only until an arm64 KVM boot passes (DL-577)");
  if (overlaps(v.hostPaths.sessions, v.hostPaths.runtime)) {
    fail(ctx, [...at, "hostPaths", "runtime"], "CR-11", `overlaps hostPaths.sessions (${v.hostPaths.sessions})`, "give the session-volume tree and the runtime tree two distinct, non-nested directories");
  }

  const url = URL.canParse(v.server.address) ? new URL(v.server.address) : undefined;
  if (url && !serverEgress(v.server.address)) {
    const port = Number(url.port || 443);
    const covered = v.egressAllow.some((rule) => !rule.ports || rule.ports.some((p) => p.port === port && p.protocol === "TCP"));
    if (!covered) {
      fail(ctx, [...at, "egressAllow"], "CR-15", `does not reach the Server at ${url.host}, a host name outside the cluster that a NetworkPolicy cannot match`, `add the Server's address range to egressAllow with port ${port}, such as {cidr: 203.0.113.10/32, ports: [{port: ${port}}]}`);
    }
  }
}

/** `at` places the keys in a file that nests them (kind: Compass): the Runner's keys and the cluster entry's. */
export function checkServerCluster(v: RunnerFields, cluster: z.output<ReturnType<typeof serverClusterSchema>>, ctx: z.RefinementCtx, at: { runner?: PropertyKey[]; cluster?: PropertyKey[] } = {}): void {
  const r = at.runner ?? [];
  const c = at.cluster ?? ["serverCluster"];
  const fix = "the Runner and its Server cluster entry must agree on namespace, serviceAccount and audience";
  if (cluster.namespace !== v.namespace) fail(ctx, [...c, "namespace"], "CR-04", `is ${cluster.namespace}, but the Runner's namespace is ${v.namespace}`, fix);
  if (cluster.serviceAccount !== v.serviceAccount) fail(ctx, [...c, "serviceAccount"], "CR-04", `is ${cluster.serviceAccount}, but the Runner's serviceAccount is ${v.serviceAccount}`, fix);
  if (cluster.audience !== RUNNER_AUDIENCE) fail(ctx, [...c, "audience"], "CR-04", `is ${cluster.audience}, but the Runner's token audience is ${RUNNER_AUDIENCE}`, `set audience: ${RUNNER_AUDIENCE}; ${fix}`);
  if (v.tokenExpirationSeconds > cluster.maxTokenLifetime) {
    fail(ctx, [...r, "tokenExpirationSeconds"], "CR-03", `${v.tokenExpirationSeconds} is above ${formatPath([...c, "maxTokenLifetime"])} ${cluster.maxTokenLifetime}`, "lower tokenExpirationSeconds, or raise the Server cluster entry's maxTokenLifetime");
  }
}

const runnerObject = once(() => z.strictObject(runnerFields()));
export type RunnerFields = z.output<ReturnType<typeof runnerObject>>;

export const compassRunnerSchema = once(() =>
  z
    .strictObject({
      kind: z.literal("CompassRunner"),
      ...runnerFields(),
      serverCluster: serverClusterSchema(),
    })
    .superRefine((v, ctx) => {
      checkRunner(v, ctx);
      checkServerCluster(v, v.serverCluster, ctx);
    })
    .meta({ title: "CompassRunner values", description: "rigging values for the Compass Runner DaemonSet" }),
);

export type CompassRunnerValues = z.output<ReturnType<typeof compassRunnerSchema>>;
