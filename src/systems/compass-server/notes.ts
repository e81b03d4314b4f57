// What an operator does before applying, printed after a render (CS-04, CS-12 to CS-15).
import { bundledNatsAddress, natsUrlSecret } from "./nats.ts";
import { CONTAINER_NAME, MASTER_KEY_SECRET, MINTED_ADMIN_TOKEN, SECRETSPEC, STATE_DIR } from "./interface.ts";
import { withClusterCa } from "./runner-clusters.ts";
import { ISSUER_DISCOVERY_ROLE, inClusterIssuer, JWKS_PATH, UNAUTHENTICATED_GROUP } from "../compass-contract/interface.ts";
import type { ClusterEntry, ServerFields } from "./values.ts";

/** The Runner of a kind: Compass file, as the Server's certificate meets it. */
export interface DialledBy {
  /** The host the Runner dials (the in-cluster Service by default). */
  host: string;
  /** Whether the Runner passes --server-name (P9). */
  p9: boolean;
}

export function serverChecklist(v: ServerFields, clusters: readonly ClusterEntry[], runner?: DialledBy): string[] {
  const ns = v.namespace;
  const url = natsUrlSecret(v.nats);
  const lines = [
    ...designedNotes(v, runner),
    `Before applying, in namespace ${ns} (CS-04: rigging references these Secrets by name and never renders them):`,
    `  [ ] Secret ${v.database.dsnSecret.name}, key ${v.database.dsnSecret.key}: the Postgres DSN, for COMPASS_DATABASE_DSN (CS-03)`,
    `  [ ] Secret ${v.masterKey.name}, key ${v.masterKey.key}: the master key, 64 hex characters (SecretSpec ${MASTER_KEY_SECRET}, CS-05)`,
  ];
  if (v.designed.P4 && v.adminToken)
    lines.push(`  [ ] Secret ${v.adminToken.name}, key ${v.adminToken.key}: the admin token, for --admin-token-file (CS-06; needs a Compass Server with P4)`);
  if (v.nats.mode === "bundled") {
    lines.push(
      `  [ ] Secret ${v.nats.passwordSecret.name}, key ${v.nats.passwordSecret.key}: the bundled NATS's password (CS-07)`,
      `  [ ] Secret ${url.name}, key ${url.key}: nats://${v.nats.user}:<password>@${bundledNatsAddress(v.name, ns)}, for COMPASS_NATS_URL (CS-07)`,
    );
  } else {
    lines.push(`  [ ] Secret ${url.name}, key ${url.key}: your NATS URL with its credentials, for COMPASS_NATS_URL (CS-07)`);
  }
  lines.push(...certificateLines(v, runner));
  if (v.forge) {
    const f = v.forge;
    lines.push(
      `  [ ] the forge App's keys: ${f.appKeySecret.name}/${f.appKeySecret.key}, ${f.appWebhookSecret.name}/${f.appWebhookSecret.key}${f.reviewerAppKeySecret ? `, ${f.reviewerAppKeySecret.name}/${f.reviewerAppKeySecret.key}` : ""} (CS-04)`,
    );
  }
  lines.push(
    `  [ ] the Server image runs compass-server with the secretspec CLI ${SECRETSPEC.cliFloor} or later on its PATH (SecretSpec's file provider, CS-13)`,
    `  [ ] Postgres 16 or later at ${v.database.cidr}:${v.database.port}; the owner is a superuser, or has CREATEROLE and BYPASSRLS (CS-12: rigging preflight postgres checks it)`,
    ...clusters.flatMap((c) => clusterLines(v, c)),
  );
  if (!v.designed.P4) lines.push(...adminTokenLines(v));
  return lines;
}

