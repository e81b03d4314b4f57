// What the Rootpilot runner image expects (user, paths, variables), kept once
// for the renderer and the rules.
import type { Reading } from "../../k8s/flag-or-env.ts";

/** The image's USER is `node` (uid and gid 1000) since the #160 hardening (RP-01). */
export const NODE_UID = 1000;
export const NODE_GID = 1000;
/** $HOME of `node`; the AWS SDK resolves its caches from here (RP-01). */
export const HOME_DIR = "/home/node";
export const TMP_DIR = "/tmp";

/** The container name the Rootpilot Kubernetes guide's own manifests use. */
export const CONTAINER_NAME = "rootpilot-agent";

/** The drain ceiling the runner applies when RUNNER_DRAIN_TIMEOUT_MS is unset (RP-03). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 120_000;
/** The learned-state flush interval when unset (RP-04). */
export const DEFAULT_LEARNED_FLUSH_INTERVAL_MS = 60_000;
/** Seconds of grace past the drain ceiling, so SIGKILL never lands mid-drain (RP-03). */
export const GRACE_HEADROOM_SECONDS = 30;

/** GKE attestation: the projected KSA token the runner reads by default (RP-06). */
export const GKE_TOKEN_DIR = "/var/run/secrets/tokens/gke-oidc";
export const GKE_TOKEN_FILE = "token";
export const GKE_TOKEN_PATH = `${GKE_TOKEN_DIR}/${GKE_TOKEN_FILE}`;
/** The only audience the control plane accepts on an enrollment token (RP-06). */
export const ENROLL_AUDIENCE = "rootpilot-enroll";
export const TOKEN_MIN_SECONDS = 600;
export const TOKEN_MAX_SECONDS = 4294967296;
export const DEFAULT_TOKEN_SECONDS = 3600;

/** The annotation IRSA reads on EKS (RP-06). */
export const IRSA_ROLE_ANNOTATION = "eks.amazonaws.com/role-arn";

export const ATTESTATION_MODES = { gke: "gke-oidc", eks: "aws-sts" } as const;
export const SECRET_STORE_MODES = ["aws", "vault"] as const;

/** The runner takes no flags (its command is fixed by the image); a variable envFrom may hold is not judged. */
export const ROOTPILOT_READING: Reading = { envFrom: true };

export const ENV = {
  home: "HOME",
  attestationMode: "RUNNER_ATTESTATION_MODE",
  gkeTokenPath: "RUNNER_GKE_TOKEN_PATH",
  awsRegion: "AWS_REGION",
  drainTimeout: "RUNNER_DRAIN_TIMEOUT_MS",
  flushInterval: "RUNNER_LEARNED_FLUSH_INTERVAL_MS",
  learnedStorePath: "RUNNER_LEARNED_STORE_PATH",
  secretStoreMode: "RUNNER_SECRET_STORE_MODE",
  awsCredMode: "RUNNER_AWS_CRED_MODE",
  otelEndpoint: "OTEL_EXPORTER_OTLP_ENDPOINT",
} as const;

/** Static AWS credentials, in every spelling a values file or a pod could carry them (RP-07). */
export const STATIC_AWS_ENV = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SHARED_CREDENTIALS_FILE"] as const;

/** The runner's own boot error when the token volume is missing (as the Rootpilot Kubernetes guide quotes it). */
export const MISSING_TOKEN_ERROR = `RUNNER_ATTESTATION_MODE=gke-oidc: failed to read projected KSA token at ${GKE_TOKEN_PATH} (is the Workload Identity token volume mounted?)`;
export const MISSING_REGION_ERROR = "RUNNER_ATTESTATION_MODE=aws-sts requires AWS_REGION";

/** IAM role ARN: partition, 12-digit account, optional path, role name of up to 64 characters. */
// The path's segments without a repeated group (each repetition took stack): no empty segment, name last.
export const ROLE_ARN = /^arn:aws(-cn|-us-gov)?:iam::\d{12}:role\/(?!\/|.*\/\/)(?:[\w+=,.@/-]*\/)?[\w+=,.@-]{1,64}$/;
/** AWS region names such as us-east-1, eu-central-2, us-gov-west-1, cn-north-1. */
export const AWS_REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;

/** terminationGracePeriodSeconds for a drain ceiling: the drain in whole seconds plus headroom. */
export function gracePeriodFor(drainTimeoutMs: number): number {
  return Math.ceil(drainTimeoutMs / 1000) + GRACE_HEADROOM_SECONDS;
}
