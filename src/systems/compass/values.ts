// One values file for the Server and its Runner (CS-09): the cluster entry is
// derived from the Runner section so the two cannot disagree.
import { z } from "zod";
import { httpsUrl } from "../../values/common-values.ts";
import { hostName } from "../../k8s/names.ts";
import { eachCheck, fail, once, refineBy, refused, type IssueSink } from "../../values/values.ts";
import { checkRunner, RUNNER_AUDIENCE, runnerFields, type RunnerFields } from "../compass-runner/values.ts";
import {
  checkClusters,
  checkJwksSource,
  checkServer,
  clusterEntryFields,
  serverFields,
  type ClusterEntry,
  type ServerFields,
} from "../compass-server/values.ts";

const DERIVED = "is derived from the runner section (namespace, serviceAccount, audience compass-runner, maxTokenLifetimeSeconds); remove it";

const clusterSchema = once(() => {
  const { name, issuer, jwksURI, jwksFile, caFile, allowUnauthenticatedDiscovery } = clusterEntryFields();
  return refineBy(
    z.strictObject({
      name: name.default("local"),
      issuer,
      jwksURI,
      jwksFile,
      caFile,
      allowUnauthenticatedDiscovery,
      maxTokenLifetime: refused("CS-09", `server.cluster.maxTokenLifetime ${DERIVED}; set runner.maxTokenLifetimeSeconds`),
      namespace: refused("CS-09", `server.cluster.namespace ${DERIVED}`),
      serviceAccount: refused("CS-09", `server.cluster.serviceAccount ${DERIVED}`),
      audience: refused("CS-09", `server.cluster.audience ${DERIVED}`),
    }),
    checkJwksSource,
  ).meta({
    description:
      "The Server's cluster entry for the Runner: its name, the cluster's issuer and where keys come from; namespace, serviceAccount, audience and maxTokenLifetime come from the runner section",
  });
});

const compassObject = once(() =>
  z.strictObject({
    kind: z.literal("Compass"),
    server: z.strictObject({
      ...serverFields(),
      cluster: clusterSchema(),
      runnerClusters: refused("CS-09", "in a kind: Compass file the cluster entry is derived from the runner section; set server.cluster.{name, issuer}"),
      clusters: refused("CS-09", "in a kind: Compass file the cluster entry is derived from the runner section; set server.cluster.{name, issuer}"),
    }),
    runner: z.strictObject({
      ...runnerFields(),
      serverAddr: httpsUrl("CR-02", "runner.serverAddr")
        .optional()
        .meta({ description: "Default: the Server's in-cluster Service, https://<server.name>.<server.namespace>.svc" }),
      serverName: hostName("CR-14", "runner.serverName")
        .optional()
        .meta({ description: "With runner.designed.P9 only (--server-name); default then: server.publicHost, the name on the Server's certificate" }),
      serverCluster: refused("CS-09", "in a kind: Compass file the Server's cluster entry is derived from this section; set server.cluster.{name, issuer}"),
    }),
  }),
);

export const compassSchema = once(() =>
  refineBy(compassObject(), checkCompass).meta({ title: "Compass values", description: "rigging values for the Compass Server and its Runner in one file" }),
);

export type CompassValues = z.output<ReturnType<typeof compassObject>>;

/** The checks of a Compass file that need more than one key, or both sections. */
export function checkCompass(v: CompassValues, ctx: IssueSink): void {
  eachCheck(
    () => checkServer(v.server, ctx, ["server"]),
    () => checkRunner(runnerView(v), ctx, ["runner"]),
    () => checkClusters([clusterOf(v)], ctx, { server: ["server"], clusters: ["server", "cluster"], list: false }, v.server),
    () => {
      if (v.server.namespace === v.runner.namespace) {
        fail(
          ctx,
          ["server", "namespace"],
          "CR-06",
          `is the Runner's namespace ${v.runner.namespace} too`,
          "give the Server its own namespace: the Runner namespace holds only Runner pods",
        );
      }
    },
  );
}

/** The Server's cluster entry, from the Runner (CS-09): the two cannot disagree. */
export function clusterOf(v: CompassValues): ClusterEntry {
  const { name, issuer, jwksURI, jwksFile, caFile, allowUnauthenticatedDiscovery } = v.server.cluster;
  return {
    name,
    issuer,
    allowUnauthenticatedDiscovery,
    audience: RUNNER_AUDIENCE,
    namespace: v.runner.namespace,
    serviceAccount: v.runner.serviceAccount,
    maxTokenLifetime: v.runner.maxTokenLifetimeSeconds,
    ...(jwksURI !== undefined ? { jwksURI } : {}),
    ...(jwksFile !== undefined ? { jwksFile } : {}),
    ...(caFile !== undefined ? { caFile } : {}),
  };
}

/** The in-cluster address of the Server's Service. */
export function serverServiceUrl(server: Pick<ServerFields, "name" | "namespace">): string {
  return `https://${server.name}.${server.namespace}.svc`;
}

/** The Runner's values with the Server's address and, with P9, the verified name. */
export function runnerOf(v: CompassValues): RunnerFields {
  const { serverCluster: _unused, serverName: _name, ...runner } = v.runner;
  const name = verifiedName(v);
  return { ...runner, serverAddr: dialledAddr(v), ...(name !== undefined ? { serverName: name } : {}) };
}

/** `runnerOf` for the checks: each key read only when a check reads it, so a refused key skips only the checks that read it. */
function runnerView(v: CompassValues): RunnerFields {
  return Object.create(v.runner, {
    serverAddr: { get: () => dialledAddr(v), enumerable: true },
    serverName: { get: () => verifiedName(v), enumerable: true },
  });
}

function dialledAddr(v: CompassValues): string {
  return v.runner.serverAddr ?? serverServiceUrl(v.server);
}

function verifiedName(v: CompassValues): string | undefined {
  return v.runner.serverName ?? (v.runner.designed.P9 ? v.server.publicHost : undefined);
}

/** The host the Runner dials, which its certificate check names when P9 is off. */
export function dialledHost(v: CompassValues): string {
  return new URL(runnerOf(v).serverAddr).hostname;
}

export function serverOf(v: CompassValues): ServerFields {
  const { cluster: _cluster, clusters: _clusters, runnerClusters: _runnerClusters, ...server } = v.server;
  return server;
}
