// The plain-object form of a Kubernetes object that renderers return and rules read.
import type { ObjectMeta } from "kubernetes-types/meta/v1";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
  [field: string]: unknown;
}

/** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects. */
export function objectRef(object: Pick<K8sObject, "kind" | "metadata">): string {
  const { namespace, name } = object.metadata ?? {};
  return [object.kind, namespace, name ?? "<unnamed>"].filter(Boolean).join("/");
}

/** Apply-safe order (G-02): what others refer to comes first. */
export const KIND_ORDER = [
  "Namespace",
  "PriorityClass",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ServiceAccount",
  "ConfigMap",
  "DaemonSet",
  "Deployment",
  "Service",
  "NetworkPolicy",
] as const;

export function sortForApply(objects: K8sObject[]): K8sObject[] {
  const rank = (o: K8sObject) => {
    const index = (KIND_ORDER as readonly string[]).indexOf(o.kind);
    return index < 0 ? KIND_ORDER.length : index;
  };
  // Array.prototype.sort is stable, so objects of one kind keep the
  // renderer's own order.
  return [...objects].sort((a, b) => rank(a) - rank(b));
}
