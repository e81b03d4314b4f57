// Runner values: the upstream runner-manifests format plus rigging's optional
// additions, so an upstream file renders unchanged.
import { z } from "zod";
import { endpointUrl, hardeningGuards, httpsUrl } from "../../values/common-values.ts";
import { imageSchema } from "../../values/image.ts";
import { DNS1123_SUBDOMAIN, dnsLabel, dnsSubdomain, hostName, isLabelKey, isLabelValue, objectKey } from "../../k8s/names.ts";
import { eachCheck, fail, once, refineBy, refused, req, type IssueSink } from "../../values/values.ts";
import { identitySchema, type IdentityList } from "./admission-identity.ts";
import { serverEgress } from "./network.ts";
import { CR } from "./requirements.ts";
import {
  CA_FIX,
  egressCidr,
  integer,
  runnerEgressSchema,
  checkDerived,
  checkHostPath,
  checkPem,
  checkResourceName,
  checkSeccompProfilePath,
  overlaps,
} from "./value-checks.ts";
import {
  ARCH_LABEL,
  DEFAULT_SECCOMP_PROFILE,
  DEFAULT_TOKEN_SECONDS,
  FORBIDDEN_HOST_ROOTS,
  HOSTNAME_LABEL,
  MAX_UNAVAILABLE,
  PRIORITY_MAX,
  PRIORITY_MIN,
  RUNNER_AUDIENCE,
  TOKEN_MAX_SECONDS,
  TOKEN_MIN_SECONDS,
} from "./interface.ts";

export { ARCH_LABEL, FORBIDDEN_HOST_ROOTS, HOSTNAME_LABEL, RUNNER_AUDIENCE, TOKEN_MAX_SECONDS, TOKEN_MIN_SECONDS };
export type { RunnerEgress } from "./value-checks.ts";
export {
  CA_FIX,
  checkEgressHost,
  checkEgressRule,
  checkHostPath,
  checkPem,
  checkResourceName,
  checkSeccompProfilePath,
  egressCidr,
  hostPathProblem,
  isDevHostPath,
  overlaps,
  pemProblem,
  resourceNameProblem,
  runnerEgressSchema,
} from "./value-checks.ts";

const LIFETIME = `a projected token lives ${TOKEN_MIN_SECONDS} s to ${TOKEN_MAX_SECONDS} s`;
const tokenLifetime = (id: string, what: string) =>
  z
    .number(req(id, "expected a number", `${what} is a JSON number of seconds, not a string`))
    .int(req(id, `${what} is a whole number of seconds`))
    .min(TOKEN_MIN_SECONDS, req(id, LIFETIME))
    .max(TOKEN_MAX_SECONDS, req(id, LIFETIME));

const hostPath = once(() =>
  refineBy(z.string(req("CR-11", "expected a path string", "give an absolute host directory such as /srv/compass/sessions")), checkHostPath),
);

const objectKeyRef = once(() =>
  z.strictObject({
    name: z
      .string()
      .max(253, req("CR-14", "is longer than 253 characters, the limit of a Kubernetes object name", CA_FIX))
      .regex(DNS1123_SUBDOMAIN, req("CR-14", "is not a Kubernetes object name", CA_FIX)),
    key: objectKey("CR-14", CA_FIX).default("ca.crt"),
  }),
);

export const serverCASchema = once(() =>
  z
    .union(
      [
        z.strictObject({
          pem: refineBy(z.string(), checkPem),
        }),
        z.strictObject({ configMap: objectKeyRef() }),
        z.strictObject({ secret: objectKeyRef() }),
      ],
      req("CR-14", "expected exactly one of pem, configMap or secret", CA_FIX),
    )
    .meta({ description: "The Server CA (CR-14): pem inline (rendered into a ConfigMap), or configMap/secret {name, key}; passed as COMPASS_RUNNER_CA" }),
);

const CLUSTER_NAME = /^[a-z0-9-]{1,40}$/;