/** CS-14: the designed flags in this render, each with the task it needs. */
function designedNotes(v: ServerFields, runner?: DialledBy): string[] {
  const asked = [
    ...(v.designed.P4 ? ["the Server's --admin-token-file needs a Compass Server with P4, a task of the Compass Server-on-Kubernetes design"] : []),
    ...(runner?.p9 ? ["the Runner's --server-name needs a Compass Runner with P9, a task of the Compass Server-on-Kubernetes design"] : []),
  ];
  return asked.map((line) => `note: CS-14: designed, opted in: ${line}; the released binaries exit 2 on the flag`);
}

/** The TLS Secret, and without P9 the name the Runner checks it for (CS-08, CS-14). */
function certificateLines(v: ServerFields, runner?: DialledBy): string[] {
  if (!runner || runner.p9 || runner.host === v.publicHost) return [`  [ ] Secret ${v.tls.secretName} of type kubernetes.io/tls for ${v.publicHost} (CS-08)`];
  return [
    `  [ ] Secret ${v.tls.secretName} of type kubernetes.io/tls whose certificate names ${v.publicHost} and ${runner.host}: without P9 the Runner verifies the host it dials (CS-08, CS-14)`,
    `      check it: kubectl -n ${v.namespace} get secret ${v.tls.secretName} -o yaml > tls.yaml && rigging preflight tls --secret tls.yaml --server-name ${v.publicHost} --service-host ${runner.host} [--ca <the Runner's serverCA>]`,
  ];
}

/** One runner cluster: what the Server needs to fetch or hold its keys (CS-09, CS-15). */
function clusterLines(v: ServerFields, given: ClusterEntry): string[] {
  const c = withClusterCa(given);
  const lines = [
    `  [ ] runner cluster ${c.name}: issuer ${c.issuer} (as its tokens carry it), ServiceAccount ${c.namespace}/${c.serviceAccount}, tokens up to ${c.maxTokenLifetime} s (CS-09)`,
  ];
  if (c.jwksFile)
    lines.push(
      `  [ ] ConfigMap ${c.jwksFile.configMap}, key ${c.jwksFile.key}: cluster ${c.name}'s keys, a static JWKS; refill it and restart the Server at every key rotation (CS-15):`,
      `      kubectl get --raw ${JWKS_PATH} > jwks.json && kubectl -n ${v.namespace} create configmap ${c.jwksFile.configMap} --from-file=${c.jwksFile.key}=jwks.json`,
    );
  if (inClusterIssuer(c.issuer) && c.caFile)
    lines.push(`  [ ] cluster ${c.name}'s CA from ConfigMap ${c.caFile.configMap}, key ${c.caFile.key}, in namespace ${v.namespace} (CS-15)`);
  if (c.allowUnauthenticatedDiscovery)
    lines.push(
      `note: CS-15: cluster ${c.name}: the rendered ClusterRoleBinding (ClusterRole ${ISSUER_DISCOVERY_ROLE}) lets ${UNAUTHENTICATED_GROUP} read the issuer's discovery and keys: anyone who reaches the API server can, without credentials (docs/compass-server.md)`,
    );
  return lines;
}

/** Without P4 the Server mints its admin token under --state-dir; how to read it. */
function adminTokenLines(v: ServerFields): string[] {
  const file = `${STATE_DIR}/${MINTED_ADMIN_TOKEN}`;
  const pod = `$(kubectl -n ${v.namespace} get pod -l app.kubernetes.io/instance=${v.name},app.kubernetes.io/component=server -o name)`;
  return [
    `After applying: the Server mints its admin token at ${file} (mode 0600) once its TLS door is up; P4 (--admin-token-file, designed.P4) would read it from a Secret instead (CS-06, CS-14). Read it with:`,
    `  kubectl -n ${v.namespace} exec deploy/${v.name} -c ${CONTAINER_NAME} -- cat ${file}`,
    `  or, if the image has no cat: kubectl -n ${v.namespace} debug -i ${pod} --target=${CONTAINER_NAME} --profile=restricted --image=gcr.io/distroless/base-debian12:debug-nonroot -- /busybox/cat /proc/1/root${file}`,
  ];
}
