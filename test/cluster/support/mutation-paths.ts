// What the catalog's classes read of an object: a value by path, and the pod specs among its sites.
import type { Site } from "./mutations.ts";

export const podSpecs = (all: Site[]) => all.filter((s) => s.type === "V1PodSpec");

export function get(object: unknown, path: readonly (string | number)[]): unknown {
  let at = object;
  for (const key of path) at = (at as Record<string | number, unknown> | undefined)?.[key];
  return at;
}