/** rigging's addition: the Server's runner-clusters entry for this Runner (CR-03, CR-04, CS-09). */
export const serverClusterSchema = once(() =>
  refineBy(
    z.strictObject({
      name: z
        .string()
        .regex(CLUSTER_NAME, req("CS-09", "is not a cluster name", "the cluster name is 1 to 40 of [a-z0-9-]; it is the first part of the Runner ID"))
        .default("local"),
      issuer: httpsUrl("CS-09", "serverCluster.issuer")
        .optional()
        .meta({ description: "This cluster's ServiceAccount issuer (kubectl get --raw /.well-known/openid-configuration)" }),
      jwksURI: httpsUrl("CS-09", "serverCluster.jwksURI").optional(),
      jwksFile: z.string().startsWith("/", req("CS-09", "jwksFile is an absolute path inside the Server pod")).optional(),
      caFile: z.string().startsWith("/", req("CS-09", "caFile is an absolute path inside the Server pod")).optional(),
      namespace: dnsLabel("CR-04", "serverCluster.namespace").optional(),
      serviceAccount: dnsSubdomain("CR-04", "serverCluster.serviceAccount").optional(),
      audience: z
        .string()
        .min(1, req("CR-04", `the Server cluster entry's audience is ${RUNNER_AUDIENCE}`))
        .optional(),
      maxTokenLifetime: refused("CR-03", "write the Server's maximum as maxTokenLifetimeSeconds at the top level, as the upstream tool does"),
    }),
    checkServerClusterKeys,
  ).meta({
    description:
      "The Server's runner-clusters entry for this Runner (name, issuer, jwks*, caFile); namespace, serviceAccount and audience, when given, must equal the Runner's (CR-04)",
  }),
);

export type ServerCluster = z.output<ReturnType<typeof serverClusterSchema>>;

export function checkServerClusterKeys(c: { jwksURI?: string; jwksFile?: string }, ctx: IssueSink): void {
  if (c.jwksURI !== undefined && c.jwksFile !== undefined)
    fail(ctx, ["jwksFile"], "CS-09", "is set beside jwksURI", "give jwksURI or jwksFile, not both: the Server refuses both");
}

const identities = (what: IdentityList, purpose: string) =>
  z.array(identitySchema(what), req("CR-06", `list ${purpose}`)).min(1, req("CR-06", `admission.${what} is required: list ${purpose}`));

export const admissionSchema = once(() =>
  z.strictObject({
    controllers: identities("controllers", "the controller identities that create Runner pods").meta({
      description: "User names that may create Runner pods, such as the DaemonSet controller (CR-06b)",
    }),
    deployers: identities("deployers", "the identities that apply the Runner DaemonSet").meta({
      description: "User names that may create, update or delete the Runner DaemonSet (CR-06c)",
    }),
    breakGlassGroups: identities("breakGlassGroups", "at least one break-glass group, or leave it out for [system:masters]")
      .default(["system:masters"])
      .meta({ description: "Groups that may exec, attach, debug and request Runner tokens (CR-06a, d)" }),
  }),
);

const labelPair = (id: string, what: string) => ({
  key: z
    .string(req(id, "expected a string", `${what}.key is a label key`))
    .refine(isLabelKey, req(id, "is not a valid label key", "a label key is an optional DNS prefix and '/', then up to 63 of [A-Za-z0-9_.-]")),
  value: z
    .string(req(id, "expected a string", `${what}.value is a string; quote numbers and booleans`))
    .min(1, req(id, `${what}.value is required`))
    .refine(isLabelValue, req(id, "is not a valid label value", "a label value is up to 63 of [A-Za-z0-9_.-], starting and ending alphanumeric")),
});

/** Opt-ins to what the Compass Server-on-Kubernetes design plans and no released Runner reads (CS-14): one per task. */
export const designedRunnerSchema = once(() =>
  z
    .strictObject({
      P9: z.boolean(req("CS-14", "designed.P9 is true or false")).default(false).meta({
        description:
          "P9 (a task of the Compass Server-on-Kubernetes design): pass serverName as --server-name. Needs a Compass Runner with P9; the released one exits 2 on the flag",
      }),
    })
    .default({ P9: false })
    .meta({
      description:
        "rigging: interfaces the Compass Server-on-Kubernetes design plans, each opted into by its task; off by default, so the released Runner starts (CS-14)",
    }),
);

