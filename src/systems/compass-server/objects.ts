// The Server's objects in a set and its --runner-clusters file, which the
// Runner's rules also compare against (CR-03, CR-04).
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../k8s/objects.ts";
import type { ContainerRef, ObjectSet, PodRef } from "../../rules/engine.ts";
import { NATS_APP, SERVER_APP } from "./ports.ts";
import { type ClusterFileProblem, type ParsedCluster, readRunnerClusters } from "./runner-clusters.ts";
import { SERVER_INTERFACE as F } from "./runtime.ts";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import { mountOver, SERVER_READING } from "./settings.ts";

const appOf = (o: K8sObject) => o.metadata?.labels?.["app.kubernetes.io/name"];
export const isServer = (o: K8sObject) => appOf(o) === SERVER_APP;
export const isNats = (o: K8sObject) => appOf(o) === NATS_APP;

export function serverPods(set: ObjectSet): PodRef[] {
  return set.pods().filter((p) => isServer(p.object));
}

export function serverContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => isServer(c.object) && c.containerPath.includes("containers"));
}

/** The text of a ConfigMap key mounted at `file`, with where it is. */
export function configMapFile(set: ObjectSet, spec: PodSpec, container: Container, file: string): { cm: K8sObject; key: string; text: string } | undefined {
  const { volume, rest } = mountOver(spec, container, file);
  const sources = volume?.configMap ? [volume.configMap] : (volume?.projected?.sources ?? []).flatMap((s) => (s.configMap ? [s.configMap] : []));
  for (const source of sources) {
    const key = source.items ? source.items.find((i) => i.path === rest)?.key : rest;
    const cm = set.ofKind("ConfigMap").find((c) => c.metadata.name === source.name);
    const text = cm && key !== undefined ? ((cm.data ?? {}) as Record<string, string>)[key] : undefined;
    if (cm && key !== undefined && typeof text === "string") return { cm, key, text };
  }
  return undefined;
}

/** A --runner-clusters file a Server container reads, parsed as the Server parses it. */
export interface ServerClusterFile {
  ref: ContainerRef;
  cm: K8sObject;
  key: string;
  clusters: ParsedCluster[];
  problems: ClusterFileProblem[];
}

/** Each file is parsed once, however many rules and Runners ask (keyed by the ConfigMap's text). */
const parsed = new WeakMap<K8sObject, Map<string, ReturnType<typeof readRunnerClusters>>>();

function parsedOnce(cm: K8sObject, key: string, text: string): ReturnType<typeof readRunnerClusters> {
  let byKey = parsed.get(cm);
  if (!byKey) parsed.set(cm, (byKey = new Map()));
  const cached = byKey.get(key);
  if (cached) return cached;
  const result = readRunnerClusters(text);
  byKey.set(key, result);
  return result;
}

/** The --runner-clusters files of a set's Server containers that resolve to a mounted ConfigMap key. */
export function serverClusterFiles(set: ObjectSet): ServerClusterFile[] {
  const files: ServerClusterFile[] = [];
  for (const ref of serverContainers(set)) {
    const path = flagOrEnv(ref.container, F.runnerClusters, SERVER_READING);
    if (!path?.value) continue;
    const file = configMapFile(set, ref.spec, ref.container, path.value);
    if (!file) continue;
    files.push({ ref, cm: file.cm, key: file.key, ...parsedOnce(file.cm, file.key, file.text) });
  }
  return files;
}
