// The Server's own facts beside what it reads: its user, container, secrets and
// the names people reach for; what it reads is the Compass contract's, re-exported here.
import { type InterfaceName, SECRETSPEC } from "../compass-contract/server-interface.ts";

export {
  ADMIN_TOKEN_DIR,
  ADMIN_TOKEN_FILE,
  FORGE_SECRET_NAMES,
  type InterfaceName,
  RUN_VOLUME_DIR,
  RUNNER_CLUSTERS_DIR,
  RUNNER_CLUSTERS_KEY,
  SECRET_PROVIDER_URI,
  SECRETSPEC,
  SERVER_ENV,
  SERVER_INTERFACE,
  STATE_DIR,
  STATE_VOLUME_DIR,
  TLS_DIR,
} from "../compass-contract/server-interface.ts";

/** compass-server's own uid and gid, the distroless nonroot user (CS-02). */
export const SERVER_UID = 65532;
/** The container name rigging gives the Server. */
export const CONTAINER_NAME = "server";

/** Where a cluster entry's jwksFile and caFile are mounted: `<dir>/<entry name>/<file>`. */
export const RUNNER_CLUSTER_FILES_DIR = "/etc/compass/runner-cluster-files";

/** Without P4 the Server mints its admin token here, under --state-dir (go/server/network_door.go). */
export const MINTED_ADMIN_TOKEN = "admin-token";

/** The directory that holds every secret file for the Server's project and profile. */
export const SECRETSPEC_DIR = `${SECRETSPEC.root}/${SECRETSPEC.project}/${SECRETSPEC.profile}`;
/** The master key's SecretSpec name: 64 hex characters, never generated (go/server/serve.go). */
export const MASTER_KEY_SECRET = "COMPASS_MASTER_KEY";
/** Secret NAMEs given to the forge flags are looked up under this prefix. */
export const SERVER_SECRET_PREFIX = "SERVER_";

/** The file the provider reads for a SecretSpec NAME. */
export function secretspecFile(name: string): string {
  return `${SECRETSPEC_DIR}/${name}`;
}

/** The SecretSpec names and files rigging gives the Server (not flags: names inside the provider). */
export const SERVER_SECRETS: readonly InterfaceName[] = [
  {
    env: MASTER_KEY_SECRET,
    meaning: "the 32-byte AES master key, 64 hex characters, resolved through --secret-provider (never a process variable here)",
    source: "RigelBuild/compass go/server/serve.go",
    commit: "599af8e2",
    status: "implemented",
    rendered: secretspecFile(MASTER_KEY_SECRET),
  },
  {
    env: `${SERVER_SECRET_PREFIX}<NAME>`,
    meaning: "where the provider holds the value of a secret NAME given to a forge flag",
    source: "RigelBuild/compass docs/self-host.md, go/cmd/compass-server/main.go",
    commit: "599af8e2",
    status: "implemented",
    rendered: secretspecFile(`${SERVER_SECRET_PREFIX}<NAME>`),
  },
];

/** Names people reach for that no Compass program reads, with the real one. */
export const NOT_READ: Readonly<Record<string, string>> = {
  "--config": "--runner-clusters (the Server has no configuration file; its settings are flags and variables)",
  "--tls-cert-file": "--tls-cert",
  "--tls-key-file": "--tls-key",
  "--master-key-file": `--secret-provider (the master key is the SecretSpec secret ${MASTER_KEY_SECRET})`,
  "--master-key": `--secret-provider (the master key is the SecretSpec secret ${MASTER_KEY_SECRET})`,
  "--database-url": "--database or COMPASS_DATABASE_DSN",
  "--nats-password": "the password inside --nats-url or COMPASS_NATS_URL",
  COMPASS_DATABASE_URL: "COMPASS_DATABASE_DSN",
  DATABASE_URL: "COMPASS_DATABASE_DSN",
  COMPASS_NATS_PASSWORD: "the password inside COMPASS_NATS_URL (nats://user:password@host:4222)",
  COMPASS_NATS_USER: "the user inside COMPASS_NATS_URL (nats://user:password@host:4222)",
  COMPASS_MASTER_KEY_FILE: `--secret-provider (the master key is the SecretSpec secret ${MASTER_KEY_SECRET})`,
  COMPASS_ADMIN_TOKEN_FILE: "--admin-token-file (P4; no variable)",
  COMPASS_LISTEN: "--listen (no variable)",
  COMPASS_STATE_DIR: "--state-dir (no variable)",
  COMPASS_SOCKET: "--socket (no variable)",
  "--forge-enforce-scopes":
    "--forge-disable-scope-enforcement (the released Server removed it: enforcement is on by default, and agent forge writes need --forge-scope-grants)",
  COMPASS_FORGE_ENFORCE_SCOPES:
    "COMPASS_FORGE_DISABLE_SCOPE_ENFORCEMENT (the released Server removed it: enforcement is on by default, and agent forge writes need COMPASS_FORGE_SCOPE_GRANTS)",
};

/** strconv.ParseBool's accepted spellings: anything else fails the Server's start. */
export const GO_BOOL = /^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/;