/** P9 is opted into by designed.P9, and needs the name it passes (CS-14). */
export function checkServerName(v: { designed: { P9: boolean }; serverName?: string }, ctx: IssueSink, at: PropertyKey[] = []): void {
  if (v.designed.P9 && v.serverName === undefined)
    fail(
      ctx,
      [...at, "serverName"],
      "CS-14",
      "is missing, but designed.P9 asks for --server-name",
      "give serverName, the DNS name the Server's certificate carries (such as compass.example.com), or remove designed.P9",
    );
  else if (!v.designed.P9 && v.serverName !== undefined)
    fail(
      ctx,
      [...at, "serverName"],
      "CS-14",
      "is passed only as --server-name, which no released Runner reads (P9)",
      "set designed.P9: true for a Compass Runner with P9, or remove serverName: the released Runner verifies the host of serverAddr, which the certificate must name",
    );
}

const PROBE_FIX =
  "remove it: rigging renders no probe on the Runner container, which serves no endpoint; a failed liveness or startup probe restarts the container, and a restart tears down every microVM session on the node";

const MOVED = (to: string) => `this key is written ${to} in the upstream format rigging reads`;

/** Every key of a CompassRunner values file except `kind` and `serverCluster`. */
export const runnerFields = once(() => ({
  name: dnsLabel("G-07", "name").default("compass-runner").meta({ description: "rigging: instance name (object names, app.kubernetes.io/instance)" }),
  namespace: dnsLabel("CR-04", "namespace").default("compass-runner").meta({ description: "Namespace of the Runner; holds only Runner pods (CR-06)" }),
  createNamespace: z.boolean().default(true).meta({ description: "rigging: render the Namespace (with Pod Security labels, G-10)" }),
  serviceAccount: dnsSubdomain("CR-04", "serviceAccount")
    .default("compass-runner")
    .meta({ description: "rigging: the Runner's ServiceAccount, without RBAC (CR-05)" }),
  image: imageSchema(),
  serverAddr: httpsUrl("CR-02", "serverAddr").meta({ description: "The Server address, an absolute https:// URL (CR-02): COMPASS_SERVER_ADDR" }),
  designed: designedRunnerSchema(),
  serverName: hostName("CR-14", "serverName").optional().meta({
    description: "rigging, with designed.P9 only: the TLS name the Runner verifies (--server-name, CR-14). Without P9 it verifies the host of serverAddr",
  }),
  serverCA: serverCASchema().optional(),
  nodeSelector: z
    .strictObject(labelPair("CR-12", "nodeSelector"))
    .meta({ description: "One node label {key, value}; kubernetes.io/hostname pins one node (CR-07, CR-12)" }),
  toleration: z
    .strictObject({
      ...labelPair("CR-12", "toleration"),
      effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"], req("CR-12", "effect is NoSchedule, PreferNoSchedule or NoExecute")),
    })
    .optional()
    .meta({ description: "The Runner node's taint {key, value, effect}; rendered with operator Equal (CR-12)" }),
  kvmResourceName: refineBy(
    z.string(req("CR-08", "expected a string", "give the device plugin's extended resource, such as devices.kubevirt.io/kvm")),
    checkResourceName,
  ).meta({ description: "Extended resource the KVM device plugin advertises; the container requests and limits 1 (CR-08)" }),
  seccompProfilePath: refineBy(z.string(), checkSeccompProfilePath)
    .default(DEFAULT_SECCOMP_PROFILE)
    .meta({ description: "Localhost seccomp profile, relative to the kubelet seccomp root (CR-10)" }),
  sessionCapacity: integer("CR-19", "sessionCapacity", 1).meta({ description: "Sessions (microVMs) the Runner runs at once (CR-19)" }),
  guestMemoryMiB: integer("CR-19", "guestMemoryMiB", 1).meta({ description: "RAM per guest in MiB: COMPASS_MICROVM_MEMORY_MB (CR-19)" }),
  guestCpus: integer("CR-19", "guestCpus", 1).meta({ description: "vCPUs per guest: COMPASS_MICROVM_CPUS (CR-19)" }),
  runnerOverheadMiB: integer("CR-19", "runnerOverheadMiB", 0).meta({
    description: "Memory of the Runner and its VMM helpers beside the guests, in MiB (CR-19)",
  }),
  hostPaths: z
    .strictObject({
      sessionVolumeRoot: hostPath().meta({ description: "Session-volume tree, on a project-quota filesystem, owned by 65532:65532" }),
      runtimeRoot: hostPath().meta({ description: "Runtime tree for stale-session reaping, owned by 65532:65532" }),
      sessions: refused("CR-11", MOVED("hostPaths.sessionVolumeRoot")),
      runtime: refused("CR-11", MOVED("hostPaths.runtimeRoot")),
    })
    .meta({ description: "The two host trees, absolute and distinct (CR-11)" }),
  tokenExpirationSeconds: tokenLifetime("CR-03", "tokenExpirationSeconds")
    .default(DEFAULT_TOKEN_SECONDS)
    .meta({ description: `Lifetime of the projected token, at most maxTokenLifetimeSeconds (CR-03); default ${DEFAULT_TOKEN_SECONDS}` }),
  maxTokenLifetimeSeconds: tokenLifetime("CR-03", "maxTokenLifetimeSeconds")
    .default(DEFAULT_TOKEN_SECONDS)
    .meta({ description: `The Server cluster entry's maxTokenLifetime (CR-03); default ${DEFAULT_TOKEN_SECONDS}` }),
  admission: admissionSchema().meta({ description: "Identities for the CR-06 admission policies" }),
  maxUnavailable: z
    .literal(MAX_UNAVAILABLE, req("CR-07", "maxUnavailable is 1: the Runner ID is per node, so a rollout replaces one Runner at a time and never surges"))
    .default(MAX_UNAVAILABLE)
    .meta({ description: "Must be 1 (CR-07)" }),
  perSessionReapSeconds: integer("CR-19", "perSessionReapSeconds", 1).meta({
    description: "Seconds to reap one session at shutdown; the grace period is this times sessionCapacity (CR-19)",
  }),
  priorityClassValue: integer("CR-19", "priorityClassValue", PRIORITY_MIN, PRIORITY_MAX).meta({
    description: `Value of the Runner's PriorityClass, ${PRIORITY_MIN}..${PRIORITY_MAX} (CR-19)`,
  }),
  egressAllow: z
    .array(runnerEgressSchema())
    .default([])
    .meta({ description: "rigging: destinations beyond DNS and the Server: host feeds --egress-allow, cidr the NetworkPolicy (CR-15)" }),
  otel: z
    .strictObject({ endpoint: endpointUrl("CR-16", "otel.endpoint") })
    .optional()
    .meta({ description: "rigging: OTLP endpoint metrics are pushed to: OTEL_EXPORTER_OTLP_ENDPOINT (CR-16)" }),
  arch: z
    .literal("amd64", req("CR-13", "the Runner is amd64-only until an arm64 KVM boot passes; remove arch or set amd64"))
    .default("amd64")
    .meta({ description: "rigging: only amd64 until an arm64 KVM boot passes (CR-13)" }),
  server: refused("CR-02", "write the Server address as serverAddr, and serverName and serverCA at the top level"),
  tolerations: refused("CR-12", "write the node's taint as toleration: {key, value, effect}"),
  resources: refused("CR-19", "remove it: resources follow capacity (sessionCapacity, guestMemoryMiB, guestCpus, runnerOverheadMiB)"),
  livenessProbe: refused("CR-19", PROBE_FIX),
  startupProbe: refused("CR-19", PROBE_FIX),
  readinessProbe: refused("CR-19", PROBE_FIX),
  runnerId: refused("CR-17", "is not a values key", CR["CR-17"].fix),
  runnerTokenSecret: refused("CR-20", "remove it: the Runner's only credential is the projected token (a static token beside it stops the Runner)"),
  agentImage: refused("CR-20", "remove it: the microVM Runner runs the agent from the guest image and refuses an agent image"),
  hostUsers: refused("CR-09", "remove it: the Runner always runs in a user namespace (hostUsers: false); nodes need user-namespace support (CR-18)"),
  extraObjects: refused("CR-01", "remove it: rigging renders exactly the Runner's object set; apply other objects on their own"),
  rbac: refused("CR-05", "remove it: the Runner ServiceAccount has no RBAC binding; its only credential is the projected compass-runner token"),
  automountServiceAccountToken: refused(
    "CR-05",
    "remove it: the API token would be an unused credential, so rigging always sets automountServiceAccountToken: false",
  ),
  ...hardeningGuards(),
}));

