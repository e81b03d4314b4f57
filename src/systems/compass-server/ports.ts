// Where the Server and its bundled NATS listen, shared by every part that dials them;
// the Server's port and the objects' names are the Compass contract's.
import { SERVER_INTERFACE } from "../compass-contract/server-interface.ts";
import { SERVER_UID } from "./interface.ts";

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
