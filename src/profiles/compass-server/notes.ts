// What an operator does before applying, printed after a render: the
// Secrets rigging refers to by name (CS-04), what the image must hold
// (CS-13), and the database it cannot see (CS-12).
import { bundledNatsAddress, natsUrlSecret } from "./nats.ts";
import { MASTER_KEY_SECRET, SECRETSPEC } from "./runtime.ts";
import type { ClusterEntry, ServerFields } from "./values.ts";

export function serverChecklist(v: ServerFields, clusters: readonly ClusterEntry[]): string[] {
  const ns = v.namespace;
  const url = natsUrlSecret(v.nats);
  const lines = [
    `Before applying, in namespace ${ns} (CS-04: rigging references these Secrets by name and never renders them):`,
    `  [ ] Secret ${v.database.dsnSecret.name}, key ${v.database.dsnSecret.key}: the Postgres DSN, for COMPASS_DATABASE_DSN (CS-03)`,
    `  [ ] Secret ${v.masterKey.name}, key ${v.masterKey.key}: the master key, 64 hex characters (SecretSpec ${MASTER_KEY_SECRET}, CS-05)`,
    `  [ ] Secret ${v.adminToken.name}, key ${v.adminToken.key}: the admin token, for --admin-token-file (CS-06; needs a Server with P4)`,
  ];
  if (v.nats.mode === "bundled") {
    lines.push(
      `  [ ] Secret ${v.nats.passwordSecret.name}, key ${v.nats.passwordSecret.key}: the bundled NATS's password (CS-07)`,
      `  [ ] Secret ${url.name}, key ${url.key}: nats://${v.nats.user}:<password>@${bundledNatsAddress(v.name, ns)}, for COMPASS_NATS_URL (CS-07)`,
    );
  } else {
    lines.push(`  [ ] Secret ${url.name}, key ${url.key}: your NATS URL with its credentials, for COMPASS_NATS_URL (CS-07)`);
  }
  lines.push(`  [ ] Secret ${v.tls.secretName} of type kubernetes.io/tls for ${v.publicHost} (CS-08)`);
  if (v.forge) {
    const f = v.forge;
    lines.push(
      `  [ ] the forge App's keys: ${f.appKeySecret.name}/${f.appKeySecret.key}, ${f.appWebhookSecret.name}/${f.appWebhookSecret.key}${f.reviewerAppKeySecret ? `, ${f.reviewerAppKeySecret.name}/${f.reviewerAppKeySecret.key}` : ""} (CS-04)`,
    );
  }
  lines.push(
    `  [ ] the Server image runs compass-server with the secretspec CLI ${SECRETSPEC.cliFloor} or later on its PATH (SecretSpec's file provider, CS-13)`,
    `  [ ] Postgres 16 or later at ${v.database.cidr}:${v.database.port}; the owner is a superuser, or has CREATEROLE and BYPASSRLS (CS-12: rigging preflight postgres checks it)`,
    ...clusters.map(
      (c) =>
        `  [ ] runner cluster ${c.name}: issuer ${c.issuer} (as its tokens carry it), ServiceAccount ${c.namespace}/${c.serviceAccount}, tokens up to ${c.maxTokenLifetime} s (CS-09)`,
    ),
  );
  return lines;
}
