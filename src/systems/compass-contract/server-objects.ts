// The Compass Server's objects in a set and the --runner-clusters files its
// containers read: the Server's rules judge them, the Runner's compare against them (CR-03, CR-04).
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import { dig, isRecord } from "../../k8s/access.ts";
import { flagOrEnv } from "../../k8s/flag-or-env.ts";
import type { K8sObject } from "../../k8s/objects.ts";
import { POD_SPEC_PATH } from "../../k8s/pod-spec.ts";
import type { ContainerRef, ObjectSet } from "../../rules/engine.ts";
import { podLabels } from "../../rules/templates.ts";
import { mountOver, samePath } from "./mounts.ts";
import { NATS_APP, SERVER_APP } from "./ports.ts";
import { type ClusterFileProblem, type ParsedCluster, readRunnerClusters } from "./runner-clusters.ts";
import { SERVER_INTERFACE as F, SERVER_READING, SERVER_SHAPES } from "./server-interface.ts";

const NAME_LABEL = "app.kubernetes.io/name";

/** The name label of an object, else of its pods: a hint, never the only sign. */
export function appOf(o: K8sObject): unknown {
  return o.metadata?.labels?.[NAME_LABEL] ?? podLabels(o)[NAME_LABEL];
}

export function podSpecOf(o: K8sObject): PodSpec | undefined {
  const path = POD_SPEC_PATH[o.kind];
  const spec = path ? dig(o, path) : undefined;
  return isRecord(spec) ? (spec as unknown as PodSpec) : undefined;
}

/** The Server: labelled so, or a workload whose pod has the Server's shape and no other system's name label. */
export function isServer(o: K8sObject): boolean {
  const app = appOf(o);
  if (app === SERVER_APP || app === NATS_APP) return app === SERVER_APP;
  const spec = podSpecOf(o);
  return spec !== undefined && SERVER_SHAPES.some((shape) => shape.matches(spec, o));
}

export function serverContainers(set: ObjectSet): ContainerRef[] {
  return set.containers().filter((c) => isServer(c.object) && c.containerPath.includes("containers"));
}

/** The text of a ConfigMap key mounted at `file`, with where it is. */
export function configMapFile(set: ObjectSet, spec: PodSpec, container: Container, file: string): { cm: K8sObject; key: string; text: string } | undefined {
  const { volume, rest } = mountOver(spec, container, file);
  const sources = volume?.configMap ? [volume.configMap] : (volume?.projected?.sources ?? []).flatMap((s) => (s.configMap ? [s.configMap] : []));
  for (const source of sources) {
    const key = source.items ? source.items.find((i) => samePath(i?.path, rest))?.key : rest;
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
