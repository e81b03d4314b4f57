// One values file for the Compass Server and its Runner (CS-09). The
// Server's cluster entry is derived from the Runner section, so the two
// cannot disagree on namespace, ServiceAccount, audience (CR-04) or token
// lifetime (CR-03); the Runner dials the Server's in-cluster Service and
// verifies the certificate's public host (P9).
import { z } from "zod";
import { httpsUrl } from "../../core/common-values.ts";
import { hostName } from "../../core/names.ts";
import { fail, once } from "../../core/values.ts";
import { checkRunner, RUNNER_AUDIENCE, runnerFields, type RunnerFields, type ServerCluster } from "../compass-runner/values.ts";
import { refused, req } from "../../core/values.ts";
import { checkServer, serverFields, type ClusterEntry, type ServerFields } from "../compass-server/values.ts";

const DERIVED = "is derived from the runner section (namespace, serviceAccount, audience compass-runner, maxTokenLifetimeSeconds); remove it";

const clusterSchema = once(() =>
  z
    .strictObject({
      name: z.string().regex(/^[a-z0-9-]{1,40}$/, req("CS-09", "the cluster name is 1 to 40 of [a-z0-9-]; it is the first part of the Runner ID", "is not a cluster name")).default("local"),
      issuer: httpsUrl("CS-09", "server.cluster.issuer").optional().meta({ description: "The Runner cluster's ServiceAccount issuer (kubectl get --raw /.well-known/openid-configuration)" }),
      jwksURI: httpsUrl("CS-09", "server.cluster.jwksURI").optional(),
      jwksFile: z.string().startsWith("/", req("CS-09", "jwksFile is an absolute path inside the Server pod")).optional(),
      caFile: z.string().startsWith("/", req("CS-09", "caFile is an absolute path inside the Server pod")).optional(),
      maxTokenLifetime: refused("CS-09", `server.cluster.maxTokenLifetime ${DERIVED}; set runner.maxTokenLifetimeSeconds`),
      namespace: refused("CS-09", `server.cluster.namespace ${DERIVED}`),
      serviceAccount: refused("CS-09", `server.cluster.serviceAccount ${DERIVED}`),
      audience: refused("CS-09", `server.cluster.audience ${DERIVED}`),
    })
    .superRefine((c, ctx) => {
      if (c.jwksURI !== undefined && c.jwksFile !== undefined) fail(ctx, ["jwksFile"], "CS-09", "is set beside jwksURI", "give jwksURI or jwksFile, not both: the Server refuses both");
    })
    .default({ name: "local" })
    .meta({ description: "The Server's cluster entry for the Runner: its name, issuer and key source; the rest comes from the runner section" }),
);

export const compassSchema = once(() =>
  z
    .strictObject({
      kind: z.literal("Compass"),
      server: z.strictObject({
        ...serverFields(),
        cluster: clusterSchema(),
        clusters: refused("CS-09", "in a kind: Compass file the cluster entry is derived from the runner section; set server.cluster.{name, maxTokenLifetime} if needed"),
      }),
      runner: z.strictObject({
        ...runnerFields(),
        serverAddr: httpsUrl("CR-02", "runner.serverAddr").optional().meta({ description: "Default: the Server's in-cluster Service, https://<server.name>.<server.namespace>.svc" }),
        serverName: hostName("CR-14", "runner.serverName").optional().meta({ description: "Default: server.publicHost, the name on the Server's certificate (P9)" }),
        serverCluster: refused("CS-09", "in a kind: Compass file the Server's cluster entry is derived from this section; set server.cluster.{name, issuer}"),
      }),
    })
    .superRefine((v, ctx) => {
      checkServer(v.server, ctx, ["server"]);
      const runner = runnerOf(v);
      checkRunner(runner, ctx, ["runner"]);
      if (v.server.namespace === v.runner.namespace) {
        fail(ctx, ["server", "namespace"], "CR-06", `is the Runner's namespace ${v.runner.namespace} too`, "give the Server its own namespace: the Runner namespace holds only Runner pods");
      }
    })
    .meta({ title: "Compass values", description: "rigging values for the Compass Server and its Runner in one file" }),
);

export type CompassValues = z.output<ReturnType<typeof compassSchema>>;

/** The Server's cluster entry, from the Runner (CS-09). */
export function clusterOf(v: CompassValues): ClusterEntry {
  return { name: v.server.cluster.name, namespace: v.runner.namespace, serviceAccount: v.runner.serviceAccount, audience: RUNNER_AUDIENCE, maxTokenLifetime: v.runner.maxTokenLifetimeSeconds };
}

/** The in-cluster address of the Server's Service. */
export function serverServiceUrl(server: Pick<ServerFields, "name" | "namespace">): string {
  return `https://${server.name}.${server.namespace}.svc`;
}

/** The Runner's values with the Server's address and name filled in. */
export function runnerOf(v: CompassValues): RunnerFields & { serverCluster: ServerCluster } {
  const { serverCluster: _unused, ...runner } = v.runner;
  const { name, issuer, jwksURI, jwksFile, caFile } = v.server.cluster;
  return {
    ...runner,
    serverAddr: v.runner.serverAddr ?? serverServiceUrl(v.server),
    serverName: v.runner.serverName ?? v.server.publicHost,
    serverCluster: { name, issuer, jwksURI, jwksFile, caFile },
  };
}

export function serverOf(v: CompassValues): ServerFields {
  const { cluster: _cluster, clusters: _clusters, ...server } = v.server;
  return server;
}
