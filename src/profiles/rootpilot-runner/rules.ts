// Rules of the Rootpilot runner (RP-), judged from manifests. They run over
// `render`'s own output and over anyone's hand-written manifests in `check`.
import { posix } from "node:path";
import type { Container, Probe, VolumeMount } from "kubernetes-types/core/v1";
import type { NetworkPolicySpec } from "kubernetes-types/networking/v1";
import { httpsUrlProblem } from "../../core/common-values.ts";
import type { K8sObject } from "../../core/objects.ts";
import { dig, hit, type ContainerRef, type ObjectSet, type PodRef, type Rule, type RuleHit, envOf } from "../../rules/engine.ts";
import {
  ATTESTATION_MODES,
  DEFAULT_DRAIN_TIMEOUT_MS,
  ENROLL_AUDIENCE,
  ENV,
  GKE_TOKEN_PATH,
  HOME_DIR,
  IRSA_ROLE_ANNOTATION,
  MISSING_REGION_ERROR,
  NODE_UID,
  ROLE_ARN,
  SECRET_STORE_MODES,
  STATIC_AWS_ENV,
  TOKEN_MIN_SECONDS,
  gracePeriodFor,
} from "./runtime.ts";

const RUNNER: Rule["profiles"] = ["rootpilot-runner"];
/** Kubernetes' own default when a pod sets no grace period. */
const KUBERNETES_DEFAULT_GRACE = 30;

/** The runner's app containers (init containers do not read the runner's environment). */
function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => c.containerPath[c.containerPath.length - 2] === "containers");
}

const WHOLE_NUMBER = /^[0-9]+$/;

/** The volume mounted at `dir` in `container`, with its index in the pod's volumes. */
function volumeAt(pod: PodRef, container: Container, dir: string) {
  const mount = (container.volumeMounts ?? []).find((m) => m.mountPath === dir || m.mountPath === dir + "/");
  const index = mount ? (pod.spec.volumes ?? []).findIndex((v) => v.name === mount.name) : -1;
  return { mount, index, volume: index < 0 ? undefined : pod.spec.volumes![index] };
}

/** The mount a file path lands on: the longest mountPath that contains it. */
function mountHolding(container: Container, file: string): VolumeMount | undefined {
  return (container.volumeMounts ?? [])
    .filter((m) => file.startsWith(m.mountPath.replace(/\/$/, "") + "/"))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
}

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const NETWORK_HANDLERS = ["httpGet", "tcpSocket", "grpc"] as const;

