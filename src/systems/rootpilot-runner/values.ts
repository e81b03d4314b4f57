// Values of the Rootpilot runner (the Rootpilot Kubernetes guide): a Deployment
// of stateless, outbound-only replicas. Keys follow the guide's names in camelCase.
import { posix } from "node:path";
import { z } from "zod";
import { egressRuleSchema, endpointUrl, hardeningGuards, nodeSelectorSchema, resourcesSchema, tolerationSchema } from "../../values/common-values.ts";
import { imageSchema } from "../../values/image.ts";
import { dnsLabel, dnsSubdomain } from "../../k8s/names.ts";
import { eachCheck, fail, once, refineBy, req, tagged, type IssueSink } from "../../values/values.ts";
import { attestationSchema } from "./attestation.ts";
import { envGuard, isUnder, listenerGuards, persistenceGuards, podFilePathProblem, staticKeyGuards } from "./guards.ts";
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_LEARNED_FLUSH_INTERVAL_MS, gracePeriodFor, GRACE_HEADROOM_SECONDS } from "./interface.ts";
import { RP } from "./requirements.ts";
import { secretStoreSchema } from "./secret-store.ts";

/** The default resources (RP-09): a stated starting point, not a benchmark. */
export const DEFAULT_RESOURCES = { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } };
export const DEFAULT_REPLICAS = 2;

const milliseconds = (id: string, what: string, min: number) =>
  z
    .number(req(id, `${what} is a whole number of milliseconds`))
    .int(req(id, `${what} is a whole number of milliseconds`))
    .min(min, req(id, `${what} is at least ${min} ms`));

export function checkLearnedStorePath(path: string, ctx: IssueSink): void {
  const problem =
    path === ":memory:"
      ? "is :memory:, which is already the default"
      : (podFilePathProblem(path) ?? (isUnder(path, "/var/run/secrets") ? "is under /var/run/secrets" : undefined));
  if (problem) {
    ctx.addIssue({
      code: "custom",
      input: path,
      message: tagged(
        "RP-05",
        problem,
        "give an absolute file path such as /var/lib/rootpilot/learned.db (its directory becomes an emptyDir), or leave learnedStorePath out for :memory:",
      ),
    });
  }
}

const learnedStorePath = once(() =>
  refineBy(z.string(), checkLearnedStorePath)
    .optional()
    .meta({ description: "RUNNER_LEARNED_STORE_PATH: a file on an emptyDir, a cache and never a source of truth. Default: unset, the store is :memory:" }),
);

const rootpilotObject = once(() =>
  z.strictObject({
    kind: z.literal("RootpilotRunner"),
    name: dnsLabel("G-07", "name").default("rootpilot-runner").meta({ description: "Instance name: object names and app.kubernetes.io/instance" }),
    namespace: dnsLabel("G-10", "namespace").default("rootpilot"),
    createNamespace: z.boolean().default(true).meta({ description: "Render the Namespace with Pod Security restricted labels (G-10)" }),
    serviceAccount: dnsSubdomain("RP-06", "serviceAccount").default("rootpilot-runner"),
    image: imageSchema(),
    replicas: z
      .number(req("RP-01", "replicas is a whole number of stateless runners"))
      .int(req("RP-01", "replicas is a whole number of stateless runners"))
      .min(1, req("RP-01", "run at least one replica"))
      .max(2_147_483_647, req("RP-01", "replicas is at most 2147483647, the most a Deployment holds"))
      .default(DEFAULT_REPLICAS)
      .meta({ description: `Stateless runner replicas (RP-01). Default ${DEFAULT_REPLICAS}` }),
    attestation: attestationSchema(),
    secretStore: secretStoreSchema(),
    drainTimeoutMs: milliseconds("RP-03", "drainTimeoutMs", 1000)
      .default(DEFAULT_DRAIN_TIMEOUT_MS)
      .meta({ description: `RUNNER_DRAIN_TIMEOUT_MS: the drain ceiling after SIGTERM. Default ${DEFAULT_DRAIN_TIMEOUT_MS}` }),
    terminationGracePeriodSeconds: z
      .number(req("RP-03", "terminationGracePeriodSeconds is a whole number of seconds"))
      .int(req("RP-03", "terminationGracePeriodSeconds is a whole number of seconds"))
      .optional()
      .meta({ description: `Default: ceil(drainTimeoutMs / 1000) + ${GRACE_HEADROOM_SECONDS} (150 for the default drain). Must exceed the drain` }),
    learnedFlushIntervalMs: milliseconds("RP-04", "learnedFlushIntervalMs", 1000)
      .default(DEFAULT_LEARNED_FLUSH_INTERVAL_MS)
      .meta({ description: `RUNNER_LEARNED_FLUSH_INTERVAL_MS: bounds, not removes, what a hard kill loses. Default ${DEFAULT_LEARNED_FLUSH_INTERVAL_MS}` }),
    learnedStorePath: learnedStorePath(),
    controlPlane: z
      .strictObject(
        egressRuleSchema("RP-08").shape,
        req(
          "RP-08",
          "give the control plane's address range and port, such as {cidr: 203.0.113.40/32, ports: [{port: 443}]}: the NetworkPolicy allows egress there and nowhere unnamed",
        ),
      )
      .meta({
        description: "Where the control plane is, as a CIDR and ports: the NetworkPolicy's egress rule for it (RP-08)",
      }),
    egressAllow: z
      .array(egressRuleSchema("RP-08"))
      .default([])
      .meta({ description: "Other egress destinations (STS, Secrets Manager, Vault, an OTLP collector) as CIDRs with ports" }),
    otel: z
      .strictObject({ endpoint: endpointUrl("RP-10", "otel.endpoint") })
      .optional()
      .meta({ description: "OTEL_EXPORTER_OTLP_ENDPOINT, when set (RP-10)" }),
    resources: resourcesSchema("RP-09", DEFAULT_RESOURCES),
    nodeSelector: nodeSelectorSchema("G-01").default({}),
    tolerations: z.array(tolerationSchema("G-01")).default([]),
    env: envGuard(),
    ...hardeningGuards(),
    ...listenerGuards(),
    ...persistenceGuards(),
    ...staticKeyGuards(),
  }),
);

