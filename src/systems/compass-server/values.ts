// Values of the Compass Server on Kubernetes (its design's D1-D10, P2, P4, P9),
// in the names of compass-server's own flags where it has them (CS-13).
import { z } from "zod";
import { egressRuleSchema, cidrSchema, hardeningGuards, httpsUrl, nodeSelectorSchema, resourcesSchema, tolerationSchema } from "../../values/common-values.ts";
import { imageSchema } from "../../values/image.ts";
import { annotationsSchema, DNS1123_SUBDOMAIN, dnsLabel, dnsSubdomain } from "../../k8s/names.ts";
import { eachCheck, fail, once, refineBy, refused, req, tagged, type IssueSink } from "../../values/values.ts";
import { checkForgeWrites, forgeSchema } from "./forge.ts";
import { natsSchema } from "./nats.ts";
import { inClusterIssuer, ISSUER_DISCOVERY_ROLE, JWKS_PATH, UNAUTHENTICATED_GROUP } from "../compass-contract/interface.ts";
import { NOT_READ } from "./interface.ts";
import { RUNNER_CLUSTERS_SCHEMA } from "../compass-contract/interface.ts";
import { CS } from "./requirements.ts";
import { secretKeyReference, secretReference } from "./secret-refs.ts";

export const SERVER_RESOURCES = { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } };
/** The Server's own default and floor for maxTokenLifetime (runner_clusters.go). */
export const DEFAULT_MAX_TOKEN_LIFETIME = RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds;
/** No projected token lives longer (TokenRequest's own ceiling); a longer bound admits nothing more. */
export const MAX_TOKEN_LIFETIME = 4294967296;
export const ARCH_LABELS = ["kubernetes.io/arch", "beta.kubernetes.io/arch"] as const;

/** An object name the Service can carry too: a DNS-1035 label, with room for suffixes. */
const instanceName = once(() =>
  z
    .string()
    .max(40, req("G-07", "name is at most 40 characters, leaving room for the -runner-clusters suffix"))
    .regex(
      /^[a-z]([-a-z0-9]*[a-z0-9])?$/,
      req("G-07", "is not a DNS-1035 label", "name is lowercase letters, digits and '-', starting with a letter (it names the Service)"),
    )
    .default("compass-server")
    .meta({ description: "Instance name: object names and app.kubernetes.io/instance" }),
);

/** maxTokenLifetime in whole seconds; the file gets it as a Go duration (`<n>s`). */
export const maxTokenLifetime = once(() =>
  z
    .number(req("CS-09", "maxTokenLifetime is a whole number of seconds, such as 86400 (not a string)"))
    .int(req("CS-09", "maxTokenLifetime is a whole number of seconds"))
    .min(
      RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds,
      req("CS-09", `the Server refuses a maxTokenLifetime below ${RUNNER_CLUSTERS_SCHEMA.minLifetimeSeconds} s (the TokenRequest minimum)`),
    )
    .max(MAX_TOKEN_LIFETIME, req("CS-09", `no projected token lives longer than ${MAX_TOKEN_LIFETIME} s`)),
);

const configMapFile = (what: string, defaultKey: string) =>
  z
    .strictObject({
      configMap: dnsSubdomain("CS-09", `the ConfigMap holding ${what}`),
      key: z
        .string()
        .max(253, req("CS-09", "a ConfigMap key is at most 253 of [-._a-zA-Z0-9]"))
        .regex(/^[-._a-zA-Z0-9]+$/, req("CS-09", "is not a ConfigMap key", "a ConfigMap key is made of [-._a-zA-Z0-9]"))
        .default(defaultKey),
    })
    .meta({ description: `${what}: {configMap, key} (key default ${defaultKey}), mounted into the Server and named by path in the file` });

