// What compass-server reads (flags, variables), each with its upstream source,
// status and how rigging sets it: the Server's rules and renderer read it, and
// so do the Runner's rules and `diff`, which read a Server container's settings.
import type { Reading } from "../../k8s/flag-or-env.ts";
import { hasEnv, hasFlag, hasImage, type Shape } from "../../rules/shapes.ts";
import { SERVER_TLS_PORT } from "./ports.ts";

export type InterfaceStatus = "implemented" | "designed";
/** The Compass Server-on-Kubernetes design's task a designed name needs; rendered only when its value opts in (CS-14). */
export type CompassTask = "P4" | "P8" | "P9";

export interface InterfaceName {
  /** The flag, as the Server's Go `flag` set declares it (one or two dashes both parse). */
  flag?: string;
  /** Its environment twin, read when the flag is empty (`firstNonEmpty(flag, env)`: the flag wins). */
  env?: string;
  meaning: string;
  /** Upstream repository and path, or the design that plans it: what users read. */
  source: string;
  /** The upstream commit the facts were read at: data the tests check, never shown to users. */
  commit?: string;
  status: InterfaceStatus;
  /** How rigging sets it, or undefined when rigging leaves it unset. */
  rendered?: string;
  /** A bool flag: `--flag` alone means true, so it takes no separate value. */
  bool?: true;
  /** For a designed name: the task it needs, and the value that opts into it. */
  task?: CompassTask;
}

// The released Server: the flags of the commit before it, with the forge scope flag renamed.
const MAIN = { source: "RigelBuild/compass go/cmd/compass-server/main.go", commit: "f71f2ba4" } as const;
const DESIGN_P4 = "the Compass Server-on-Kubernetes design, task P4";

/** All addresses, both families (Go's net.Listen reads `:port` so). */
export const LISTEN_ADDRESS = `:${SERVER_TLS_PORT}`;

/** The kubernetes.io/tls Secret, mounted read-only. */
export const TLS_DIR = "/etc/compass/tls";
export const TLS_CERT_FILE = `${TLS_DIR}/tls.crt`;
export const TLS_KEY_FILE = `${TLS_DIR}/tls.key`;

/** The --runner-clusters file: a ConfigMap key, mounted read-only (CS-09). */
export const RUNNER_CLUSTERS_DIR = "/etc/compass/runner-clusters";
export const RUNNER_CLUSTERS_KEY = "clusters.yaml";
export const RUNNER_CLUSTERS_FILE = `${RUNNER_CLUSTERS_DIR}/${RUNNER_CLUSTERS_KEY}`;

/** Writable trees under the read-only root (CS-13), one level below their mounts since the Server creates them 0700. */
export const RUN_VOLUME_DIR = "/run/compass";
export const SOCKET_PATH = `${RUN_VOLUME_DIR}/server/server.sock`;
export const STATE_VOLUME_DIR = "/var/lib/compass";
export const STATE_DIR = `${STATE_VOLUME_DIR}/server`;

/** P4 (designed, opted in by designed.P4): the admin token from a Secret volume, mounted 0400 (CS-06). */
export const ADMIN_TOKEN_DIR = "/var/run/secrets/compass/admin-token";
export const ADMIN_TOKEN_FILE = `${ADMIN_TOKEN_DIR}/token`;

/** SecretSpec's `file` provider: one file per secret. It refuses symlinks, which a Secret volume is made of, so each file is mounted alone with subPath. */
export const SECRETSPEC = {
  project: "compass",
  profile: "default",
  root: "/var/run/secrets/compass/secretspec",
  /** The provider scheme and the release that added it. */
  scheme: "file",
  minVersion: "0.19",
  /** The Server's own floor for the CLI it spawns (docs/self-host.md). */
  cliFloor: "0.20.0",
} as const;
export const SECRET_PROVIDER_URI = `${SECRETSPEC.scheme}://${SECRETSPEC.root}`;
/** The SecretSpec NAMEs rigging gives the forge flags (the values live in files). */
export const FORGE_SECRET_NAMES = {
  appKey: "FORGE_APP_PRIVATE_KEY",
  appWebhook: "FORGE_APP_WEBHOOK_SECRET",
  reviewerAppKey: "FORGE_REVIEWER_APP_PRIVATE_KEY",
} as const;

