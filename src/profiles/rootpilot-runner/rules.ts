// Rootpilot runner rules (RP-), over render's output and anyone's manifests:
// seed statements are errors, our own hardening is a waivable warning.
import { posix } from "node:path";
import type { Probe } from "kubernetes-types/core/v1";
import { dig, hit, type ContainerRef, type ObjectSet, type Rule, type RuleHit } from "../../rules/engine.ts";
import { flagOrEnv, type FlagOrEnv } from "../../core/flag-or-env.ts";
import { isolationGaps, list, mountHolding, policiesSelecting, projectedToken, volumeAt } from "../../rules/templates.ts";
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
  ROOTPILOT_READING,
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

/** The field path of a variable inside the object, for a finding; its env list when it is unset. */
function at(ref: ContainerRef, s: FlagOrEnv | undefined): PropertyKey[] {
  return [...ref.containerPath, ...(s?.path ?? ["env"])];
}

const WHOLE_NUMBER = /^[0-9]+$/;
const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const NETWORK_HANDLERS = ["httpGet", "tcpSocket", "grpc"] as const;

/** The $HOME the runner's process sees: HOME when written, else the home of the uid in the image (node's for 1000 or unset). */
function homeOf(ref: ContainerRef): string | undefined {
  const home = flagOrEnv(ref.container, { env: ENV.home }, ROOTPILOT_READING);
  if (home?.from === "env") return home.value;
  if (home?.from === "envFrom") return undefined;
  const uid = ref.container.securityContext?.runAsUser ?? ref.spec.securityContext?.runAsUser;
  return uid === undefined || uid === NODE_UID ? HOME_DIR : undefined;
}

const AWS_DIR = /(^|\/)\.aws\/?$/;