/** The fields of one cluster entry, for a profile that assembles its own entry (kind: Compass). */
export const clusterEntryFields = once(() => ({
  name: z
    .string(req("CS-09", "expected a name", "give the entry a name of [a-z0-9-]{1,40}, such as local"))
    .regex(
      RUNNER_CLUSTERS_SCHEMA.name,
      req("CS-09", "is not [a-z0-9-]{1,40}", "a cluster entry name is 1 to 40 of [a-z0-9-] (the first segment of the Runner ID)"),
    )
    .meta({ description: "The entry's name, [a-z0-9-]{1,40}: the first segment of every Runner ID it authenticates" }),
  issuer: httpsUrl("CS-09", "issuer").meta({
    description: "The cluster's service-account issuer, exactly as its tokens carry it in iss (kubectl get --raw /.well-known/openid-configuration)",
  }),
  audience: z
    .literal(
      RUNNER_CLUSTERS_SCHEMA.defaultAudience,
      req("CS-09", `the Runner's projected token carries audience ${RUNNER_CLUSTERS_SCHEMA.defaultAudience} (CR-03, CR-04)`),
    )
    .default(RUNNER_CLUSTERS_SCHEMA.defaultAudience),
  namespace: dnsLabel("CS-09", "the Runner's namespace"),
  serviceAccount: dnsSubdomain("CS-09", "the Runner's ServiceAccount"),
  maxTokenLifetime: maxTokenLifetime()
    .default(DEFAULT_MAX_TOKEN_LIFETIME)
    .meta({ description: "Upper bound on a Runner token's exp - iat, in seconds (written as a Go duration such as 86400s)" }),
  jwksURI: httpsUrl("CS-09", "jwksURI").optional().meta({ description: "An https:// JWKS URL in place of the issuer's discovery; excludes jwksFile" }),
  jwksFile: configMapFile("a static JWKS (every key rotation is a Server rollout)", "jwks.json").optional(),
  caFile: configMapFile("the PEM CA of a private issuer (default for the cluster's own API server: kube-root-ca.crt)", "ca.crt").optional(),
  allowUnauthenticatedDiscovery: z
    .boolean(req("CS-15", "allowUnauthenticatedDiscovery is true or false"))
    .default(false)
    .meta({
      description: `For the cluster's own API server as issuer: render a ClusterRoleBinding of ${ISSUER_DISCOVERY_ROLE} to ${UNAUTHENTICATED_GROUP}, so the Server can fetch discovery and keys without credentials (anyone who reaches the API server can then read them). The other way is jwksFile`,
    }),
}));

/** One entry of the Server's --runner-clusters file (CS-09), in the Server's own keys. */
export const clusterEntrySchema = once(() => refineBy(z.strictObject(clusterEntryFields()), checkJwksSource));

/** A cluster entry's keys come from jwksURI, jwksFile or the issuer's discovery: never from two (CS-09). */
export function checkJwksSource(entry: { jwksURI?: string; jwksFile?: object }, ctx: IssueSink): void {
  if (entry.jwksURI !== undefined && entry.jwksFile !== undefined)
    fail(ctx, ["jwksFile"], "CS-09", "is given with jwksURI", "give jwksURI or jwksFile, not both: the Server refuses the two together");
}

export type ClusterEntry = z.output<ReturnType<typeof clusterEntrySchema>>;

/** Opt-ins to what the Compass Server-on-Kubernetes design plans and no released Server reads (CS-14): one per task. */
export const designedSchema = once(() =>
  z
    .strictObject({
      P4: z.boolean(req("CS-14", "designed.P4 is true or false")).default(false).meta({
        description:
          "P4 (a task of the Compass Server-on-Kubernetes design): read the admin token from a Secret volume (--admin-token-file). Needs a Compass Server with P4; the released one exits 2 on the flag",
      }),
    })
    .default({ P4: false })
    .meta({
      description:
        "Interfaces the Compass Server-on-Kubernetes design plans, each opted into by its task; off by default, so the released Server starts (CS-14)",
    }),
);

const FROM_PROVIDER_FIX = (what: string) =>
  `${what} reaches the Server through --secret-provider as a file of a Secret volume, never through an environment variable: give {name, key} of its Secret`;

