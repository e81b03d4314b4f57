// Where the Compass Server and its bundled NATS listen, and where the
// Server finds its files. Shared by the Server renderer, its rules, the
// Runner's NetworkPolicy (which dials the Server in-cluster) and the
// combined Compass profile.

/** The Server terminates TLS itself on this port inside its pod (CS-08). */
export const SERVER_TLS_PORT = 8443;
/** The port its Service exposes; it forwards to SERVER_TLS_PORT. */
export const SERVER_SERVICE_PORT = 443;
/** NATS clients connect here (CS-07). */
export const NATS_PORT = 4222;
/** The Server runs as this uid and gid (CS-02), like the Runner. */
export const SERVER_UID = 65532;
/** Owner-read only: 0400 (CS-05, CS-06). Kubernetes takes the mode as a decimal integer. */
export const PRIVATE_MODE = 0o400;

export const CONFIG_DIR = "/etc/compass/config";
export const CONFIG_FILE = "server.yaml";
export const TLS_DIR = "/etc/compass/tls";
export const MASTER_KEY_DIR = "/var/run/secrets/compass/master-key";
export const ADMIN_TOKEN_DIR = "/var/run/secrets/compass/admin-token";
export const FORGE_DIR = "/var/run/secrets/compass/forge";

/** Environment variables fed from Secrets by name (CS-03, CS-07). */
export const DATABASE_URL_ENV = "COMPASS_DATABASE_URL";
export const NATS_PASSWORD_ENV = "COMPASS_NATS_PASSWORD";

/** The `app.kubernetes.io/name` of the Server and of the bundled NATS. */
export const SERVER_APP = "compass-server";
export const NATS_APP = "compass-nats";
