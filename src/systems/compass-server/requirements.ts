// The Compass Server's requirements (CS-), as data: rules, values refusals, `explain` and the docs read them.
import { defineRequirements } from "../../rules/requirement-data.ts";
import type { GeneralRefusedBy } from "../../rules/general-requirements.ts";
import { NATS_PORT, SERVER_UID } from "./ports.ts";
import { SERVER_SERVICE_PORT, SERVER_TLS_PORT } from "../compass-contract/ports.ts";
import { ISSUER_DISCOVERY_ROLE, JWKS_PATH, KUBE_ROOT_CA, UNAUTHENTICATED_GROUP } from "../compass-contract/interface.ts";
import { SERVER_INTERFACE as F, MASTER_KEY_SECRET, MINTED_ADMIN_TOKEN, SECRETSPEC } from "./interface.ts";

const SERVER = ["compass-server"];

export const CS = defineRequirements({
  "CS-01": {
    summary: "One Server pod: a Deployment with replicas: 1 and strategy Recreate",
    fix: "run the Server as one Deployment with replicas: 1 and strategy: {type: Recreate}",
    why: "D1: one Server per Runner; a rolling update or a second replica would run two Servers against one database and one Runner",
    severity: "error",
    reads:
      "the Server by its labels or, unlabelled, by what its pod runs (its image, --runner-clusters, COMPASS_DATABASE_DSN); the same Deployment given twice is one",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["replicas"], value: 3 }], path: "replicas" },
  },
  "CS-02": {
    summary: "The Server runs as uid and gid 65532 (non-root, read-only root: G-06; by digest: G-05)",
    fix: `set runAsUser: ${SERVER_UID} and runAsGroup: ${SERVER_UID} on the Server pod`,
    why: "D2: the Server image is a nix closure on distroless, built to run as the nonroot user 65532",
    severity: "error",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["securityContext"], value: { runAsUser: 0 } }], path: "securityContext" },
  },
  "CS-03": {
    summary: "Postgres is user-provided: no database workload, no volume claim, no init container; the DSN comes from a Secret",
    fix: `remove any Postgres object and init container; feed ${F.database.env} from a secretKeyRef (or pass --database $(VAR) of such a variable); the Server migrates at boot`,
    why: "D3: Postgres is user-provided and never rendered; migrations run at boot, so nothing runs before the Server. The DSN carries the database password",
    severity: "error",
    reads:
      "COMPASS_DATABASE_DSN or --database in any of Go's flag spellings, through envFrom, configMapKeyRef and $(VAR); a value an envFrom outside the input may set is not judged",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["database", "bundled"], value: true }], path: "database.bundled" },
  },
  "CS-04": {
    summary: "Every Server secret is referenced by Secret name: none is written into a ConfigMap, an argument or an environment value",
    fix: "move the secret into a Secret and reference it by name: a secretKeyRef, or a file of a Secret volume named by its path",
    why: "D4: secrets by name; a connection string with a password or a private key in a ConfigMap is a secret in the manifests",
    severity: "error",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["forge", "appId"], value: "123456" }], path: "forge.appId" },
  },
  "CS-05": {
    summary: `The master key reaches the Server through --secret-provider as a file of a Secret volume (SecretSpec ${MASTER_KEY_SECRET}), never through an environment variable`,
    fix: `pass --secret-provider ${SECRETSPEC.scheme}://<root> and mount the master key's Secret key by subPath at <root>/${SECRETSPEC.project}/${SECRETSPEC.profile}/${MASTER_KEY_SECRET} (defaultMode 0400); remove any master key variable`,
    why: "D4: a boot-only master key; an environment variable stays readable in the process for its whole life (inferred). compass-server resolves the key through SecretSpec (RigelBuild/compass go/server/serve.go); SecretSpec's file provider reads one file per secret and refuses symbolic links, which a Secret volume is made of",
    severity: "error",
    reads:
      "--secret-provider in any flag spelling or its variable; the master key's file path cleaned (file:///a//b/./c opens /a/b/c) against cleaned mount paths",
    profiles: SERVER,
    refusedBy: {
      edits: [
        { at: ["masterKey", "key"], delete: true },
        { at: ["masterKey", "env"], value: "COMPASS_MASTER_KEY" },
      ],
      path: "masterKey.env",
    },
  },
  "CS-06": {
    summary:
      "The admin token never travels in a variable; passed as --admin-token-file (P4), it is a 0400 file of a Secret volume. Without P4 the Server mints it under --state-dir",
    fix: "remove any admin token variable; with a P4 Server, mount the admin token's Secret with defaultMode: 0400 (256) and pass --admin-token-file <path>",
    why: `P4: the Server reads its admin token from a private file of a Secret volume. The released Server has no --admin-token-file: it mints <state-dir>/${MINTED_ADMIN_TOKEN} (mode 0600) and will not reuse a Secret-volume file (a symbolic link) there`,
    severity: "error",
    reads:
      "--admin-token-file in any flag spelling; its path cleaned (`//`, `./`, `..`) and relative to workingDir, against cleaned mount paths and item paths",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["adminToken"], value: { name: "compass-admin-token", env: "COMPASS_ADMIN_TOKEN" } }], path: "adminToken.env" },
  },
  "CS-07": {
    summary:
      "NATS uses password auth: the Server's NATS URL, which carries the credentials, comes from a Secret; a bundled NATS is one pod with a password, reachable only from the Server",
    fix: `feed ${F.natsUrl.env} (nats://user:password@host:${NATS_PORT}) from a secretKeyRef; for a bundled NATS: one replica, authorization with a password from a Secret, and a NetworkPolicy admitting only the Server pods on ${NATS_PORT}`,
    why: "D5: NATS with password auth; an open NATS lets anyone in the cluster speak for the Server. compass-server has no NATS user or password setting: the credentials travel in the URL",
    severity: "error",
    reads:
      "COMPASS_NATS_URL or --nats-url in any flag spelling, through envFrom, configMapKeyRef and $(VAR); NetworkPolicy peers by what they select: matchLabels or matchExpressions, a peer's namespaceSelector pinned to its own namespace",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["nats", "passwordSecret"], delete: true }], path: "nats.passwordSecret" },
  },
  "CS-08": {
    summary: `The Server terminates TLS: --listen with --tls-cert and --tls-key from its mounted kubernetes.io/tls Secret; its Service maps ${SERVER_SERVICE_PORT} to the listen port; no Ingress in front`,
    fix: `pass --listen :${SERVER_TLS_PORT}, --tls-cert and --tls-key naming files of the TLS Secret's volume; declare that containerPort; expose Service port ${SERVER_SERVICE_PORT} with targetPort the listen port, under annotations the API server accepts (qualified-name keys, string values); remove any Ingress`,
    why: "D6: the Server terminates TLS; a proxy that decrypts in front would see Runner tokens and admin requests. Runners reach the Server only on its --listen door",
    severity: "error",
    reads: "--listen, --tls-cert and --tls-key in any flag spelling, paths cleaned; a Service in front of the Server by its labels or its selector",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["tls"], delete: true }], path: "tls" },
  },
  "CS-09": {
    summary:
      "--runner-clusters names a mounted file in the Server's schema that lists the Runner's cluster: name, issuer, namespace, serviceAccount, audience compass-runner, maxTokenLifetime as a Go duration",
    fix: `pass --runner-clusters (or ${F.runnerClusters.env}) naming a ConfigMap key mounted in the pod, holding clusters: [{name, issuer, namespace, serviceAccount, maxTokenLifetime: 600s or more}] and no other key`,
    why: "The Server accepts a Runner's projected token only through a cluster entry that matches it (CR-03, CR-04); it refuses to start on a file with an unknown key, a second document, a bad name, a shared issuer or a lifetime below 600 s",
    severity: "error",
    reads:
      "--runner-clusters or COMPASS_RUNNER_CLUSTERS in any spelling, through envFrom, configMapKeyRef and $(VAR), its path cleaned against mounts and ConfigMap item paths; the file with yaml.v3 semantics",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["runnerClusters"], value: [] }], path: "runnerClusters" },
  },
  "CS-10": {
    summary: "The Server (and its bundled NATS) is not pinned to an architecture",
    fix: "remove the architecture pin (values: arch, or kubernetes.io/arch in nodeSelector; manifests: kubernetes.io/arch in nodeSelector and node affinity); the images are multi-arch (amd64 and arm64)",
    why: "D10: every image is multi-arch; an architecture pin strands the Server when nodes of that architecture are gone",
    severity: "error",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["nodeSelector"], value: { "kubernetes.io/arch": "arm64" } }], path: 'nodeSelector["kubernetes.io/arch"]' },
  },
  "CS-11": {
    summary: `A NetworkPolicy for the Server: ingress only on ${SERVER_TLS_PORT}; egress only to named destinations (DNS, Postgres, NATS, forge hosts)`,
    fix: `select the Server pods with a NetworkPolicy of types Ingress and Egress: ingress rules on port ${SERVER_TLS_PORT} only; egress to DNS, Postgres, NATS and the forge's ranges, never to everything`,
    why: "Without it every pod in the cluster reaches the Server's other ports, and the Server reaches everything",
    severity: "error",
    reads:
      "policies selecting the Server by matchLabels or matchExpressions; ingress ports by number, range (endPort) or name, a name resolved against the Server pod's container ports",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["database", "cidr"], value: "db.example.net" }], path: "database.cidr" },
  },
  "CS-12": {
    summary: "Postgres 16 or later; the owner is a superuser, or a role with CREATEROLE and BYPASSRLS",
    fix: "upgrade Postgres to 16 or later and give the Server's owner role SUPERUSER, or CREATEROLE and BYPASSRLS",
    why: "D3 sets the floor: Postgres 16 or later, owned by a superuser or by a role with CREATEROLE and BYPASSRLS",
    judged: {
      by: "not-manifests",
      from: "a live database: manifests do not show the Postgres version or roles; `rigging preflight postgres` checks them against the server",
    },
    severity: "error",
    profiles: SERVER,
    noValues: "the Postgres version and roles live in the database, which values only name; `rigging preflight postgres` judges them",
  },
  "CS-13": {
    summary:
      "The Server speaks compass-server's real interface: only its own flags and variables, --socket and --state-dir on writable volumes; the bundled NATS has JetStream on, its stores bounded, the memory store below NATS's memory limit",
    fix: "use only compass-server's flags and variables (rigging explain CS-13, docs/compass-server.md); pass --socket and --state-dir under emptyDir mounts; turn JetStream on in the bundled NATS (a jetstream block whose store_dir is a size-bounded emptyDir, and whose max_memory_store is well below the NATS container's memory limit); with the reviewer App, list --forge-scope-grants (or pass --forge-disable-scope-enforcement=true)",
    why: "compass-server exits with a usage error (2) on a flag it does not know, ignores a variable it does not read (COMPASS_DATABASE_URL leaves it without a DSN), must write its socket and state under a read-only root, and its event fabric needs JetStream; with the reviewer App and scope enforcement on, its default, it refuses every agent forge write without a grant. JetStream keeps its memory store in nats-server's own memory, so a max_memory_store at or above the NATS container's memory limit gets NATS OOM-killed once the store fills",
    inValues:
      "`nats.jetstream.maxFileStoreMiB` and `maxMemoryStoreMiB` bound the bundled NATS's stores; `maxMemoryStoreMiB` at or above `nats.resources.limits.memory` (by value: `256Mi` is 256 MiB, `1Gi` is 1024) is refused.",
    severity: "error",
    reads:
      "the Server's flags as Go's flag package parses them (-flag, --flag, -flag=v, --flag v); --socket and --state-dir paths cleaned; the NATS configuration by nats-server's grammar, max_memory_store as nats-server reads it (unquoted 1G is 10^9 bytes and 1GB is 1024 MiB; a quoted 1G is 1024 MiB), against the container's memory limit by value; a configuration or include outside the input leaves it not judged",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["config"], value: { listen: ":8443" } }], path: "config" },
  },
  "CS-14": {
    summary: "A designed flag (P4 --admin-token-file) needs a Compass Server with that task: the released Server exits 2 on it",
    fix: "run a Compass Server with P4, or remove --admin-token-file: the released Server mints <state-dir>/admin-token",
    why: "The Compass Server-on-Kubernetes design plans task P4 and lists it as to do; no released compass-server declares --admin-token-file, and Go's flag package exits 2 on an unknown flag",
    source: {
      from: "rigging",
      says: "a manifest does not say which Compass release runs it: a Server with task P4 of the Compass Server-on-Kubernetes design reads --admin-token-file, the released one exits 2 on it",
    },
    severity: "warning",
    profiles: SERVER,
    refusedBy: { edits: [{ at: ["designed"], value: { P4: true } }], path: "adminToken" },
  },
  "CS-15": {
    summary:
      "The Server can read each runner cluster's keys: for the cluster's own API server as issuer, a jwksFile, or its CA as caFile and issuer discovery bound to system:unauthenticated",
    fix: `give the entry a jwksFile filled from kubectl get --raw ${JWKS_PATH} (mounted in the Server); or mount the ${KUBE_ROOT_CA.configMap} ConfigMap as its caFile and apply a ClusterRoleBinding of ${ISSUER_DISCOVERY_ROLE} to the group ${UNAUTHENTICATED_GROUP}`,
    why: "The Server fetches <issuer>/.well-known/openid-configuration and its jwks_uri with the system roots unless caFile is set, and sends no credentials (RigelBuild/compass go/internal/auth/workload_identity.go). An API server is signed by the cluster CA and serves discovery only to service accounts by default; the keys stay unavailable, the Runner gets CodeUnavailable and exits after its retries",
    source: {
      from: "upstream",
      says: "RigelBuild/compass go/internal/auth/workload_identity.go (system roots, no credentials); Kubernetes service account issuer discovery (bound to system:serviceaccounts only)",
    },
    severity: "error",
    reads:
      "any ClusterRoleBinding of the set to system:unauthenticated or system:anonymous whose ClusterRole grants get on discovery and keys: the built-in role, or rules of the input in any order (verbs and nonResourceURLs as sets, `*` prefixes)",
    profiles: SERVER,
    refusedBy: {
      edits: [
        { at: ["server", "cluster", "jwksFile"], delete: true },
        { at: ["server", "issuerEgress"], value: [{ cidr: "10.96.0.1/32", ports: [{ port: 443 }] }] },
      ],
      path: "server.cluster.issuer",
      example: "examples/compass.yaml",
    },
  },
});

/** How the Compass Server's values break the general requirements: its record carries them. */
export const CS_GENERAL_REFUSED_BY: GeneralRefusedBy = {
  "G-01": { edits: [{ at: ["designed"], value: { P9: true } }], path: "designed.P9" },
  "G-05": { edits: [{ at: ["nats", "image"], value: "nats:2.10" }], path: "nats.image" },
  "G-08": { edits: [{ at: ["resources", "limits", "memory"], value: "a lot" }], path: "resources.limits.memory" },
};
