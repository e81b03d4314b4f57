// Building blocks of systems' shapes, read defensively so an unlabelled workload can be recognised.
import type { Container, PodSpec, Volume } from "kubernetes-types/core/v1";
import { flagValue } from "../k8s/flag-or-env.ts";
import { isRecord, list } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";

export function containersOf(spec: PodSpec): Container[] {
  return [...list<Container>(spec.initContainers), ...list<Container>(spec.containers)].filter(isRecord) as Container[];
}

/** Whether a container of the pod sets an environment variable matching `name`. */
export function hasEnv(spec: PodSpec, name: RegExp): boolean {
  return containersOf(spec).some((c) => list<{ name?: unknown }>(c.env).some((e) => isRecord(e) && typeof e.name === "string" && name.test(e.name)));
}

/** Whether a container of the pod passes one of the flags (any of Go's forms). */
export function hasFlag(spec: PodSpec, ...flags: string[]): boolean {
  return containersOf(spec).some((c) => flags.some((flag) => flagValue(c, flag) !== undefined));
}

/** Whether a container's image matches. */
export function hasImage(spec: PodSpec, image: RegExp): boolean {
  return containersOf(spec).some((c) => image.test(String(c.image ?? "")));
}

/** Whether the pod projects a ServiceAccount token for `audience`. */
export function projectsAudience(spec: PodSpec, audience: string): boolean {
  return list<Volume>(spec.volumes).some((v) =>
    list<{ serviceAccountToken?: { audience?: string } }>(v?.projected?.sources).some((s) => s?.serviceAccountToken?.audience === audience),
  );
}

/** A shape that names a workload's system when its labels do not (`check` on hand-written manifests). */
export interface Shape {
  /** What gives it away, for people (docs, messages). */
  sign: string;
  matches(spec: PodSpec, object: K8sObject): boolean;
}