/** Every flag and variable compass-server reads, by the key rigging uses for it. */
export const SERVER_INTERFACE = {
  socket: {
    flag: "--socket",
    meaning: "Unix socket for compass.v1 (its parent directory is created 0700)",
    ...MAIN,
    status: "implemented",
    rendered: SOCKET_PATH,
  },
  listen: {
    flag: "--listen",
    meaning: "TCP address of the authenticated TLS network door, where Runners enroll",
    ...MAIN,
    status: "implemented",
    rendered: LISTEN_ADDRESS,
  },
  listenFd: { flag: "--listen-fd", meaning: "inherited TCP listener; mutually exclusive with --listen", ...MAIN, status: "implemented" },
  tlsCert: {
    flag: "--tls-cert",
    meaning: "PEM certificate of the network door (required with --listen)",
    ...MAIN,
    status: "implemented",
    rendered: TLS_CERT_FILE,
  },
  tlsKey: {
    flag: "--tls-key",
    meaning: "PEM private key of the network door (required with --listen)",
    ...MAIN,
    status: "implemented",
    rendered: TLS_KEY_FILE,
  },
  devHttp: { flag: "--dev-http", meaning: "dev-only gRPC-Web endpoint on loopback", ...MAIN, status: "implemented" },
  database: {
    flag: "--database",
    env: "COMPASS_DATABASE_DSN",
    meaning: "Postgres DSN (required); migrations run at boot",
    ...MAIN,
    status: "implemented",
    rendered: "COMPASS_DATABASE_DSN from a secretKeyRef",
  },
  natsUrl: {
    flag: "--nats-url",
    env: "COMPASS_NATS_URL",
    meaning: "NATS URL of the event fabric (required; JetStream); credentials travel in its userinfo",
    ...MAIN,
    status: "implemented",
    rendered: "COMPASS_NATS_URL from a secretKeyRef",
  },
  secretProvider: {
    flag: "--secret-provider",
    env: "COMPASS_SECRET_PROVIDER",
    meaning: "SecretSpec provider URI both secret resolvers read, the master key included",
    ...MAIN,
    status: "implemented",
    rendered: SECRET_PROVIDER_URI,
  },
  stateDir: {
    flag: "--state-dir",
    meaning: "directory for the minted admin token and the generated SecretSpec manifests (must be writable)",
    ...MAIN,
    status: "implemented",
    rendered: STATE_DIR,
  },
  adminTokenFile: {
    flag: "--admin-token-file",
    meaning: "read the admin token from a mounted Secret file instead of minting one under --state-dir",
    source: DESIGN_P4,
    status: "designed",
    task: "P4",
    rendered: `${ADMIN_TOKEN_FILE}, only with designed.P4`,
  },
  adminHandle: { flag: "--admin-handle", meaning: "bootstrap admin handle (default admin)", ...MAIN, status: "implemented" },
  corsAllowedOrigin: {
    flag: "--cors-allowed-origin",
    meaning: "one browser origin for gRPC-Web CORS on the network door",
    ...MAIN,
    status: "implemented",
  },
  publicUrl: {
    flag: "--public-url",
    env: "COMPASS_PUBLIC_URL",
    meaning: "public base URL (Linear deep links and webhook)",
    ...MAIN,
    status: "implemented",
    rendered: "https://<publicHost>",
  },
  runnerClusters: {
    flag: "--runner-clusters",
    env: "COMPASS_RUNNER_CLUSTERS",
    meaning: "path of the YAML file of Kubernetes clusters whose projected Runner tokens the door accepts",
    ...MAIN,
    status: "implemented",
    rendered: RUNNER_CLUSTERS_FILE,
  },
  usageEventRetention: {
    flag: "--usage-event-retention",
    env: "COMPASS_USAGE_EVENT_RETENTION",
    meaning: "Go duration raw usage events are kept (default 2160h)",
    ...MAIN,
    status: "implemented",
  },
  transcriptCap: {
    flag: "--transcript-safety-valve-cap-bytes",
    env: "COMPASS_TRANSCRIPT_SAFETY_VALVE_CAP_BYTES",
    meaning: "hot-tail cap override",
    ...MAIN,
    status: "implemented",
  },
  s3Endpoint: {
    flag: "--s3-endpoint",
    env: "COMPASS_S3_ENDPOINT",
    meaning: "S3 endpoint host[:port] of the transcript archive",
    ...MAIN,
    status: "implemented",
  },
  s3Bucket: { flag: "--s3-bucket", env: "COMPASS_S3_BUCKET", meaning: "S3 bucket", ...MAIN, status: "implemented" },
  s3AccessKey: { flag: "--s3-access-key", env: "COMPASS_S3_ACCESS_KEY", meaning: "S3 access key", ...MAIN, status: "implemented" },
  s3SecretKey: { flag: "--s3-secret-key", env: "COMPASS_S3_SECRET_KEY", meaning: "S3 secret key", ...MAIN, status: "implemented" },
  s3Region: { flag: "--s3-region", env: "COMPASS_S3_REGION", meaning: "S3 region", ...MAIN, status: "implemented" },
  s3UseTls: { flag: "--s3-use-tls", env: "COMPASS_S3_USE_TLS", meaning: "https to S3", ...MAIN, status: "implemented", bool: true },
  otelEndpoint: { env: "OTEL_EXPORTER_OTLP_ENDPOINT", meaning: "OTLP endpoint (service compass-server); empty is off", ...MAIN, status: "implemented" },
  version: { flag: "--version", meaning: "print the version and exit", ...MAIN, status: "implemented", bool: true },
  forgeRepos: {
    flag: "--forge-repos",
    env: "COMPASS_FORGE_REPOS",
    meaning: "comma-separated owner/name repos seeded for board ingestion",
    ...MAIN,
    status: "implemented",
    rendered: "forge.repos, joined with commas",
  },
  forgeHost: {
    flag: "--forge-host",
    env: "COMPASS_FORGE_HOST",
    meaning: "github.com or a GitHub Enterprise Server host",
    ...MAIN,
    status: "implemented",
    rendered: "forge.host",
  },
  forgeCa: {
    flag: "--forge-ca",
    env: "COMPASS_FORGE_CA",
    meaning: "PEM CA bundle added to the roots of the GitHub clients",
    ...MAIN,
    status: "implemented",
  },
  forgeAppId: {
    flag: "--forge-app-id",
    env: "COMPASS_FORGE_APP_ID",
    meaning: "primary GitHub App id",
    ...MAIN,
    status: "implemented",
    rendered: "forge.appId",
  },
  forgeInstallationId: {
    flag: "--forge-installation-id",
    env: "COMPASS_FORGE_INSTALLATION_ID",
    meaning: "primary App installation id",
    ...MAIN,
    status: "implemented",
    rendered: "forge.installationId",
  },
  forgeAppKeySecret: {
    flag: "--forge-app-key-secret",
    env: "COMPASS_FORGE_APP_KEY_SECRET",
    meaning: "SecretSpec NAME of the primary App's PEM key (value under SERVER_<NAME>)",
    ...MAIN,
    status: "implemented",
    rendered: FORGE_SECRET_NAMES.appKey,
  },
  forgeAppWebhookSecret: {
    flag: "--forge-app-webhook-secret",
    env: "COMPASS_FORGE_APP_WEBHOOK_SECRET",
    meaning: "SecretSpec NAME of the webhook signing secret (value under SERVER_<NAME>)",
    ...MAIN,
    status: "implemented",
    rendered: FORGE_SECRET_NAMES.appWebhook,
  },
  forgeReviewerAppId: {
    flag: "--forge-reviewer-app-id",
    env: "COMPASS_FORGE_REVIEWER_APP_ID",
    meaning: "reviewer GitHub App id",
    ...MAIN,
    status: "implemented",
    rendered: "forge.reviewerAppId",
  },
  forgeReviewerAppInstallationId: {
    flag: "--forge-reviewer-app-installation-id",
    env: "COMPASS_FORGE_REVIEWER_APP_INSTALLATION_ID",
    meaning: "reviewer App installation id",
    ...MAIN,
    status: "implemented",
    rendered: "forge.reviewerAppInstallationId",
  },
  forgeReviewerAppKeySecret: {
    flag: "--forge-reviewer-app-key-secret",
    env: "COMPASS_FORGE_REVIEWER_APP_KEY_SECRET",
    meaning: "SecretSpec NAME of the reviewer App's PEM key (value under SERVER_<NAME>)",
    ...MAIN,
    status: "implemented",
    rendered: FORGE_SECRET_NAMES.reviewerAppKey,
  },
  forgeLinearClientId: {
    flag: "--forge-linear-client-id",
    env: "COMPASS_FORGE_LINEAR_CLIENT_ID",
    meaning: "SecretSpec NAME of the Linear OAuth client id",
    ...MAIN,
    status: "implemented",
  },
  forgeLinearClientSecret: {
    flag: "--forge-linear-client-secret",
    env: "COMPASS_FORGE_LINEAR_CLIENT_SECRET",
    meaning: "SecretSpec NAME of the Linear OAuth client secret",
    ...MAIN,
    status: "implemented",
  },
  forgeLinearWebhookSecret: {
    flag: "--forge-linear-webhook-secret",
    env: "COMPASS_FORGE_LINEAR_WEBHOOK_SECRET",
    meaning: "SecretSpec NAME of the Linear webhook signing secret",
    ...MAIN,
    status: "implemented",
  },
  forgeDisableScopeEnforcement: {
    flag: "--forge-disable-scope-enforcement",
    env: "COMPASS_FORGE_DISABLE_SCOPE_ENFORCEMENT",
    meaning: "a ParseBool: true turns scope enforcement off (on by default); an invalid value fails startup",
    ...MAIN,
    status: "implemented",
    rendered: "true, only with forge.disableScopeEnforcement",
  },
  forgeScopeGrants: {
    flag: "--forge-scope-grants",
    env: "COMPASS_FORGE_SCOPE_GRANTS",
    meaning: "comma-separated account:provider:host:repo grants seeded at boot; agent forge writes need one while enforcement is on",
    ...MAIN,
    status: "implemented",
    rendered: "forge.scopeGrants, joined with commas",
  },
} as const satisfies Record<string, InterfaceName>;

