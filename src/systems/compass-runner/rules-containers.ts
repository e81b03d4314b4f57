// The Runner containers and mounts the CR- rules read, shared by the rule files of this folder.
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { ContainerRef, ObjectSet } from "../../rules/engine.ts";
import { mountHolding } from "../../rules/templates.ts";

/** The Runner's own containers (not init containers) of its DaemonSet or Pod; found once per set, nine rules ask. */
export function runnerContainers(set: ObjectSet): ContainerRef[] {
  return set.derived(findRunnerContainers);
}

function findRunnerContainers(set: ObjectSet): ContainerRef[] {
  const found = set.containers().filter((c) => (c.object.kind === "DaemonSet" || c.object.kind === "Pod") && c.containerPath.at(-2) === "containers");
  return Object.freeze(found) as ContainerRef[];
}

/** The mount (and its volume) that holds `file`, the deepest first (the shared volume template). */
export function mountOf(spec: PodSpec, container: Container, file: string) {
  const held = mountHolding({ spec }, container, file);
  return held && { mount: held.mount, volume: held.volume, index: held.volumeIndex };
}
