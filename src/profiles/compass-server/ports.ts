// Where the Compass Server and its bundled NATS listen. Shared by the
// Server renderer, its rules, the Runner's NetworkPolicy (which dials the
// Server in-cluster), the combined Compass profile and `rigging preflight`.
// The Server's own names and paths are in runtime.ts.
import { SERVER_INTERFACE, SERVER_UID, TLS_PORT } from "./runtime.ts";

/** The Server terminates TLS itself on this port inside its pod (CS-08). */
export const SERVER_TLS_PORT = TLS_PORT;
/** The port its Service exposes; it forwards to SERVER_TLS_PORT. */
export const SERVER_SERVICE_PORT = 443;
/** NATS clients connect here (CS-07). */
export const NATS_PORT = 4222;
/** The Server runs as this uid and gid (CS-02), like the Runner. */
export { SERVER_UID };
/**
 * The pod security context of the Server and of the bundled NATS: uid and
 * gid 65532 (CS-02). Secret volume files belong to root unless fsGroup is
 * set; with it the kubelet gives them to group 65532, so the process can read
 * its 0400 files, and the emptyDirs are its to write.
 */
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
