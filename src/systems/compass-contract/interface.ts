// The runner-clusters file and the issuer it names: how the Compass Server
// accepts a Runner's projected token, read by both systems' rules and notes.

/** The --runner-clusters file, as the Server reads it; `commit` is data the tests check, never shown. */
export const RUNNER_CLUSTERS_SCHEMA = {
  source: "RigelBuild/compass go/internal/auth/runner_clusters.go",
  commit: "7bc5d536",
  /** The one top-level key; unknown keys fail the Server's start (KnownFields). */
  topKey: "clusters",
  /** Every key of an entry, in the order rigging writes them. */
  keys: ["name", "issuer", "audience", "namespace", "serviceAccount", "maxTokenLifetime", "jwksURI", "jwksFile", "caFile"],
  name: /^[a-z0-9-]{1,40}$/,
  defaultAudience: "compass-runner",
  /** The Kubernetes TokenRequest minimum, and the Server's default. */
  minLifetimeSeconds: 600,
} as const;
export type RunnerClusterKey = (typeof RUNNER_CLUSTERS_SCHEMA.keys)[number];

/** The cluster's own API server as issuer, which needs its CA and credentials (CS-15). */
export function inClusterIssuer(issuer: string): boolean {
  if (issuer.length > 2048 || !URL.canParse(issuer)) return false;
  return /^kubernetes(\.default(\.svc(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?)?$/.test(new URL(issuer).hostname);
}

/** The cluster CA every namespace holds (the root CA ConfigMap publisher). */
export const KUBE_ROOT_CA = { configMap: "kube-root-ca.crt", key: "ca.crt" } as const;
/** The ClusterRole that reads issuer discovery and JWKS, bound by default to service accounts only. */
export const ISSUER_DISCOVERY_ROLE = "system:service-account-issuer-discovery";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
/** The path the installer reads the cluster's keys from, for a jwksFile. */
export const JWKS_PATH = "/openid/v1/jwks";
