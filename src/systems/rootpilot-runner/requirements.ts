// The Rootpilot runner's requirements (RP-), as data: rules, values refusals, `explain` and the docs read them.
import { defineRequirements } from "../../rules/requirement-data.ts";
import type { GeneralRefusedBy } from "../../rules/general-requirements.ts";
import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  ENROLL_AUDIENCE,
  GKE_TOKEN_PATH,
  HOME_DIR,
  IRSA_ROLE_ANNOTATION,
  NODE_UID,
  TOKEN_MIN_SECONDS,
  gracePeriodFor,
} from "./interface.ts";

const RUNNER = ["rootpilot-runner"];

export const RP = defineRequirements({
  "RP-01": {
    summary: `The image runs as node (uid ${NODE_UID}, HOME ${HOME_DIR}); an ~/.aws mount sits at the $HOME of the user the pod runs as`,
    fix: `run as uid ${NODE_UID} (runAsUser: ${NODE_UID}) or mount ~/.aws at $HOME/.aws of the user the pod runs as; give $HOME a writable emptyDir`,
    why: "The Rootpilot Kubernetes guide: \"The image runs as node (uid 1000), not root — which is why Compose mounts ~/.aws at /home/node/.aws. The mount target is coupled to the image's USER: the SDK's default chain resolves the SSO cache from $HOME, and no env var repoints that cache. If you mount ~/.aws elsewhere, mount it at the $HOME of the user the pod runs as.\" A mount anywhere else is never read.",
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, The container: "If you mount ~/.aws elsewhere, mount it at the $HOME of the user the pod runs as."',
    },
    opinions: {
      deployment: {
        summary: "the runner is a Deployment",
        because:
          "the replicas are cattle and hold no durable state (the Rootpilot Kubernetes guide); a Deployment rolls them without the identities and ordering of a StatefulSet or one pod per node of a DaemonSet",
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
    reads:
      "HOME cleaned as a path (a relative or empty HOME, which Node's os.homedir returns as set, is not judged), mount paths cleaned as the kubelet cleans them",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["replicas"], value: 0 }], path: "replicas" },
  },
  "RP-02": {
    summary: "No network probes: the runner listens on nothing (no port, no Service)",
    fix: "remove httpGet/tcpSocket/grpc probes and hooks, container ports and Services; readiness is the `boot: ready` log line and the control plane's Fleet view",
    why: 'The Rootpilot Kubernetes guide: "The runner is an outbound client. It listens on no port, exposes no /healthz, and has no readiness endpoint. The direct consequence: do not configure httpGet liveness or readiness probes: every one of them will fail."',
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, Requirement 1: "do not configure httpGet liveness or readiness probes: every one of them will fail"',
    },
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
    refusedBy: { edits: [{ at: ["containerPort"], value: 8080 }], path: "containerPort" },
  },
  "RP-03": {
    summary: `terminationGracePeriodSeconds exceeds RUNNER_DRAIN_TIMEOUT_MS (default ${DEFAULT_DRAIN_TIMEOUT_MS}) with headroom`,
    fix: `set terminationGracePeriodSeconds above the drain timeout in seconds with headroom, such as ${gracePeriodFor(DEFAULT_DRAIN_TIMEOUT_MS)} for the default ${DEFAULT_DRAIN_TIMEOUT_MS} ms; in values, leave it out and rigging derives it from drainTimeoutMs`,
    why: 'The Rootpilot Kubernetes guide: "The ceiling is RUNNER_DRAIN_TIMEOUT_MS, which defaults to 120,000 ms. Kubernetes defaults terminationGracePeriodSeconds to 30 s. Leave it there and SIGKILL arrives mid-drain."',
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, Requirement 2: "terminationGracePeriodSeconds: 150   # > RUNNER_DRAIN_TIMEOUT_MS (120s), with headroom"',
    },
    reads: "RUNNER_DRAIN_TIMEOUT_MS as the runner's env holds it (a `$(VAR)` of a Secret's value is not judged)",
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["drainTimeoutMs"], value: 1.5 }], path: "drainTimeoutMs" },
  },
  "RP-04": {
    summary: "RUNNER_LEARNED_FLUSH_INTERVAL_MS, when set, is a whole number of milliseconds (it bounds, not removes, what a hard kill loses)",
    fix: "set RUNNER_LEARNED_FLUSH_INTERVAL_MS to a whole number of milliseconds, such as 60000 (the default)",
    why: 'The Rootpilot Kubernetes guide: "A hard reclaim with no drain (SIGKILL, OOM, spot) loses learned state since the last flush. RUNNER_LEARNED_FLUSH_INTERVAL_MS (default 60 s) exists to bound that loss, but it doesn\'t eliminate it."',
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, Requirement 2: "RUNNER_LEARNED_FLUSH_INTERVAL_MS (default 60 s) exists to bound that loss"',
    },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["learnedFlushIntervalMs"], value: 0 }], path: "learnedFlushIntervalMs" },
  },
  "RP-05": {
    summary: "No PersistentVolumeClaim, ever; a learned store on disk lives on a writable volume, a cache (an emptyDir)",
    fix: "remove PersistentVolumeClaims and claim-backed volumes; leave RUNNER_LEARNED_STORE_PATH unset (:memory:) or put its directory on an emptyDir",
    why: 'The Rootpilot Kubernetes guide: "The runner is cattle and holds no durable state. The learned-store SQLite cache is :memory: by default. Do not create a PVC. If you point RUNNER_LEARNED_STORE_PATH at a path on disk, know that you\'re creating a cache, not a source of truth."',
    source: { from: "documented", says: 'the Rootpilot Kubernetes guide, Requirement 3: "Do not create a PVC."' },
    opinions: {
      "not-empty-dir": {
        summary: "the learned store is on an emptyDir",
        because:
          "the store is a cache that dies with the pod (the Rootpilot Kubernetes guide); a hostPath or other volume outlives it and is read back as if it were the truth",
      },
    },
    reads:
      "RUNNER_LEARNED_STORE_PATH as Node opens it (`//` and `./` as the kernel reads them, a relative path from the container's workingDir, a trailing `/` as a directory), mount paths cleaned as the kubelet cleans them",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["learnedStorePath"], value: "learned.db" }], path: "learnedStorePath" },
  },
  "RP-06": {
    summary: `Attestation per provider: gke-oidc with a projected token for ${ENROLL_AUDIENCE} at ${GKE_TOKEN_PATH}, or aws-sts with AWS_REGION; never eks-oidc`,
    fix: `for GKE mount a projected serviceAccountToken (audience ${ENROLL_AUDIENCE}, expirationSeconds >= ${TOKEN_MIN_SECONDS}) at the token path; for EKS set RUNNER_ATTESTATION_MODE=aws-sts, AWS_REGION and the ${IRSA_ROLE_ANNOTATION} annotation`,
    why: "The Rootpilot Kubernetes guide: \"The audience isn't decoration: it's what stops a KSA token projected for some other service from being replayed into an enrollment. The control-plane asserts it and refuses anything that doesn't match — including tokens projected with no audience at all.\" aws-sts \"requires AWS_REGION explicitly. Without it, boot fails with RUNNER_ATTESTATION_MODE=aws-sts requires AWS_REGION.\" The region allowlist is the control plane's, so it is checked from values (attestation.regionAllowlist).",
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, requirement 4: "projected for the rootpilot-enroll audience"; "EKS: aws-sts, not eks-oidc"; "It requires AWS_REGION explicitly."',
    },
    opinions: {
      irsa: {
        summary: `the ServiceAccount carries ${IRSA_ROLE_ANNOTATION}`,
        because:
          "aws-sts signs with the SDK's default chain, which the Rootpilot Kubernetes guide names IRSA on EKS; an EKS Pod Identity association would do instead, but manifests cannot show one",
      },
      "service-account": {
        summary: "the runner's ServiceAccount in the input is in the pods' namespace",
        because:
          "IRSA gives the role annotated on the pods' own ServiceAccount (their name and namespace); one of that name in another namespace is never read, and when the input's namespaces disagree it cannot be told which it is",
      },
    },
    judged: {
      by: "manifests",
      except:
        "a token path or region from a Secret or a ConfigMap outside the input, a relative RUNNER_GKE_TOKEN_PATH without the container's workingDir (the image's WORKDIR is not in the manifest), and a ServiceAccount outside the input",
    },
    reads:
      "RUNNER_GKE_TOKEN_PATH as Node opens it (`//` and `./` as the kernel reads them, a trailing `/` as a directory), mount paths and projected token paths cleaned as the kubelet cleans them; the ServiceAccount by name and namespace",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["attestation", "expirationSeconds"], value: 599 }], path: "attestation.expirationSeconds" },
  },
  "RP-07": {
    summary: "Secrets through workload identity: no static AWS keys; RUNNER_SECRET_STORE_MODE aws (with RUNNER_AWS_CRED_MODE=chain) or vault",
    fix: "remove static AWS keys; use IRSA with RUNNER_AWS_CRED_MODE=chain, or Vault KV v2 through workload identity",
    why: 'The Rootpilot Kubernetes guide: "Prefer the secret manager you already operate over Kubernetes Secrets: RUNNER_SECRET_STORE_MODE=aws (AWS Secrets Manager) or vault (HashiCorp Vault KV v2). Both resolve through workload identity, with no static keys."',
    source: { from: "documented", says: 'the Rootpilot Kubernetes guide, Requirement 5: "Both resolve through workload identity, with no static keys."' },
    opinions: {
      "aws-mount": {
        summary: "no mounted ~/.aws",
        because:
          "the Rootpilot Kubernetes guide allows mounting ~/.aws (at $HOME), but on EKS the SDK chain resolves through IRSA and needs no credential on disk",
      },
      "credentials-file": { summary: "no AWS_SHARED_CREDENTIALS_FILE", because: "a shared credentials file usually holds static keys; IRSA needs none" },
      "store-mode": {
        summary: "RUNNER_SECRET_STORE_MODE is aws or vault",
        because: "the Rootpilot Kubernetes guide names aws and vault and prefers them over Kubernetes Secrets; other modes are not described",
      },
      "cred-mode": {
        summary: "RUNNER_AWS_CRED_MODE=chain with the aws store",
        because:
          'the Rootpilot Kubernetes guide: chain "makes the SDK resolve through IRSA directly, with no key passing through the cluster at all"; the default is not documented',
      },
    },
    judged: {
      by: "manifests",
      except:
        "the Vault address, KV mount and role: the Rootpilot Kubernetes guide names Vault KV v2 but no variable that configures it, so a missing one is not judged",
    },
    reads: "mount paths cleaned as the kubelet cleans them (`/home/node/.aws/` is an ~/.aws mount)",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["AWS_ACCESS_KEY_ID"], value: "AKIAIOSFODNN7EXAMPLE" }], path: "AWS_ACCESS_KEY_ID" },
  },
  "RP-08": {
    summary: "Outbound only: no ingress to the runner; a NetworkPolicy, if used, leaves egress to DNS and the named destinations",
    fix: "select the runner pods with a NetworkPolicy listing Ingress and Egress, with no ingress rules and egress rules to DNS (port 53) and to each destination",
    why: 'The Rootpilot Kubernetes guide: "Outbound only, nothing inbound. If you use NetworkPolicy, the destination list is in Requirements. Remember that the allowlist declared in connector manifests is documentation, not enforcement: for native connectors, the cluster is what enforces egress."',
    source: {
      from: "documented",
      says: 'the Rootpilot Kubernetes guide, Requirement 6: "Outbound only, nothing inbound. If you use NetworkPolicy, the destination list is in Requirements."',
    },
    opinions: {
      "no-policy": {
        summary: "a NetworkPolicy selects the runner",
        because:
          'the cluster is what enforces egress (the Rootpilot Kubernetes guide); without a policy the runner reaches every destination. The Rootpilot Kubernetes guide makes NetworkPolicy optional ("If you use NetworkPolicy")',
      },
      "not-isolated": { summary: "the policy isolates both directions", because: "a policy that leaves a direction out of policyTypes leaves it open" },
      "any-destination": {
        summary: "each egress rule names its destinations",
        because: "an egress rule without `to`, or to 0.0.0.0/0, allows every destination, so the policy no longer enforces the destination list",
      },
    },
    reads:
      "ipBlocks as address ranges (`0::/0`, `10.0.0.0/0` or two `/1` halves on the same ports are everywhere), pod and namespace selectors as sets (matchLabels or matchExpressions)",
    severity: "error",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["egressAllow"], value: [{ cidr: "vault.example.com" }] }], path: "egressAllow[0].cidr" },
  },
  "RP-09": {
    summary: "Resources are an explicit, documented choice: requests and limits in values, with a stated default",
    fix: "set resources.requests.{cpu,memory} and resources.limits.memory in values, or keep the documented default",
    why: 'The Rootpilot Kubernetes guide names resources as a decision a chart had not made: "resources values (there is no versioned benchmark)".',
    source: { from: "documented", says: 'the Rootpilot Kubernetes guide, What\'s still missing: "resources values (there is no versioned benchmark)"' },
    judged: { by: "not-manifests", from: "values (resources and its stated default); in manifests, G-08 checks that requests and a memory limit are set" },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["resources", "requests", "cpu"], value: "lots" }], path: "resources.requests.cpu" },
  },
  "RP-10": {
    summary: "OTEL_EXPORTER_OTLP_ENDPOINT, when set, is an absolute http:// or https:// URL",
    fix: "set OTEL_EXPORTER_OTLP_ENDPOINT to a collector URL such as http://otel-collector.observability:4318",
    why: "The image starts with `--import @rootpilotsh/otel/register` (the Rootpilot Kubernetes guide); the OpenTelemetry SDK reads OTEL_EXPORTER_OTLP_ENDPOINT as a URL, and a value without a scheme exports nothing.",
    source: { from: "upstream", says: "the OpenTelemetry SDK's environment specification: OTEL_EXPORTER_OTLP_ENDPOINT is a URL with a scheme" },
    severity: "error",
    concern: "reliability",
    profiles: RUNNER,
    refusedBy: { edits: [{ at: ["otel", "endpoint"], value: "otel:4318" }], path: "otel.endpoint" },
  },
});

/** How the Rootpilot runner's values break the general requirements: its record carries them (G-08's resources are RP-09's). */
export const RP_GENERAL_REFUSED_BY: GeneralRefusedBy = {
  "G-04": { edits: [{ at: ["AWS_ACCESS_KEY_ID"], value: "AKIAIOSFODNN7EXAMPLE" }], path: "AWS_ACCESS_KEY_ID" },
  "G-05": { edits: [{ at: ["image"], value: "registry.example.com/rootpilotsh/runner:main" }], path: "image" },
  "G-06": { edits: [{ at: ["securityContext"], value: { privileged: true } }], path: "securityContext" },
  "G-07": { edits: [{ at: ["name"], value: "Rootpilot Runner" }], path: "name" },
  "G-09": { edits: [{ at: ["imagePullSecrets"], value: [{ name: "regcred" }] }], path: "imagePullSecrets" },
  "G-10": { edits: [{ at: ["podSecurityLevel"], value: "baseline" }], path: "podSecurityLevel" },
};