/** Every key of the Server's values except `kind` and `runnerClusters`. */
export const serverFields = once(() => ({
  name: instanceName(),
  namespace: dnsLabel("G-07", "namespace").default("compass"),
  createNamespace: z.boolean().default(true).meta({ description: "Render the Namespace (Pod Security level restricted, G-10)" }),
  serviceAccount: dnsSubdomain("G-07", "serviceAccount").default("compass-server"),
  image: imageSchema(),
  replicas: z.literal(1, req("CS-01", "the Server is one pod (D1): replicas is 1")).default(1),
  strategy: z.literal("Recreate", req("CS-01", "the Server is one pod (D1): strategy is Recreate, so an update never runs two Servers")).default("Recreate"),
  publicHost: z
    .string(req("CS-08", "give publicHost, the DNS name on the Server's certificate, such as compass.example.com"))
    .max(253, req("CS-08", "publicHost is a DNS name of at most 253 characters"))
    .regex(DNS1123_SUBDOMAIN, req("CS-08", "is not a DNS name", "publicHost is a lowercase DNS name such as compass.example.com, without a scheme or port"))
    .meta({ description: "The public DNS name on the Server's certificate; --public-url is https://<publicHost>, and Runners verify it (P9)" }),
  tls: secretReference("CS-08", "the Server's certificate and key (kubernetes.io/tls)").meta({
    description: "The kubernetes.io/tls Secret (tls.crt, tls.key), mounted and passed as --tls-cert and --tls-key (CS-08)",
  }),
  service: z
    .strictObject({
      type: z.enum(["ClusterIP", "LoadBalancer", "NodePort"], req("CS-08", "service.type is ClusterIP, LoadBalancer or NodePort")).default("ClusterIP"),
      annotations: annotationsSchema("CS-08").default({}),
    })
    .default({ type: "ClusterIP", annotations: {} })
    .meta({ description: "The Service that exposes 443 to the Server's TLS port; a load balancer in front must pass TLS through" }),
  database: z.strictObject(
    {
      dsnSecret: secretKeyReference("CS-03", "the Postgres DSN", "dsn").meta({
        description: "The Secret key holding the Postgres DSN, fed to COMPASS_DATABASE_DSN (CS-03)",
      }),
      cidr: cidrSchema("CS-11", "give Postgres's address range in CIDR notation, such as 10.0.5.10/32"),
      port: z.number().int().min(1, req("CS-11", "a port is 1..65535")).max(65535, req("CS-11", "a port is 1..65535")).default(5432),
      urlSecret: refused("CS-13", `the Server reads its DSN from ${NOT_READ.COMPASS_DATABASE_URL}: name that Secret key in database.dsnSecret`),
      bundled: refused(
        "CS-03",
        "Postgres is user-provided and never rendered (D3): create it outside, put its DSN in a Secret and name it in database.dsnSecret",
      ),
      image: refused("CS-03", "Postgres is user-provided and never rendered (D3): rigging renders no database"),
    },
    {
      error: (issue) =>
        issue.code === "invalid_type"
          ? tagged(
              "CS-03",
              issue.input === undefined ? "is missing" : "expected a mapping",
              "give database.dsnSecret (the Secret holding the Postgres DSN) and database.cidr (where Postgres is)",
            )
          : undefined,
    },
  ),
  masterKey: secretKeyReference("CS-05", "the master key", "master-key", {
    env: refused("CS-05", FROM_PROVIDER_FIX("the master key")),
  }).meta({
    description:
      "The Secret key holding the master key (64 hex characters), mounted 0400 as the SecretSpec secret COMPASS_MASTER_KEY that --secret-provider reads (CS-05)",
  }),
  designed: designedSchema(),
  adminToken: secretKeyReference("CS-06", "the admin token", "token", {
    env: refused(
      "CS-06",
      "the admin token is a 0400 file of a Secret volume passed as --admin-token-file (P4), never an environment variable: give {name, key} of its Secret",
    ),
  })
    .optional()
    .meta({
      description:
        "With designed.P4 only: the Secret key holding the admin token, mounted 0400 and passed as --admin-token-file (CS-06). Without P4 the Server mints <state-dir>/admin-token",
    }),
  nats: natsSchema(),
  forge: forgeSchema().optional(),
  issuerEgress: z.array(egressRuleSchema("CS-11")).optional().meta({
    description:
      "Where the Server fetches each cluster's OIDC discovery and JWKS over https (the issuer, or jwksURI): address ranges for its egress. Not needed when every entry has a jwksFile",
  }),
  nodeSelector: nodeSelectorSchema("CS-10").default({}),
  tolerations: z.array(tolerationSchema("CS-10")).default([]),
  resources: resourcesSchema("G-08", SERVER_RESOURCES),
  postgres: refused("CS-03", "Postgres is user-provided and never rendered (D3): name its DSN's Secret in database.dsnSecret"),
  initContainers: refused("CS-03", "no init container: the Server runs its migrations at boot (D3)"),
  migrations: refused("CS-03", "the Server runs its migrations at boot (D3); there is no migration job or init container"),
  ingress: refused(
    "CS-08",
    "the Server terminates TLS itself (D6): expose the Service (LoadBalancer or TLS passthrough), never an Ingress that terminates TLS",
  ),
  config: refused("CS-13", `compass-server has no configuration file: ${NOT_READ["--config"]}`),
  ...hardeningGuards(),
  securityContext: refused("CS-02", "the Server runs as 65532:65532, non-root, on a read-only root; rigging sets the security context"),
  podSecurityContext: refused("CS-02", "the Server runs as 65532:65532, non-root, on a read-only root; rigging sets the security context"),
  arch: refused("CS-10", CS["CS-10"].fix),
}));

