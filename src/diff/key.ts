// The identity diff matches objects by.
import type { K8sObject } from "../k8s/objects.ts";

/** group/kind namespace/name: the identity apply goes by (the version is not part of it). */
export function objectKeyOf(object: K8sObject): string {
  const group = String(object.apiVersion ?? "").includes("/") ? String(object.apiVersion).split("/")[0] : "";
  const ns = object.metadata?.namespace;
  return `${group ? `${group}/` : ""}${object.kind} ${ns ? `${ns}/` : ""}${object.metadata?.name ?? ""}`;
}
