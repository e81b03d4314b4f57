// One values file for the Compass Server and its Runner (CS-09). The
// Server's cluster entry is derived from the Runner section, so the two
// cannot disagree on namespace, ServiceAccount, audience (CR-04) or token
// lifetime (CR-03); the Runner dials the Server's in-cluster Service and
// verifies the certificate's public host (P9).
import { z } from "zod";
import { httpsUrl } from "../../core/common-values.ts";
import { dnsSubdomain, hostName } from "../../core/names.ts";
import { fail, once } from "../../core/values.ts";
import { checkRunner, checkServerCluster, RUNNER_AUDIENCE, runnerFields, serverCASchema, type RunnerFields } from "../compass-runner/values.ts";
import { refused } from "../../core/values.ts";
import { checkServer, DEFAULT_MAX_TOKEN_LIFETIME, maxTokenLifetime, serverFields, type ClusterEntry, type ServerFields } from "../compass-server/values.ts";

const DERIVED = "is derived from the runner section (namespace, serviceAccount, audience compass-runner); remove it";

const clusterSchema = once(() =>
  z
    .strictObject({
      name: dnsSubdomain("CS-09", "server.cluster.name").default("local"),
      maxTokenLifetime: maxTokenLifetime().default(DEFAULT_MAX_TOKEN_LIFETIME),
      namespace: refused("CS-09", `server.cluster.namespace ${DERIVED}`),
      serviceAccount: refused("CS-09", `server.cluster.serviceAccount ${DERIVED}`),
      audience: refused("CS-09", `server.cluster.audience ${DERIVED}`),
    })
    .default({ name: "local", maxTokenLifetime: DEFAULT_MAX_TOKEN_LIFETIME })
    .meta({ description: `The Server's cluster entry for the Runner: its name and maxTokenLifetime (default ${DEFAULT_MAX_TOKEN_LIFETIME}); the rest comes from the runner section` }),
);

const runnerServer = once(() =>
  z
    .strictObject({
      address: httpsUrl("CR-02", "runner.server.address").optional().meta({ description: "Default: the Server's in-cluster Service, https://<server.name>.<server.namespace>.svc" }),
      serverName: hostName("CR-14", "runner.server.serverName").optional().meta({ description: "Default: server.publicHost, the name on the Server's certificate (P9)" }),
      serverCA: serverCASchema().optional(),
    })
    .default({}),
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
        server: runnerServer(),
        serverCluster: refused("CS-09", "in a kind: Compass file the Server's cluster entry is derived from this section; remove serverCluster"),
      }),
    })
    .superRefine((v, ctx) => {
      checkServer(v.server, ctx, ["server"]);
      const runner = runnerOf(v);
      checkRunner(runner, ctx, ["runner"]);
      checkServerCluster(runner, clusterOf(v), ctx, { runner: ["runner"], cluster: ["server", "cluster"] });
      if (v.server.namespace === v.runner.namespace) {
        fail(ctx, ["server", "namespace"], "CR-06", `is the Runner's namespace ${v.runner.namespace} too`, "give the Server its own namespace: the Runner namespace holds only Runner pods");
      }
    })
    .meta({ title: "Compass values", description: "rigging values for the Compass Server and its Runner in one file" }),
);

export type CompassValues = z.output<ReturnType<typeof compassSchema>>;

/** The Server's cluster entry, from the Runner (CS-09). */
export function clusterOf(v: CompassValues): ClusterEntry {
  return { name: v.server.cluster.name, namespace: v.runner.namespace, serviceAccount: v.runner.serviceAccount, audience: RUNNER_AUDIENCE, maxTokenLifetime: v.server.cluster.maxTokenLifetime };
}

/** The in-cluster address of the Server's Service. */
export function serverServiceUrl(server: Pick<ServerFields, "name" | "namespace">): string {
  return `https://${server.name}.${server.namespace}.svc`;
}

/** The Runner's values with the Server's address and name filled in. */
export function runnerOf(v: CompassValues): RunnerFields {
  const { serverCluster: _unused, ...runner } = v.runner;
  const server: RunnerFields["server"] = {
    address: v.runner.server.address ?? serverServiceUrl(v.server),
    serverName: v.runner.server.serverName ?? v.server.publicHost,
  };
  if (v.runner.server.serverCA) server.serverCA = v.runner.server.serverCA;
  return { ...runner, server };
}

export function serverOf(v: CompassValues): ServerFields {
  const { cluster: _cluster, clusters: _clusters, ...server } = v.server;
  return server;
}