/** Checks that need more than one key; run once the shape is right. */
export function checkRunner(v: RunnerFields, ctx: IssueSink, at: PropertyKey[] = []): void {
  eachCheck(
    () => checkServerName(v, ctx, at),
    () => {
      if (v.nodeSelector.key === ARCH_LABEL && v.nodeSelector.value !== "amd64")
        fail(ctx, [...at, "nodeSelector", "value"], "CR-13", `asks for ${v.nodeSelector.value}`, "the Runner is amd64-only until an arm64 KVM boot passes");
    },
    () => {
      if (overlaps(v.hostPaths.sessionVolumeRoot, v.hostPaths.runtimeRoot)) {
        fail(
          ctx,
          [...at, "hostPaths", "runtimeRoot"],
          "CR-11",
          `overlaps hostPaths.sessionVolumeRoot (${v.hostPaths.sessionVolumeRoot})`,
          "give the session-volume tree and the runtime tree two distinct, non-nested directories",
        );
      }
    },
    () => {
      if (v.tokenExpirationSeconds > v.maxTokenLifetimeSeconds) {
        fail(
          ctx,
          [...at, "tokenExpirationSeconds"],
          "CR-03",
          `is above maxTokenLifetimeSeconds (${v.maxTokenLifetimeSeconds})`,
          "lower tokenExpirationSeconds, or raise maxTokenLifetimeSeconds together with the Server cluster entry's maxTokenLifetime",
        );
      }
    },
    () => checkDerived(v, ctx, at),
    () => {
      const hosts = v.egressAllow.map((rule) => rule.host).filter((h) => h !== undefined);
      if (new Set(hosts).size !== hosts.length) fail(ctx, [...at, "egressAllow"], "CR-15", "names a host twice", "list each host once");
    },
  );
}