export const rootpilotRunnerSchema = once(() =>
  refineBy(rootpilotObject(), checkRootpilotRunner).meta({
    title: "RootpilotRunner values",
    description: "rigging values for the Rootpilot runner Deployment",
  }),
);

export type RootpilotRunnerValues = z.output<ReturnType<typeof rootpilotObject>>;

/** The checks of a RootpilotRunner file that need more than one key. */
export function checkRootpilotRunner(v: RootpilotRunnerValues, ctx: IssueSink): void {
  eachCheck(
    () => checkGracePeriod(v, ctx),
    () => {
      if (v.secretStore?.mode === "aws" && v.attestation.provider !== "eks") {
        fail(
          ctx,
          ["secretStore", "mode"],
          "RP-07",
          "is aws, but attestation.provider is not eks",
          "AWS Secrets Manager reads resolve through the SDK chain (RUNNER_AWS_CRED_MODE=chain), which is IRSA on EKS; on GKE no AWS identity exists without static keys. Use mode: vault, or run on EKS",
        );
      }
    },
    () => checkStoreBesideToken(v, ctx),
  );
}

/** RP-03: SIGKILL must not arrive mid-drain. */
function checkGracePeriod(v: RootpilotRunnerValues, ctx: IssueSink): void {
  const drainSeconds = v.drainTimeoutMs / 1000;
  if (v.terminationGracePeriodSeconds !== undefined && v.terminationGracePeriodSeconds <= drainSeconds) {
    fail(
      ctx,
      ["terminationGracePeriodSeconds"],
      "RP-03",
      `is not above the drain timeout of ${drainSeconds} s (drainTimeoutMs ${v.drainTimeoutMs}), so SIGKILL would arrive mid-drain; ${gracePeriodFor(v.drainTimeoutMs)} leaves headroom`,
      RP["RP-03"].fix,
    );
  }
}

/** RP-05: the learned store has a directory of its own, apart from the token volume. */
function checkStoreBesideToken(v: RootpilotRunnerValues, ctx: IssueSink): void {
  if (v.learnedStorePath && v.attestation.provider === "gke") {
    const [store, token] = [posix.dirname(v.learnedStorePath), posix.dirname(v.attestation.tokenPath)];
    if (isUnder(store, token) || isUnder(token, store)) {
      fail(
        ctx,
        ["learnedStorePath"],
        "RP-05",
        `shares a directory with the token volume at ${token}`,
        "put the learned store in a directory of its own, such as /var/lib/rootpilot",
      );
    }
  }
}