export const rootpilotRunnerRules: Rule[] = [
  {
    id: "RP-01",
    summary: `The image runs as node (uid ${NODE_UID}, HOME ${HOME_DIR}); an ~/.aws mount sits at the $HOME of the user the pod runs as`,
    fix: `run as uid ${NODE_UID} (runAsUser: ${NODE_UID}) or mount ~/.aws at $HOME/.aws of the user the pod runs as; give $HOME a writable emptyDir`,
    why: "Seed 002: \"The image runs as node (uid 1000), not root — which is why Compose mounts ~/.aws at /home/node/.aws. The mount target is coupled to the image's USER: the SDK's default chain resolves the SSO cache from $HOME, and no env var repoints that cache. If you mount ~/.aws elsewhere, mount it at the $HOME of the user the pod runs as.\" A mount anywhere else is never read.",
    source: { from: "seed", says: 'seed 002, The container: "If you mount ~/.aws elsewhere, mount it at the $HOME of the user the pod runs as."' },
    opinions: {
      deployment: {
        summary: "the runner is a Deployment",
        because:
          "the replicas are cattle and hold no durable state (seed 002); a Deployment rolls them without the identities and ordering of a StatefulSet or one pod per node of a DaemonSet",
      },
      uid: {
        summary: `the pod runs as uid ${NODE_UID}`,
        because: `the image is built for node (uid ${NODE_UID}); another uid works when $HOME and its mounts follow it, which rigging cannot see`,
      },
      "uid-unset": {
        summary: "runAsUser is set",
        because: `when the image names its USER (node) rather than a number, kubelet cannot verify runAsNonRoot and refuses the pod; runAsUser: ${NODE_UID} removes the doubt`,
      },
      "home-writable": {
        summary: "$HOME is a writable emptyDir",
        because: "with a read-only root filesystem (G-06) the SDK's caches under $HOME cannot be written",
      },
    },
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of set.pods()) {
        if (pod.object.kind !== "Deployment")
          hits.push(hit(pod.object, ["kind"], `the runner is a ${pod.object.kind}, not a Deployment of stateless replicas`, "deployment"));
      }
      for (const ref of runnerContainers(set)) {
        const { object, spec, container, containerPath, path } = ref;
        const uid = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
        if (uid === undefined)
          hits.push(hit(object, [...path, "securityContext"], "runAsUser is unset: the image's named USER cannot be verified non-root", "uid-unset"));
        else if (uid !== NODE_UID && uid !== 0)
          hits.push(hit(object, [...path, "securityContext", "runAsUser"], `runs as uid ${uid}, not node (${NODE_UID})`, "uid"));
        const home = homeOf(ref);
        list<{ mountPath?: string }>(container.volumeMounts).forEach((mount, index) => {
          if (typeof mount?.mountPath !== "string" || !AWS_DIR.test(mount.mountPath) || home === undefined) return;
          if (posix.normalize(mount.mountPath).replace(/\/$/, "") !== posix.join(home, ".aws")) {
            hits.push(
              hit(
                object,
                [...containerPath, "volumeMounts", index, "mountPath"],
                `~/.aws is mounted at ${mount.mountPath}, but $HOME is ${home}: the SDK reads ${posix.join(home, ".aws")} and never this mount`,
              ),
            );
          }
        });
        if (home !== undefined && !volumeAt(ref, container, home)?.volume?.emptyDir) {
          hits.push(
            hit(
              object,
              [...containerPath, "volumeMounts"],
              `no emptyDir is mounted at $HOME (${home}), so it is on the read-only root filesystem`,
              "home-writable",
            ),
          );
        }
      }
      return hits;
    },
  },
  {
    id: "RP-02",
    summary: "No network probes: the runner listens on nothing (no port, no Service)",
    fix: "remove httpGet/tcpSocket/grpc probes and hooks, container ports and Services; readiness is the `boot: ready` log line and the control plane's Fleet view",
    why: 'Seed 002: "The runner is an outbound client. It listens on no port, exposes no /healthz, and has no readiness endpoint. The direct consequence: do not configure httpGet liveness or readiness probes: every one of them will fail."',
    source: { from: "seed", says: 'seed 002, Requirement 1: "do not configure httpGet liveness or readiness probes: every one of them will fail"' },
    opinions: {
      port: { summary: "no container port", because: "a port advertises a listener the runner does not have" },
      service: { summary: "no Service", because: "a Service in front of the runner serves nothing" },
      "pre-stop": {
        summary: "no network preStop hook",
        because: "a network preStop hook fails on a runner that listens on nothing; Kubernetes goes on with the stop, so it only costs grace time",
      },
    },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.ofKind("Service").map((s) => hit(s, ["kind"], "a Service for the runner, which serves nothing", "service"));
      for (const { object, container, containerPath } of set.containers()) {
        if (list(container.ports).length > 0)
          hits.push(hit(object, [...containerPath, "ports"], "the container declares ports; the runner listens on none", "port"));
        for (const probe of PROBES) {
          const handler = NETWORK_HANDLERS.find((h) => (container[probe] as Probe | undefined)?.[h] !== undefined);
          if (handler)
            hits.push(hit(object, [...containerPath, probe, handler], `${probe} uses ${handler}; the runner listens on nothing, so it always fails`));
        }
        const postStart = (["httpGet", "tcpSocket"] as const).find((h) => container.lifecycle?.postStart?.[h] !== undefined);
        if (postStart)
          hits.push(
            hit(
              object,
              [...containerPath, "lifecycle", "postStart", postStart],
              `lifecycle.postStart uses ${postStart}; it fails, and Kubernetes kills a container whose postStart hook fails`,
            ),
          );
        const preStop = (["httpGet", "tcpSocket"] as const).find((h) => container.lifecycle?.preStop?.[h] !== undefined);
        if (preStop)
          hits.push(
            hit(object, [...containerPath, "lifecycle", "preStop", preStop], `lifecycle.preStop uses ${preStop}; the runner listens on nothing`, "pre-stop"),
          );
      }
      return hits;
    },
  },
  {
    id: "RP-03",
    summary: `terminationGracePeriodSeconds exceeds RUNNER_DRAIN_TIMEOUT_MS (default ${DEFAULT_DRAIN_TIMEOUT_MS}) with headroom`,
    fix: `set terminationGracePeriodSeconds above the drain timeout in seconds, such as ${gracePeriodFor(DEFAULT_DRAIN_TIMEOUT_MS)} for the default ${DEFAULT_DRAIN_TIMEOUT_MS} ms`,
    why: 'Seed 002: "The ceiling is RUNNER_DRAIN_TIMEOUT_MS, which defaults to 120,000 ms. Kubernetes defaults terminationGracePeriodSeconds to 30 s. Leave it there and SIGKILL arrives mid-drain."',
    source: { from: "seed", says: 'seed 002, Requirement 2: "terminationGracePeriodSeconds: 150   # > RUNNER_DRAIN_TIMEOUT_MS (120s), with headroom"' },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const { object, spec, path } = ref;
        const drain = flagOrEnv(ref.container, { env: ENV.drainTimeout }, ROOTPILOT_READING);
        if (drain?.from === "env" && drain.value === undefined) continue; // from a Secret or ConfigMap: not visible
        if (drain?.from === "envFrom") continue;
        if (drain?.value !== undefined && !WHOLE_NUMBER.test(drain.value)) {
          hits.push(hit(object, at(ref, drain), `${ENV.drainTimeout} is ${JSON.stringify(drain.value)}, not a whole number of milliseconds`));
          continue;
        }
        const drainMs = drain?.value !== undefined ? Number(drain.value) : DEFAULT_DRAIN_TIMEOUT_MS;
        const grace = spec.terminationGracePeriodSeconds ?? KUBERNETES_DEFAULT_GRACE;
        const shown = spec.terminationGracePeriodSeconds === undefined ? `unset (Kubernetes' default ${KUBERNETES_DEFAULT_GRACE})` : String(grace);
        if (grace <= drainMs / 1000) {
          hits.push(
            hit(
              object,
              [...path, "terminationGracePeriodSeconds"],
              `terminationGracePeriodSeconds is ${shown}, not above the ${drainMs / 1000} s drain; SIGKILL arrives mid-drain (use ${gracePeriodFor(drainMs)})`,
            ),
          );
        }
      }
      return hits;
    },
  },
  {
    id: "RP-04",
    summary: "RUNNER_LEARNED_FLUSH_INTERVAL_MS, when set, is a whole number of milliseconds (it bounds, not removes, what a hard kill loses)",
    fix: "set RUNNER_LEARNED_FLUSH_INTERVAL_MS to a whole number of milliseconds, such as 60000 (the default)",
    why: 'Seed 002: "A hard reclaim with no drain (SIGKILL, OOM, spot) loses learned state since the last flush. RUNNER_LEARNED_FLUSH_INTERVAL_MS (default 60 s) exists to bound that loss, but it doesn\'t eliminate it."',
    source: { from: "seed", says: 'seed 002, Requirement 2: "RUNNER_LEARNED_FLUSH_INTERVAL_MS (default 60 s) exists to bound that loss"' },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const flush = flagOrEnv(ref.container, { env: ENV.flushInterval }, ROOTPILOT_READING);
        if (flush?.value !== undefined && (!WHOLE_NUMBER.test(flush.value) || Number(flush.value) === 0)) {
          hits.push(hit(ref.object, at(ref, flush), `${ENV.flushInterval} is ${JSON.stringify(flush.value)}, not a positive whole number of milliseconds`));
        }
      }
      return hits;
    },
  },
  {
    id: "RP-05",
    summary: "No PersistentVolumeClaim, ever; a learned store on disk lives on a writable volume, a cache (an emptyDir)",
    fix: "remove PersistentVolumeClaims and claim-backed volumes; leave RUNNER_LEARNED_STORE_PATH unset (:memory:) or put its directory on an emptyDir",
    why: 'Seed 002: "The runner is cattle and holds no durable state. The learned-store SQLite cache is :memory: by default. Do not create a PVC. If you point RUNNER_LEARNED_STORE_PATH at a path on disk, know that you\'re creating a cache, not a source of truth."',
    source: { from: "seed", says: 'seed 002, Requirement 3: "Do not create a PVC."' },
    opinions: {
      "not-empty-dir": {
        summary: "the learned store is on an emptyDir",
        because: "the store is a cache that dies with the pod (seed 002); a hostPath or other volume outlives it and is read back as if it were the truth",
      },
    },
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = set.ofKind("PersistentVolumeClaim").map((o) => hit(o, ["kind"], "a PersistentVolumeClaim in the runner set"));
      for (const sts of set.ofKind("StatefulSet")) {
        if (list(dig(sts, ["spec", "volumeClaimTemplates"])).length > 0)
          hits.push(hit(sts, ["spec", "volumeClaimTemplates"], "volumeClaimTemplates create PersistentVolumeClaims"));
      }
      for (const { object, spec, path } of set.pods()) {
        list<{ name?: string; persistentVolumeClaim?: unknown; ephemeral?: unknown }>(spec.volumes).forEach((volume, index) => {
          if (volume?.persistentVolumeClaim)
            hits.push(hit(object, [...path, "volumes", index, "persistentVolumeClaim"], `volume ${volume.name} is a PersistentVolumeClaim`));
          if (volume?.ephemeral)
            hits.push(
              hit(
                object,
                [...path, "volumes", index, "ephemeral"],
                `volume ${volume.name} is a generic ephemeral volume, which creates a PersistentVolumeClaim`,
              ),
            );
        });
      }
      for (const ref of runnerContainers(set)) {
        const store = flagOrEnv(ref.container, { env: ENV.learnedStorePath }, ROOTPILOT_READING);
        if (!store?.value || store.value === ":memory:" || !store.value.startsWith("/")) continue;
        const mounted = mountHolding(ref, ref.container, store.value);
        if (!mounted) {
          const readOnly = ref.container.securityContext?.readOnlyRootFilesystem === true;
          if (readOnly)
            hits.push(
              hit(ref.object, at(ref, store), `${ENV.learnedStorePath} ${store.value} is on the read-only root filesystem: the runner cannot write it`),
            );
          else
            hits.push(
              hit(ref.object, at(ref, store), `${ENV.learnedStorePath} ${store.value} is on the container's root filesystem, not an emptyDir`, "not-empty-dir"),
            );
        } else if (!mounted.volume?.emptyDir && !mounted.volume?.persistentVolumeClaim && !mounted.volume?.ephemeral) {
          hits.push(
            hit(
              ref.object,
              at(ref, store),
              `${ENV.learnedStorePath} ${store.value} is on volume ${mounted.mount.name}, which is not an emptyDir`,
              "not-empty-dir",
            ),
          );
        }
      }
      return hits;
    },
  },
  {
    id: "RP-06",
    summary: `Attestation per provider: gke-oidc with a projected token for ${ENROLL_AUDIENCE} at ${GKE_TOKEN_PATH}, or aws-sts with AWS_REGION; never eks-oidc`,
    fix: `for GKE mount a projected serviceAccountToken (audience ${ENROLL_AUDIENCE}, expirationSeconds >= ${TOKEN_MIN_SECONDS}) at the token path; for EKS set RUNNER_ATTESTATION_MODE=aws-sts, AWS_REGION and the ${IRSA_ROLE_ANNOTATION} annotation`,
    why: "Seed 002: \"The audience isn't decoration: it's what stops a KSA token projected for some other service from being replayed into an enrollment. The control-plane asserts it and refuses anything that doesn't match — including tokens projected with no audience at all.\" aws-sts \"requires AWS_REGION explicitly. Without it, boot fails with RUNNER_ATTESTATION_MODE=aws-sts requires AWS_REGION.\" The region allowlist is the control plane's, so it is checked from values (attestation.regionAllowlist).",
    source: {
      from: "seed",
      says: 'seed 002, Requirement 4: "projected for the rootpilot-enroll audience"; "EKS: aws-sts, not eks-oidc"; "It requires AWS_REGION explicitly."',
    },
    opinions: {
      "read-only": {
        summary: "the token mount is readOnly",
        because: "the seed's example mounts it readOnly: true; Kubernetes mounts projected volumes read-only anyway, so this only says it",
      },
      irsa: {
        summary: `the ServiceAccount carries ${IRSA_ROLE_ANNOTATION}`,
        because:
          "aws-sts signs with the SDK's default chain, which seed 002 names IRSA on EKS; an EKS Pod Identity association would do instead, but manifests cannot show one",
      },
    },
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const mode = flagOrEnv(ref.container, { env: ENV.attestationMode }, ROOTPILOT_READING);
        if (mode?.from === "envFrom" || (mode?.from === "env" && mode.value === undefined)) continue; // not visible in the manifest
        if (mode?.value === ATTESTATION_MODES.gke) hits.push(...gkeHits(ref));
        else if (mode?.value === ATTESTATION_MODES.eks) hits.push(...eksHits(set, ref));
        else if (mode?.value === "eks-oidc")
          hits.push(hit(ref.object, at(ref, mode), "RUNNER_ATTESTATION_MODE is eks-oidc; on EKS the runner attests with aws-sts through IRSA"));
        else if (mode === undefined) hits.push(hit(ref.object, at(ref, mode), `${ENV.attestationMode} is not set (gke-oidc on GKE, aws-sts on EKS)`));
        else hits.push(hit(ref.object, at(ref, mode), `${ENV.attestationMode} is ${JSON.stringify(mode.value)}, not gke-oidc or aws-sts`));
      }
      return hits;
    },
  },
  {
    id: "RP-07",
    summary: "Secrets through workload identity: no static AWS keys; RUNNER_SECRET_STORE_MODE aws (with RUNNER_AWS_CRED_MODE=chain) or vault",
    fix: "remove static AWS keys; use IRSA with RUNNER_AWS_CRED_MODE=chain, or Vault KV v2 through workload identity",
    why: 'Seed 002: "Prefer the secret manager you already operate over Kubernetes Secrets: RUNNER_SECRET_STORE_MODE=aws (AWS Secrets Manager) or vault (HashiCorp Vault KV v2). Both resolve through workload identity, with no static keys."',
    source: { from: "seed", says: 'seed 002, Requirement 5: "Both resolve through workload identity, with no static keys."' },
    opinions: {
      "aws-mount": {
        summary: "no mounted ~/.aws",
        because: "seed 002 allows mounting ~/.aws (at $HOME), but on EKS the SDK chain resolves through IRSA and needs no credential on disk",
      },
      "credentials-file": { summary: "no AWS_SHARED_CREDENTIALS_FILE", because: "a shared credentials file usually holds static keys; IRSA needs none" },
      "store-mode": {
        summary: "RUNNER_SECRET_STORE_MODE is aws or vault",
        because: "seed 002 names aws and vault and prefers them over Kubernetes Secrets; other modes are not described",
      },
      "cred-mode": {
        summary: "RUNNER_AWS_CRED_MODE=chain with the aws store",
        because: 'seed 002: chain "makes the SDK resolve through IRSA directly, with no key passing through the cluster at all"; the default is not documented',
      },
    },
    unjudged: "the Vault address, KV mount and role: seed 002 names Vault KV v2 but no variable that configures it, so a missing one is not judged",
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const { object, container, containerPath } of set.containers()) {
        list<{ name?: string }>(container.env).forEach((env, index) => {
          if (env?.name === "AWS_SHARED_CREDENTIALS_FILE")
            hits.push(
              hit(object, [...containerPath, "env", index, "name"], "AWS_SHARED_CREDENTIALS_FILE points the SDK at a credentials file", "credentials-file"),
            );
          else if ((STATIC_AWS_ENV as readonly (string | undefined)[]).includes(env?.name))
            hits.push(hit(object, [...containerPath, "env", index, "name"], `${env.name} is a static AWS credential`));
        });
        list<{ mountPath?: string }>(container.volumeMounts).forEach((mount, index) => {
          if (typeof mount?.mountPath === "string" && AWS_DIR.test(mount.mountPath))
            hits.push(hit(object, [...containerPath, "volumeMounts", index, "mountPath"], `${mount.mountPath} mounts AWS shared credentials`, "aws-mount"));
        });
      }
      for (const ref of runnerContainers(set)) {
        const mode = flagOrEnv(ref.container, { env: ENV.secretStoreMode }, ROOTPILOT_READING);
        if (mode?.value === undefined) continue;
        if (!(SECRET_STORE_MODES as readonly string[]).includes(mode.value)) {
          hits.push(hit(ref.object, at(ref, mode), `${ENV.secretStoreMode} is ${JSON.stringify(mode.value)}, not aws or vault`, "store-mode"));
        } else if (mode.value === "aws") {
          const cred = flagOrEnv(ref.container, { env: ENV.awsCredMode }, ROOTPILOT_READING);
          if (cred?.value !== "chain" && cred?.from !== "envFrom" && !(cred?.from === "env" && cred.value === undefined)) {
            hits.push(
              hit(
                ref.object,
                at(ref, cred),
                `${ENV.awsCredMode} is ${cred?.value === undefined ? "unset" : JSON.stringify(cred.value)}, not chain`,
                "cred-mode",
              ),
            );
          }
        }
      }
      return hits;
    },
  },
  {
    id: "RP-08",
    summary: "Outbound only: no ingress to the runner; a NetworkPolicy, if used, leaves egress to DNS and the named destinations",
    fix: "select the runner pods with a NetworkPolicy listing Ingress and Egress, with no ingress rules and egress rules to DNS (port 53) and to each destination",
    why: 'Seed 002: "Outbound only, nothing inbound. If you use NetworkPolicy, the destination list is in Requirements. Remember that the allowlist declared in connector manifests is documentation, not enforcement: for native connectors, the cluster is what enforces egress."',
    source: {
      from: "seed",
      says: 'seed 002, Requirement 6: "Outbound only, nothing inbound. If you use NetworkPolicy, the destination list is in Requirements."',
    },
    opinions: {
      "no-policy": {
        summary: "a NetworkPolicy selects the runner",
        because:
          'the cluster is what enforces egress (seed 002); without a policy the runner reaches every destination. Seed 002 makes NetworkPolicy optional ("If you use NetworkPolicy")',
      },
      "not-isolated": { summary: "the policy isolates both directions", because: "a policy that leaves a direction out of policyTypes leaves it open" },
      "any-destination": {
        summary: "each egress rule names its destinations",
        because: "an egress rule without `to`, or to 0.0.0.0/0, allows every destination, so the policy no longer enforces the destination list",
      },
    },
    severity: "error",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const pod of set.pods()) {
        const policies = policiesSelecting(set, pod);
        if (policies.length === 0) {
          hits.push(hit(pod.object, ["metadata", "name"], "no NetworkPolicy selects the runner pods", "no-policy"));
          continue;
        }
        for (const gap of isolationGaps(policies)) {
          const opinion =
            gap.kind === "ingress-not-isolated" || gap.kind === "egress-not-isolated"
              ? "not-isolated"
              : gap.kind.startsWith("egress-")
                ? "any-destination"
                : undefined;
          const message =
            gap.kind === "ingress-allowed"
              ? `${gap.message}; the runner accepts no connections`
              : gap.kind === "dns-only"
                ? `${gap.message}: the runner cannot reach the control plane`
                : gap.message;
          hits.push(hit(gap.object, gap.path, message, opinion));
        }
      }
      return dedupe(hits);
    },
  },
  {
    id: "RP-09",
    summary: "Resources are an explicit, documented choice: requests and limits in values, with a stated default",
    fix: "set resources.requests.{cpu,memory} and resources.limits.memory in values, or keep the documented default",
    why: 'Seed 002 names resources as a decision a chart had not made: "resources values (there is no versioned benchmark)".',
    source: { from: "seed", says: 'seed 002, What\'s still missing: "resources values (there is no versioned benchmark)"' },
    judgedFrom: "values (resources and its stated default); in manifests, G-08 checks that requests and a memory limit are set",
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    check: () => [],
  },
  {
    id: "RP-10",
    summary: "OTEL_EXPORTER_OTLP_ENDPOINT, when set, is an absolute http:// or https:// URL",
    fix: "set OTEL_EXPORTER_OTLP_ENDPOINT to a collector URL such as http://otel-collector.observability:4318",
    why: "The image starts with `--import @rootpilotsh/otel/register` (seed 002); the OpenTelemetry SDK reads OTEL_EXPORTER_OTLP_ENDPOINT as a URL, and a value without a scheme exports nothing.",
    source: { from: "upstream", says: "the OpenTelemetry SDK's environment specification: OTEL_EXPORTER_OTLP_ENDPOINT is a URL with a scheme" },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    check(set) {
      const hits: RuleHit[] = [];
      for (const ref of runnerContainers(set)) {
        const endpoint = flagOrEnv(ref.container, { env: ENV.otelEndpoint }, ROOTPILOT_READING);
        if (endpoint?.value !== undefined && !isEndpoint(endpoint.value))
          hits.push(hit(ref.object, at(ref, endpoint), `${ENV.otelEndpoint} ${JSON.stringify(endpoint.value)} is not an absolute http(s) URL`));
      }
      return hits;
    },
  },
];