export type InterfaceKey = keyof typeof SERVER_INTERFACE;

/** The names of one kind: every flag (`--x`) or every variable. */
export const SERVER_FLAGS: ReadonlySet<string> = new Set(
  Object.values(SERVER_INTERFACE as Record<string, InterfaceName>).flatMap((n) => (n.flag ? [n.flag] : [])),
);
export const SERVER_ENV: ReadonlySet<string> = new Set(Object.values(SERVER_INTERFACE as Record<string, InterfaceName>).flatMap((n) => (n.env ? [n.env] : [])));
export const BOOL_FLAGS: ReadonlySet<string> = new Set(
  Object.values(SERVER_INTERFACE as Record<string, InterfaceName>).flatMap((n) => (n.flag && n.bool ? [n.flag] : [])),
);

/**
 * How compass-server reads its settings: Go's flag set (every flag known), the binary named in `command`, and `orEnv`;
 * a variable an envFrom outside the input may set reads as `from: "envFrom"`, which the rules leave not judged.
 */
export const SERVER_READING: Reading = {
  program: /(^|\/)compass-server$/,
  flags: { known: SERVER_FLAGS, bool: BOOL_FLAGS },
  emptyIsUnset: true,
  envFrom: true,
};

/** What only compass-server's pod runs or reads (its flags and variables); the rules recognise an unlabelled Server by the same shapes. */
export const SERVER_SHAPES: readonly Shape[] = [
  {
    sign: "--runner-clusters or --admin-token-file, or env COMPASS_DATABASE_DSN or COMPASS_RUNNER_CLUSTERS",
    matches: (spec) => hasFlag(spec, SERVER_INTERFACE.runnerClusters.flag, "--admin-token-file") || hasEnv(spec, /^COMPASS_(DATABASE_DSN|RUNNER_CLUSTERS)$/),
  },
  { sign: "an image named compass-server", matches: (spec) => hasImage(spec, /compass-server/i) },
];