/** `at` places the keys in a file that nests them (kind: Compass). */
export function checkServerCluster(v: RunnerFields, cluster: ServerCluster, ctx: IssueSink, at: PropertyKey[] = ["serverCluster"]): void {
  const fix = "the Runner and its Server cluster entry must agree on namespace, serviceAccount and audience";
  if (cluster.namespace !== undefined && cluster.namespace !== v.namespace)
    fail(ctx, [...at, "namespace"], "CR-04", `is ${cluster.namespace}, but the Runner's namespace is ${v.namespace}`, fix);
  if (cluster.serviceAccount !== undefined && cluster.serviceAccount !== v.serviceAccount)
    fail(ctx, [...at, "serviceAccount"], "CR-04", `is ${cluster.serviceAccount}, but the Runner's serviceAccount is ${v.serviceAccount}`, fix);
  if (cluster.audience !== undefined && cluster.audience !== RUNNER_AUDIENCE)
    fail(
      ctx,
      [...at, "audience"],
      "CR-04",
      `is ${cluster.audience}, but the Runner's token audience is ${RUNNER_AUDIENCE}`,
      `set audience: ${RUNNER_AUDIENCE}; ${fix}`,
    );
}

/** Where the NetworkPolicy cannot name the Server, the Runner may reach its port anywhere: say so. */
export function serverReach(v: RunnerFields): { host: string; port: number; covered: boolean } | undefined {
  if (!URL.canParse(v.serverAddr) || serverEgress(v.serverAddr)) return undefined;
  const url = new URL(v.serverAddr);
  const port = Number(url.port || 443);
  const covered = v.egressAllow.some(
    (rule) => egressCidr(rule) !== undefined && (!rule.ports || rule.ports.some((p) => p.port === port && p.protocol === "TCP")),
  );
  return { host: url.hostname, port, covered };
}

const runnerObject = once(() => z.strictObject(runnerFields()));
export type RunnerFields = z.output<ReturnType<typeof runnerObject>>;

export const compassRunnerSchema = once(() =>
  refineBy(
    z.strictObject({
      kind: z.literal("CompassRunner").optional().meta({ description: "Optional for a file in the upstream tool's shape" }),
      ...runnerFields(),
      serverCluster: serverClusterSchema().optional(),
    }),
    checkCompassRunner,
  ).meta({ title: "CompassRunner values", description: "The upstream runner-manifests values, with rigging's optional additions" }),
);

export type CompassRunnerValues = z.output<ReturnType<typeof compassRunnerSchema>>;

/** The checks of a CompassRunner file that need more than one key. */
export function checkCompassRunner(v: RunnerFields & { serverCluster?: ServerCluster }, ctx: IssueSink): void {
  eachCheck(
    () => checkRunner(v, ctx),
    () => {
      if (v.serverCluster) checkServerCluster(v, v.serverCluster, ctx);
    },
  );
}