function gkeHits(ref: ContainerRef): RuleHit[] {
  const { object, path, container, containerPath } = ref;
  const custom = flagOrEnv(container, { env: ENV.gkeTokenPath }, ROOTPILOT_READING);
  const file = custom?.value || GKE_TOKEN_PATH;
  const found = projectedToken(ref, container, file);
  if (!found) {
    return [
      hit(
        object,
        [...containerPath, "volumeMounts"],
        `no projected serviceAccountToken is mounted for ${file}; the runner fails with "RUNNER_ATTESTATION_MODE=gke-oidc: failed to read projected KSA token at ${file} (is the Workload Identity token volume mounted?)"`,
      ),
    ];
  }
  const tokenPath = [...path, ...found.at];
  const hits: RuleHit[] = [];
  if (found.token.audience !== ENROLL_AUDIENCE) {
    hits.push(
      hit(
        object,
        [...tokenPath, "audience"],
        `audience is ${found.token.audience === undefined ? "unset" : JSON.stringify(found.token.audience)}, not ${ENROLL_AUDIENCE}; the enroll is refused as attestation_invalid`,
      ),
    );
  }
  const seconds = found.token.expirationSeconds;
  if (seconds !== undefined && !(typeof seconds === "number" && seconds >= TOKEN_MIN_SECONDS)) {
    hits.push(hit(object, [...tokenPath, "expirationSeconds"], `expirationSeconds ${seconds} is below ${TOKEN_MIN_SECONDS}, which Kubernetes refuses`));
  }
  if (found.mount.readOnly !== true)
    hits.push(hit(object, [...containerPath, "volumeMounts", found.mountIndex], `the token mount at ${found.mount.mountPath} is not readOnly`, "read-only"));
  return hits;
}

