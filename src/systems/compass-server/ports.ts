// Where the Server and its bundled NATS listen, shared by every part that dials them.
import { SERVER_INTERFACE, SERVER_UID, TLS_PORT } from "./interface.ts";

/** The Server terminates TLS itself on this port inside its pod (CS-08). */
export const SERVER_TLS_PORT = TLS_PORT;
/** The port its Service exposes; it forwards to SERVER_TLS_PORT. */
export const SERVER_SERVICE_PORT = 443;
/** NATS clients connect here (CS-07). */
export const NATS_PORT = 4222;
/** The Server runs as this uid and gid (CS-02), like the Runner. */
export { SERVER_UID };
/** The Server's and NATS's pod security context (CS-02); fsGroup lets the process read its Secret files and write its emptyDirs. */
export function podSecurityContext() {
  return {
    runAsUser: SERVER_UID,
    runAsGroup: SERVER_UID,
    runAsNonRoot: true,
    fsGroup: SERVER_UID,
    seccompProfile: { type: "RuntimeDefault" },
  };
}
/** Owner-read only: 0400 (CS-05, CS-06). Kubernetes takes the mode as a decimal integer. */
export const PRIVATE_MODE = 0o400;

/** The variable the Server reads its Postgres DSN from (CS-03); `rigging preflight postgres` reads it too. */
export const DATABASE_URL_ENV = SERVER_INTERFACE.database.env;

/** The `app.kubernetes.io/name` of the Server and of the bundled NATS. */
export const SERVER_APP = "compass-server";
export const NATS_APP = "compass-nats";
/** The NATS pod template's annotation with the hash of nats.conf (like Helm charts' `checksum/config`): a changed file restarts the pod; `rigging diff` names it. */
export const NATS_CONFIG_HASH = "rigging.dev/nats-config-sha256";