const serverObject = once(() => z.strictObject(serverFields()));
export type ServerFields = z.output<ReturnType<typeof serverObject>>;
export type CompassServerValues = ServerFields & { runnerClusters: ClusterEntry[] };

/** Checks that need more than one key; `at` prefixes paths in a combined file. */
export function checkServer(v: ServerFields, ctx: IssueSink, at: PropertyKey[] = []): void {
  eachCheck(
    () => checkAdminToken(v, ctx, at),
    () => {
      if (v.forge) checkForgeWrites(v.forge, ctx, [...at, "forge"]);
    },
    () => {
      for (const label of ARCH_LABELS) {
        if (v.nodeSelector[label] !== undefined)
          fail(ctx, [...at, "nodeSelector", label], "CS-10", `pins the Server to ${v.nodeSelector[label]}`, CS["CS-10"].fix);
      }
    },
  );
}

/** CS-15: the Server fetches keys without credentials, so the cluster's own API server needs its CA and a jwksFile or open discovery. */
export function checkKeySource(
  c: Pick<ClusterEntry, "issuer" | "jwksURI" | "jwksFile" | "allowUnauthenticatedDiscovery">,
  path: (key: string) => PropertyKey[],
  ctx: IssueSink,
): void {
  const local = inClusterIssuer(c.issuer);
  const fetchesLocally = c.jwksFile === undefined && (c.jwksURI === undefined || inClusterIssuer(c.jwksURI));
  if (local && fetchesLocally && !c.allowUnauthenticatedDiscovery)
    fail(
      ctx,
      path("issuer"),
      "CS-15",
      "is this cluster's API server, whose discovery and keys need credentials the Server does not send",
      `give jwksFile: {configMap: <name>} and fill it from kubectl get --raw ${JWKS_PATH}, or set allowUnauthenticatedDiscovery: true to bind ${ISSUER_DISCOVERY_ROLE} to ${UNAUTHENTICATED_GROUP}`,
    );
  else if (!local && c.allowUnauthenticatedDiscovery)
    fail(
      ctx,
      path("allowUnauthenticatedDiscovery"),
      "CS-15",
      "opens this cluster's issuer discovery, but the issuer is not this cluster's API server",
      "remove it: a public issuer serves its discovery and keys to anyone",
    );
}

