// The Runner containers, mounts and quantities the CR- rules read, shared by the rule files of this folder.
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { ContainerRef, ObjectSet } from "../../rules/engine.ts";
import { mountHolding } from "../../rules/templates.ts";
import { compareQuantity, parseQuantity, type Quantity } from "../../k8s/quantity.ts";

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

/** Whether two resource quantities have one value (`1000m` is `1`); text that is no quantity (a schema finding) is compared as text. */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = parseQuantity(a);
  const y = isQuantity(b) ? b : parseQuantity(b);
  if (x === undefined || y === undefined) return !isQuantity(b) && a !== undefined && String(a) === String(b);
  return compareQuantity(x, y) === 0;
}

function isQuantity(value: unknown): value is Quantity {
  return typeof value === "object" && value !== null && typeof (value as Quantity).mantissa === "bigint";
}

/** The extended resources (domain/name, as a device plugin advertises) a container limits. */
export function deviceResources(container: Container): string[] {
  const limits = (container.resources?.limits ?? {}) as Record<string, unknown>;
  return Object.keys(limits).filter((name) => name.includes("/") && !name.startsWith("hugepages-"));
}
