// The --runner-clusters file in the Server's exact schema, written from entries;
// the Compass contract reads it back as the Server reads it.
import { toYaml } from "../../emit/emit.ts";
import { inClusterIssuer, KUBE_ROOT_CA, RUNNER_CLUSTERS_SCHEMA, type RunnerClusterKey } from "../compass-contract/interface.ts";
import { RUNNER_CLUSTER_FILES_DIR } from "./interface.ts";

/** A cluster entry as values give it (see clusterEntrySchema in values.ts). */
export interface RunnerClusterInput {
  name: string;
  issuer: string;
  audience: string;
  namespace: string;
  serviceAccount: string;
  /** Whole seconds; written as a Go duration (`86400s`). */
  maxTokenLifetime: number;
  jwksURI?: string;
  /** A ConfigMap key mounted as the entry's static JWKS. */
  jwksFile?: { configMap: string; key: string };
  /** A ConfigMap key mounted as the PEM CA of a private issuer. */
  caFile?: { configMap: string; key: string };
}

/** An entry as the Server gets it: an in-cluster issuer trusts the cluster CA unless the entry names its own caFile. */
export function withClusterCa<T extends Pick<RunnerClusterInput, "issuer" | "caFile">>(entry: T): T {
  return entry.caFile === undefined && inClusterIssuer(entry.issuer) ? { ...entry, caFile: { ...KUBE_ROOT_CA } } : entry;
}

/** Where an entry's jwksFile and caFile are mounted in the Server's pod. */
export function clusterFilePath(entry: Pick<RunnerClusterInput, "name">, which: "jwksFile" | "caFile"): string {
  return `${RUNNER_CLUSTER_FILES_DIR}/${clusterFileItem(entry, which)}`;
}

/** The item path of that file inside the mounted projected volume. */
export function clusterFileItem(entry: Pick<RunnerClusterInput, "name">, which: "jwksFile" | "caFile"): string {
  return `${entry.name}/${which === "jwksFile" ? "jwks.json" : "ca.crt"}`;
}

/** One entry in the Server's own keys; only keys of its schema, never an unknown one. */
export function runnerClusterEntry(entry: RunnerClusterInput): Partial<Record<RunnerClusterKey, string>> {
  const out: Partial<Record<RunnerClusterKey, string>> = {
    name: entry.name,
    issuer: entry.issuer,
    audience: entry.audience,
    namespace: entry.namespace,
    serviceAccount: entry.serviceAccount,
    maxTokenLifetime: `${entry.maxTokenLifetime}s`,
  };
  if (entry.jwksURI !== undefined) out.jwksURI = entry.jwksURI;
  if (entry.jwksFile !== undefined) out.jwksFile = clusterFilePath(entry, "jwksFile");
  if (entry.caFile !== undefined) out.caFile = clusterFilePath(entry, "caFile");
  return out;
}

/** The file's text: one YAML document with the one top-level key `clusters`. Pure. */
export function runnerClustersFile(entries: readonly RunnerClusterInput[]): string {
  const header = `# compass-server --runner-clusters file, rendered by rigging (schema: ${RUNNER_CLUSTERS_SCHEMA.source}).\n`;
  return header + toYaml({ [RUNNER_CLUSTERS_SCHEMA.topKey]: entries.map(runnerClusterEntry) });
}
