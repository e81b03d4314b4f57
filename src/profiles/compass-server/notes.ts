// What an operator does before applying, printed after a render: the
// Secrets rigging refers to by name (CS-04) and the database it cannot
// see (CS-12).
import type { ClusterEntry, ServerFields } from "./values.ts";

export function serverChecklist(v: ServerFields, clusters: readonly ClusterEntry[]): string[] {
  const ns = v.namespace;
  const lines = [
    `Before applying, in namespace ${ns} (CS-04: rigging references these Secrets by name and never renders them):`,
    `  [ ] Secret ${v.database.urlSecret.name}, key ${v.database.urlSecret.key}: the Postgres URL (CS-03)`,
    `  [ ] Secret ${v.masterKey.name}, key ${v.masterKey.key}: the master key (CS-05)`,
    `  [ ] Secret ${v.adminToken.name}, key ${v.adminToken.key}: the admin token (CS-06)`,
    `  [ ] Secret ${v.nats.passwordSecret.name}, key ${v.nats.passwordSecret.key}: the NATS password (CS-07)`,
    `  [ ] Secret ${v.tls.secretName} of type kubernetes.io/tls for ${v.publicHost} (CS-08)`,
  ];
  if (v.forge) {
    for (const [which, app] of [["primary App", v.forge.app], ["reviewer App", v.forge.reviewerApp]] as const) {
      if (app) lines.push(`  [ ] the forge ${which}: ${app.appId.name}/${app.appId.key}, ${app.privateKey.name}/${app.privateKey.key}, ${app.webhookSecret.name}/${app.webhookSecret.key} (CS-04)`);
    }
  }
  lines.push(
    `  [ ] Postgres 16 or later at ${v.database.cidr}:${v.database.port}; the owner is a superuser, or has CREATEROLE and BYPASSRLS (CS-12: rigging preflight postgres checks it)`,
    ...clusters.map((c) => `  [ ] Runner cluster entry ${c.name}: ServiceAccount ${c.namespace}/${c.serviceAccount}, audience ${c.audience}, tokens up to ${c.maxTokenLifetime} s (CS-09)`),
  );
  return lines;
}
