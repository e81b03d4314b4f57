// The words of the Compass systems' consequences: each id's few words for the
// summary line, and the rows of docs/diff.md's table (src/docs/generate.ts writes it).
import type { ConsequenceRow } from "../consequences.ts";

/** The few words of each Compass consequence, for a one-line summary. */
export const COMPASS_SHORT: Readonly<Record<string, string>> = {
  "runner-restart": "Runner restarts",
  "token-pair": "enrollment breaks until both sides follow",
  "tls-trust": "TLS trust breaks until both sides follow",
  "tls-name": "TLS name breaks until both sides follow",
  "runner-clusters": "runner-clusters waits for a Server restart",
  "nats-restart": "NATS restarts",
  "nats-config": "NATS configuration waits for a NATS restart",
};

/** What each kind of change to the Compass systems' objects does, diff's own consequences included, for docs/diff.md's table. */
export const COMPASS_ROWS: readonly ConsequenceRow[] = [
  {
    ids: ["runner-restart"],
    change: "the Runner DaemonSet's pod template",
    consequence:
      "restarts the Runner on its node (from the node selector's `kubernetes.io/hostname`, else every node it selects), at the update strategy's pace; the sessions there are reaped within the grace period (`terminationGracePeriodSeconds`)",
  },
  {
    ids: ["server-downtime", "rollout"],
    change: "the Server Deployment's pod template, under `Recreate`",
    consequence: "downtime: the pod stops before the new one starts; under `RollingUpdate`, a rollout",
  },
  {
    ids: ["nats-restart"],
    change: "the bundled NATS Deployment's pod template, its configuration hash (`rigging.dev/nats-config-sha256`) included",
    consequence:
      "restarts NATS: under `Recreate` its pod stops before the new one starts; when the hash changed, diff says NATS restarts to read its new configuration. Until NATS is back, the Compass Server falls back to its cursor sweep for events",
  },
  {
    ids: ["nats-config"],
    change: "the NATS configuration (a ConfigMap with `nats.conf`)",
    consequence:
      "takes effect only when NATS restarts (nats-server reads it at start); diff says whether the same apply restarts it (the pod template carries the file's hash when rigging renders both) or gives the `kubectl rollout restart`",
  },
  {
    ids: ["token-pair"],
    change: "the Runner's projected token audience or lifetime",
    consequence:
      "enrollment breaks until the Server's cluster entry (its runner-clusters file: `audience`, `maxTokenLifetime`) accepts it and the Server has restarted; with the entry present on NEW's side, diff says whether it accepts the token",
  },
  {
    ids: ["token-pair"],
    change: "the Server's cluster entries, the Runner unchanged",
    consequence: "whether they still accept the Runner's token; if not, enrollment breaks once the Server restarts, until the Runner's DaemonSet follows",
  },
  {
    ids: ["tls-trust"],
    change: "the Runner's Server CA (`serverCA`: its ConfigMap or Secret, the key, or the bundle in it), the Server's certificate unchanged",
    consequence:
      "enrollment fails with a TLS error until the Server presents a certificate the new CA signs; when NEW's side holds both the CA bundle and the Server's certificate (their ConfigMap and Secret), diff checks the signature itself, whichever side changed",
  },
  {
    ids: ["tls-trust"],
    change: "the Server's certificate (its TLS Secret, the key, or the certificate in it), the Runner's CA unchanged",
    consequence:
      "enrollment fails with a TLS error, once the Server presents it, until the Runner's CA signs it; with the certificate on NEW's side, diff also checks that it names the host the Runner verifies; not judged when the Runner trusts the system roots",
  },
  {
    ids: ["tls-name"],
    change: "the name the Runner verifies (`serverName` with P9, else the host of `serverAddr`), the Server unchanged",
    consequence:
      "enrollment fails with a TLS error until the Server is reached by that name with a certificate that names it; with the Server on NEW's side, only when the name is neither its public host nor its Service, or, with its certificate there, when the certificate does not name it",
  },
  {
    ids: ["tls-name"],
    change: "the Server's public host or Service, the Runner unchanged",
    consequence:
      "when the name the Runner verifies is no longer among them, enrollment fails (a TLS error, or no such host) until the Runner's `serverName` or `serverAddr` follows",
  },
  {
    ids: ["admission"],
    change: "an admission policy or binding (ValidatingAdmissionPolicy, its binding, a webhook configuration)",
    consequence: "takes effect at once, for every request from then on; removed, it stops guarding at once",
  },
  {
    ids: ["runner-clusters"],
    change: "the runner-clusters ConfigMap",
    consequence:
      "takes effect only after the Server restarts (it reads the file at boot); diff says whether the same apply restarts it (the pod template carries the file's hash when rigging renders both) or gives the `kubectl rollout restart`",
  },
  {
    ids: ["removed"],
    change: "the Runner DaemonSet or Server Deployment removed",
    consequence: "the Runner stops on every node / the Server stops",
  },
];