/** P4 is opted into by designed.P4, and needs the Secret it reads (CS-14, CS-06). */
export function checkAdminToken(v: Pick<ServerFields, "designed" | "adminToken">, ctx: IssueSink, at: PropertyKey[] = []): void {
  if (v.designed.P4 && v.adminToken === undefined)
    fail(
      ctx,
      [...at, "adminToken"],
      "CS-14",
      "is missing, but designed.P4 asks for --admin-token-file",
      "give adminToken: {name, key} of the Secret holding the admin token, or remove designed.P4",
    );
  else if (!v.designed.P4 && v.adminToken !== undefined)
    fail(
      ctx,
      [...at, "adminToken"],
      "CS-14",
      "is read only through --admin-token-file, which no released Server has (P4)",
      "set designed.P4: true for a Compass Server with P4, or remove adminToken: the released Server mints <state-dir>/admin-token",
    );
}

/** The cluster entries against each other and the Server (CS-09, CS-11); `at.clusters` is where they are. */
export function checkClusters(
  clusters: readonly ClusterEntry[],
  ctx: IssueSink,
  at: { server?: PropertyKey[]; clusters?: PropertyKey[]; list?: boolean } = {},
  server?: Pick<ServerFields, "issuerEgress">,
): void {
  const base = at.clusters ?? ["runnerClusters"];
  const path = (index: number, key: string) => (at.list === false ? [...base, key] : [...base, index, key]);
  const names = new Set<string>();
  const issuers = new Map<string, string>();
  clusters.forEach((cluster, index) => {
    if (names.has(cluster.name))
      fail(
        ctx,
        path(index, "name"),
        "CS-09",
        `repeats the cluster entry name ${cluster.name}`,
        "give each cluster entry its own name: the Server refuses a duplicate",
      );
    names.add(cluster.name);
    const issuer = cluster.issuer.replace(/\/$/, "");
    const other = issuers.get(issuer);
    if (other !== undefined)
      fail(
        ctx,
        path(index, "issuer"),
        "CS-09",
        `is entry ${other}'s issuer too`,
        "give each cluster its own issuer (compared without a trailing /): the Server refuses a shared one, which would let one cluster mint another's Runner IDs",
      );
    else issuers.set(issuer, cluster.name);
    checkKeySource(cluster, (key) => path(index, key), ctx);
  });
  const fetches = clusters.some((c) => c.jwksFile === undefined);
  if (server && fetches && (server.issuerEgress ?? []).length === 0) {
    fail(
      ctx,
      [...(at.server ?? []), "issuerEgress"],
      "CS-11",
      "is missing, but the Server fetches a cluster's OIDC discovery and JWKS over https",
      "list the address ranges of the issuers (or of jwksURI), such as the API server's: kubectl get endpoints kubernetes -n default; or give every entry a jwksFile",
    );
  }
}

export const compassServerSchema = once(() =>
  refineBy(
    z.strictObject({
      kind: z.literal("CompassServer"),
      ...serverFields(),
      runnerClusters: z
        .array(clusterEntrySchema(), req("CS-09", "list the Server's runner clusters: {name, issuer, namespace, serviceAccount, maxTokenLifetime}"))
        .min(1, req("CS-09", "list at least one runner cluster, the Runner's: {name, issuer, namespace, serviceAccount, maxTokenLifetime}"))
        .meta({ description: "The --runner-clusters file (CS-09): the clusters whose projected Runner tokens the Server accepts" }),
      clusters: refused("CS-13", "renamed runnerClusters, after the Server's --runner-clusters flag; each entry also needs the cluster's issuer"),
    }),
    checkCompassServer,
  ).meta({ title: "CompassServer values", description: "rigging values for the Compass Server Deployment" }),
);

/** The checks of a CompassServer file that need more than one key. */
export function checkCompassServer(v: CompassServerValues, ctx: IssueSink): void {
  eachCheck(
    () => checkServer(v, ctx),
    () => checkClusters(v.runnerClusters, ctx, {}, v),
  );
}
