// Where the Compass Server listens and the names its objects carry: what the
// Runner dials, and what diff recognises the Server's objects by.

/** The Server terminates TLS itself on this port inside its pod (CS-08); the Server has no default port. */
export const SERVER_TLS_PORT = 8443;
/** The port its Service exposes; it forwards to SERVER_TLS_PORT. */
export const SERVER_SERVICE_PORT = 443;

/** The `app.kubernetes.io/name` of the Server, of the bundled NATS and of the Runner. */
export const SERVER_APP = "compass-server";
export const NATS_APP = "compass-nats";
export const RUNNER_APP = "compass-runner";
/** The NATS pod template's annotation with the hash of nats.conf (like Helm charts' `checksum/config`): a changed file restarts the pod; `rigging diff` names it. */
export const NATS_CONFIG_HASH = "rigging.dev/nats-config-sha256";