function eksHits(set: ObjectSet, ref: ContainerRef): RuleHit[] {
  const { object, spec } = ref;
  const hits: RuleHit[] = [];
  const region = flagOrEnv(ref.container, { env: ENV.awsRegion }, ROOTPILOT_READING);
  const hidden = region?.from === "envFrom" || (region?.from === "env" && region.value === undefined);
  if (!hidden && !region?.value) hits.push(hit(object, at(ref, region), `AWS_REGION is not set; the runner fails at boot with "${MISSING_REGION_ERROR}"`));
  const account = spec.serviceAccountName ?? "default";
  const sa = set.ofKind("ServiceAccount").find((s) => s.metadata.name === account && s.metadata.namespace === object.metadata.namespace);
  if (sa) {
    const arn = sa.metadata.annotations?.[IRSA_ROLE_ANNOTATION];
    if (arn === undefined)
      hits.push(
        hit(sa, ["metadata", "annotations"], `the ServiceAccount has no ${IRSA_ROLE_ANNOTATION} annotation, so IRSA gives the runner no identity`, "irsa"),
      );
    else if (!ROLE_ARN.test(arn))
      hits.push(
        hit(sa, ["metadata", "annotations", IRSA_ROLE_ANNOTATION], `${JSON.stringify(arn)} is not an IAM role ARN (arn:aws:iam::<12 digits>:role/<name>)`),
      );
  }
  return hits;
}

/** One hit per object, field and message: two runner pods selected by one policy report its gaps once. */
function dedupe(hits: RuleHit[]): RuleHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => {
    const key = JSON.stringify([h.object.kind, h.object.metadata.namespace, h.object.metadata.name, h.path.map(String), h.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isEndpoint(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
  } catch {
    return false;
  }
}