export const rootpilotRunnerRules: Rule[] = [
  {
    id: "RP-01",
    summary: `A Deployment of stateless replicas running as node (uid ${NODE_UID}) with HOME ${HOME_DIR} on a writable emptyDir`,
    fix: `run the runner as a Deployment with runAsUser: ${NODE_UID}, runAsGroup: ${NODE_UID}, env HOME=${HOME_DIR} and an emptyDir mounted at ${HOME_DIR}`,
    why: "The image runs as node (uid 1000) and the AWS SDK resolves its caches from $HOME; kubelet cannot verify runAsNonRoot for a named USER, so the uid is set explicitly. Replicas hold no state, so a Deployment, not a StatefulSet or DaemonSet.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of set.pods()) {
        if (pod.object.kind !== "Deployment") hits.push(hit(pod.object, ["kind"], `the runner is a ${pod.object.kind}; its replicas are stateless, so it is a Deployment`));
      }
      for (const { object, spec, container, containerPath, path } of runnerContainers(set)) {
        const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
        if (uid !== NODE_UID) hits.push(hit(object, [...path, "securityContext", "runAsUser"], `runs as uid ${uid ?? "(unset: the image's named USER cannot be verified non-root)"}, not ${NODE_UID} (node)`));
        const { env, index } = envOf(container, ENV.home);
        if (env && env.value !== HOME_DIR) hits.push(hit(object, [...containerPath, "env", index, "value"], `HOME is ${JSON.stringify(env.value ?? "")}, not ${HOME_DIR}`));
        const home = volumeAt({ object, spec, path }, container, HOME_DIR);
        if (!home.volume?.emptyDir) hits.push(hit(object, [...containerPath, "volumeMounts"], `no emptyDir is mounted at ${HOME_DIR}, so $HOME is on the read-only root filesystem`));
      }
      return hits;
    },
  },
  {
    id: "RP-02",
    summary: "No network probes, no container port, no Service: the runner listens on nothing",
    fix: "remove httpGet/tcpSocket/grpc probes, container ports and Services; readiness is the `boot: ready` log line and the control plane's Fleet view",
    why: "The runner is an outbound client: it listens on no port and exposes no /healthz, so every httpGet liveness or readiness probe fails.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.ofKind("Service").map((s) => hit(s, ["kind"], "a Service for the runner, which serves nothing"));
      for (const { object, container, containerPath } of set.containers()) {
        if ((container.ports ?? []).length > 0) hits.push(hit(object, [...containerPath, "ports"], "the container declares ports; the runner listens on none"));
        for (const probe of PROBES) {
          const handler = NETWORK_HANDLERS.find((h) => (container[probe] as Probe | undefined)?.[h] !== undefined);
          if (handler) hits.push(hit(object, [...containerPath, probe, handler], `${probe} uses ${handler}; the runner listens on nothing, so it always fails`));
        }
        for (const hook of ["preStop", "postStart"] as const) {
          const handler = (["httpGet", "tcpSocket"] as const).find((h) => container.lifecycle?.[hook]?.[h] !== undefined);
          if (handler) hits.push(hit(object, [...containerPath, "lifecycle", hook, handler], `lifecycle.${hook} uses ${handler}; the runner listens on nothing`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-03",
    summary: `terminationGracePeriodSeconds exceeds RUNNER_DRAIN_TIMEOUT_MS (default ${DEFAULT_DRAIN_TIMEOUT_MS}) with headroom`,
    fix: `set terminationGracePeriodSeconds above the drain timeout in seconds, such as ${gracePeriodFor(DEFAULT_DRAIN_TIMEOUT_MS)} for the default ${DEFAULT_DRAIN_TIMEOUT_MS} ms`,
    why: "The runner drains on SIGTERM for up to RUNNER_DRAIN_TIMEOUT_MS; Kubernetes' default grace is 30 s, so SIGKILL arrives mid-drain.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, spec, container, containerPath, path } of runnerContainers(set)) {
        const { env, index } = envOf(container, ENV.drainTimeout);
        if (env && !WHOLE_NUMBER.test(env.value ?? "")) {
          hits.push(hit(object, [...containerPath, "env", index, "value"], `${ENV.drainTimeout} is ${JSON.stringify(env.value ?? "(not a literal)")}, not a whole number of milliseconds`));
          continue;
        }
        const drainMs = env ? Number(env.value) : DEFAULT_DRAIN_TIMEOUT_MS;
        const grace = spec.terminationGracePeriodSeconds ?? KUBERNETES_DEFAULT_GRACE;
        if (grace <= drainMs / 1000) {
          const shown = spec.terminationGracePeriodSeconds === undefined ? `unset (Kubernetes' default ${KUBERNETES_DEFAULT_GRACE})` : String(grace);
          hits.push(hit(object, [...path, "terminationGracePeriodSeconds"], `terminationGracePeriodSeconds is ${shown}, not above the ${drainMs / 1000} s drain; SIGKILL arrives mid-drain (use ${gracePeriodFor(drainMs)})`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-04",
    summary: "RUNNER_LEARNED_FLUSH_INTERVAL_MS, when set, is a whole number of milliseconds (it bounds, not removes, what a hard kill loses)",
    fix: "set RUNNER_LEARNED_FLUSH_INTERVAL_MS to a whole number of milliseconds, such as 60000 (the default)",
    why: "A hard reclaim with no drain (SIGKILL, OOM, spot) loses learned state since the last flush; the interval bounds that loss but does not eliminate it.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const { env, index } = envOf(container, ENV.flushInterval);
        if (env && env.valueFrom === undefined && (!WHOLE_NUMBER.test(env.value ?? "") || Number(env.value) === 0)) {
          hits.push(hit(object, [...containerPath, "env", index, "value"], `${ENV.flushInterval} is ${JSON.stringify(env.value ?? "")}, not a positive whole number of milliseconds`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-05",
    summary: "No PersistentVolumeClaim, ever; a learned store on disk lives on an emptyDir",
    fix: "remove PersistentVolumeClaims and claim-backed volumes; leave RUNNER_LEARNED_STORE_PATH unset (:memory:) or put its directory on an emptyDir",
    why: "The runner is cattle and holds no durable state; the control plane is the source of truth, and an on-disk learned store is only a cache.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.ofKind("PersistentVolumeClaim").map((o) => hit(o, ["kind"], "a PersistentVolumeClaim in the runner set"));
      for (const sts of set.ofKind("StatefulSet")) {
        if (((dig(sts, ["spec", "volumeClaimTemplates"]) as unknown[] | undefined) ?? []).length > 0) hits.push(hit(sts, ["spec", "volumeClaimTemplates"], "volumeClaimTemplates create PersistentVolumeClaims"));
      }
      for (const { object, spec, path } of set.pods()) {
        (spec.volumes ?? []).forEach((volume, index) => {
          if (volume.persistentVolumeClaim) hits.push(hit(object, [...path, "volumes", index, "persistentVolumeClaim"], `volume ${volume.name} is a PersistentVolumeClaim`));
          if (volume.ephemeral) hits.push(hit(object, [...path, "volumes", index, "ephemeral"], `volume ${volume.name} is a generic ephemeral volume, which creates a PersistentVolumeClaim`));
        });
      }
      for (const { object, spec, container, containerPath } of runnerContainers(set)) {
        const { env, index } = envOf(container, ENV.learnedStorePath);
        if (!env?.value || env.value === ":memory:") continue;
        const mount = mountHolding(container, env.value);
        const volume = (spec.volumes ?? []).find((v) => v.name === mount?.name);
        if (!volume?.emptyDir) {
          const where = mount ? `volume ${mount.name}, which is not an emptyDir` : "the read-only root filesystem";
          hits.push(hit(object, [...containerPath, "env", index, "value"], `${ENV.learnedStorePath} ${env.value} is on ${where}`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-06",
    summary: `Attestation per provider: gke-oidc with a projected token for ${ENROLL_AUDIENCE} at ${GKE_TOKEN_PATH}, or aws-sts with AWS_REGION and an IRSA role; never eks-oidc`,
    fix: `for GKE mount a projected serviceAccountToken (audience ${ENROLL_AUDIENCE}, path token, expirationSeconds >= ${TOKEN_MIN_SECONDS}) read-only at the token path; for EKS set RUNNER_ATTESTATION_MODE=aws-sts, AWS_REGION and the ${IRSA_ROLE_ANNOTATION} annotation`,
    why: "The audience stops a KSA token projected for another service from being replayed into an enrollment; a wrong one fails as attestation_invalid, which reads like a bad credential. aws-sts does not guess the region, because the control plane accepts only regions from its allowlist (that list is checked from values: attestation.regionAllowlist).",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const { object, container, containerPath } = ref;
        const { env: modeEnv, index: modeIndex } = envOf(container, ENV.attestationMode);
        const mode = modeEnv?.value;
        if (mode === ATTESTATION_MODES.gke) hits.push(...gkeHits(ref));
        else if (mode === ATTESTATION_MODES.eks) hits.push(...eksHits(set, ref));
        else if (mode === "eks-oidc") hits.push(hit(object, [...containerPath, "env", modeIndex, "value"], "RUNNER_ATTESTATION_MODE is eks-oidc; on EKS the runner attests with aws-sts through IRSA"));
        else if (!modeEnv) hits.push(hit(object, [...containerPath, "env"], `${ENV.attestationMode} is not set (gke-oidc on GKE, aws-sts on EKS)`));
        else hits.push(hit(object, [...containerPath, "env", modeIndex, "value"], `${ENV.attestationMode} is ${JSON.stringify(mode ?? "(not a literal)")}, not gke-oidc or aws-sts`));
      }
      return hits;
    },
  },
  {
    id: "RP-07",
    summary: "Secrets through workload identity: RUNNER_SECRET_STORE_MODE aws (with RUNNER_AWS_CRED_MODE=chain) or vault; no static AWS keys",
    fix: "remove static AWS keys and mounted ~/.aws credentials; use IRSA with RUNNER_AWS_CRED_MODE=chain, or Vault KV v2 with an https:// address",
    why: "Both stores resolve through workload identity, so no key passes through the cluster at all.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of set.containers()) {
        (container.env ?? []).forEach((env, index) => {
          if ((STATIC_AWS_ENV as readonly string[]).includes(env.name)) hits.push(hit(object, [...containerPath, "env", index, "name"], `${env.name} is a static AWS credential`));
        });
        (container.volumeMounts ?? []).forEach((mount, index) => {
          if (/(^|\/)\.aws(\/|$)/.test(mount.mountPath)) hits.push(hit(object, [...containerPath, "volumeMounts", index, "mountPath"], `${mount.mountPath} mounts AWS shared credentials; on Kubernetes IRSA takes their place`));
        });
      }
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const { env: mode, index } = envOf(container, ENV.secretStoreMode);
        if (!mode) continue;
        if (!(SECRET_STORE_MODES as readonly string[]).includes(mode.value ?? "")) {
          hits.push(hit(object, [...containerPath, "env", index, "value"], `${ENV.secretStoreMode} is ${JSON.stringify(mode.value ?? "")}, not aws or vault`));
        } else if (mode.value === "aws") {
          const { env: cred, index: credIndex } = envOf(container, ENV.awsCredMode);
          if (cred?.value !== "chain") hits.push(hit(object, [...containerPath, "env", ...(cred ? [credIndex, "value"] : [])], `${ENV.awsCredMode} is ${cred ? JSON.stringify(cred.value ?? "") : "unset"}, not chain`));
        } else {
          const { env: addr, index: addrIndex } = envOf(container, ENV.vaultAddr);
          const problem = addr?.value ? httpsUrlProblem(addr.value) : "is not set";
          if (problem) hits.push(hit(object, [...containerPath, "env", ...(addr ? [addrIndex, "value"] : [])], `${ENV.vaultAddr} ${problem}`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-08",
    summary: "Outbound only: a NetworkPolicy selects the runner with no ingress and egress to DNS and named destinations",
    fix: "apply a NetworkPolicy selecting the runner pods with policyTypes [Ingress, Egress], no ingress rules, egress to DNS (port 53) and to the control plane and configured CIDRs",
    why: "The runner accepts no connections; connector manifests' allowlists are documentation, so the cluster is what enforces egress.",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      const policies = set.ofKind("NetworkPolicy");
      for (const pod of set.pods()) {
        const labels = (dig(pod.object, ["spec", "template", "metadata", "labels"]) ?? pod.object.metadata.labels ?? {}) as Record<string, string>;
        if (!policies.some((p) => selects(p, labels))) hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the runner pods"));
      }
      for (const policy of policies) hits.push(...policyHits(policy));
      return hits;
    },
  },
  {
    id: "RP-09",
    summary: "Resources are an explicit, documented choice: requests and limits in values, with a stated default",
    fix: "set resources.requests.{cpu,memory} and resources.limits.memory in values, or keep the documented default",
    why: "The seed names resources as a decision a chart had not made, for want of a versioned benchmark.",
    judgedFrom: "values (resources and its stated default); in manifests, G-08 checks that requests and a memory limit are set",
    severity: "error",
    profiles: RUNNER,
    check: () => [],
  },
  {
    id: "RP-10",
    summary: "OTEL_EXPORTER_OTLP_ENDPOINT, when set, is an absolute http:// or https:// URL",
    fix: "set OTEL_EXPORTER_OTLP_ENDPOINT to a collector URL such as http://otel-collector.observability:4318",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of runnerContainers(set)) {
        const { env, index } = envOf(container, ENV.otelEndpoint);
        if (env && env.valueFrom === undefined && !isEndpoint(env.value ?? "")) hits.push(hit(object, [...containerPath, "env", index, "value"], `${ENV.otelEndpoint} ${JSON.stringify(env.value ?? "")} is not an absolute http(s) URL`));
      }
      return hits;
    },
  },
];

function gkeHits({ object, spec, path, container, containerPath }: ContainerRef): RuleHit[] {
  const { env: custom } = envOf(container, ENV.gkeTokenPath);
  const file = custom?.value ?? GKE_TOKEN_PATH;
  const { mount, index, volume } = volumeAt({ object, spec, path }, container, posix.dirname(file));
  const sources = volume?.projected?.sources ?? [];
  const at = sources.findIndex((s) => s.serviceAccountToken?.path === posix.basename(file));
  if (!mount || at < 0) {
    return [hit(object, [...containerPath, "volumeMounts"], `no projected serviceAccountToken is mounted for ${file}; the runner fails with "RUNNER_ATTESTATION_MODE=gke-oidc: failed to read projected KSA token at ${file} (is the Workload Identity token volume mounted?)"`)];
  }
  const token = sources[at].serviceAccountToken!;
  const tokenPath = [...path, "volumes", index, "projected", "sources", at, "serviceAccountToken"];
  const hits: RuleHit[] = [];
  if (token.audience !== ENROLL_AUDIENCE) {
    hits.push(hit(object, [...tokenPath, "audience"], `audience is ${token.audience === undefined ? "unset" : JSON.stringify(token.audience)}, not ${ENROLL_AUDIENCE}; the enroll is refused as attestation_invalid`));
  }
  if (token.expirationSeconds !== undefined && token.expirationSeconds < TOKEN_MIN_SECONDS) {
    hits.push(hit(object, [...tokenPath, "expirationSeconds"], `expirationSeconds ${token.expirationSeconds} is below ${TOKEN_MIN_SECONDS}`));
  }
  if (mount.readOnly !== true) hits.push(hit(object, [...containerPath, "volumeMounts"], `the token mount at ${mount.mountPath} is not readOnly`));
  return hits;
}

function eksHits(set: ObjectSet, { object, spec, container, containerPath }: ContainerRef): RuleHit[] {
  const hits: RuleHit[] = [];
  const { env: region, index } = envOf(container, ENV.awsRegion);
  if (!region?.value) hits.push(hit(object, [...containerPath, "env", ...(region ? [index] : [])], `AWS_REGION is not set; the runner fails at boot with "${MISSING_REGION_ERROR}"`));
  const account = spec.serviceAccountName ?? "default";
  const sa = set.ofKind("ServiceAccount").find((s) => s.metadata.name === account && s.metadata.namespace === object.metadata.namespace);
  if (sa) {
    const arn = sa.metadata.annotations?.[IRSA_ROLE_ANNOTATION];
    if (arn === undefined) hits.push(hit(sa, ["metadata", "annotations"], `the ServiceAccount has no ${IRSA_ROLE_ANNOTATION} annotation, so IRSA gives the runner no identity`));
    else if (!ROLE_ARN.test(arn)) hits.push(hit(sa, ["metadata", "annotations", IRSA_ROLE_ANNOTATION], `${JSON.stringify(arn)} is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)`));
  }
  return hits;
}

function selects(policy: K8sObject, labels: Record<string, string>): boolean {
  const selector = (dig(policy, ["spec", "podSelector"]) ?? {}) as { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

function policyHits(policy: K8sObject): RuleHit[] {
  const spec = (policy.spec ?? {}) as NetworkPolicySpec;
  const hits: RuleHit[] = [];
  for (const type of ["Ingress", "Egress"]) if (!(spec.policyTypes ?? []).includes(type)) hits.push(hit(policy, ["spec", "policyTypes"], `policyTypes does not list ${type}`));
  if ((spec.ingress ?? []).length > 0) hits.push(hit(policy, ["spec", "ingress"], `${spec.ingress!.length} ingress rule(s); the runner accepts no connections`));
  const egress = spec.egress ?? [];
  egress.forEach((rule, index) => {
    if (!rule.to || rule.to.length === 0) hits.push(hit(policy, ["spec", "egress", index], "an egress rule without `to` allows every destination"));
    (rule.to ?? []).forEach((peer, j) => {
      const cidr = peer.ipBlock?.cidr;
      if (cidr === "0.0.0.0/0" || cidr === "::/0") hits.push(hit(policy, ["spec", "egress", index, "to", j, "ipBlock", "cidr"], `egress to ${cidr} allows every destination`));
    });
  });
  const isDns = (rule: (typeof egress)[number]) => (rule.ports ?? []).some((p) => p.port === 53);
  if (!egress.some(isDns)) hits.push(hit(policy, ["spec", "egress"], "no egress rule reaches DNS (port 53)"));
  if (!egress.some((rule) => !isDns(rule))) hits.push(hit(policy, ["spec", "egress"], "no egress beyond DNS: the runner cannot reach the control plane"));
  return hits;
}

function isEndpoint(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
  } catch {
    return false;
  }
}
