// One rule for an omitted namespace: the object lands in the namespace of the
// apply, the same place as the others only when every named one agrees.
import type { K8sObject } from "../k8s/objects.ts";
import type { Note } from "./notes.ts";

/** Kinds that live outside namespaces (kubectl api-resources --namespaced=false, the built-in ones). */
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "Node",
  "PersistentVolume",
  "ClusterRole",
  "ClusterRoleBinding",
  "PriorityClass",
  "StorageClass",
  "CSIDriver",
  "CSINode",
  "RuntimeClass",
  "IngressClass",
  "CustomResourceDefinition",
  "APIService",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "CertificateSigningRequest",
  "FlowSchema",
  "PriorityLevelConfiguration",
  "VolumeAttachment",
  "ComponentStatus",
  "IPAddress",
  "ServiceCIDR",
  "DeviceClass",
  "ResourceSlice",
]);

export function isNamespaced(kind: string): boolean {
  return !CLUSTER_SCOPED.has(kind);
}

/** The namespace an object without one is judged in: the one every named object agrees on, else none (with a warning). */
export function applyNamespace(objects: readonly K8sObject[], notes: Note[]): string | undefined {
  const named = new Set<string>();
  let omitted: K8sObject | undefined;
  let count = 0;
  for (const object of objects) {
    if (!isNamespaced(object.kind)) continue;
    const namespace = object.metadata?.namespace;
    if (typeof namespace === "string" && namespace !== "") named.add(namespace);
    else {
      omitted ??= object;
      count++;
    }
  }
  if (!omitted || named.size === 0) return undefined;
  const others = count > 1 ? ` and ${count - 1} other object(s)` : "";
  if (named.size === 1) {
    const [namespace] = named;
    notes.push({
      object: omitted,
      path: ["metadata"],
      severity: "warning",
      message: `${omitted.kind} ${omitted.metadata?.name}${others} name no namespace: judged in ${namespace}, the one the others name; they land there only when applied with -n ${namespace}`,
    });
    return namespace;
  }
  notes.push({
    object: omitted,
    path: ["metadata"],
    severity: "warning",
    message: `${omitted.kind} ${omitted.metadata?.name}${others} name no namespace while others name ${[...named].sort().join(", ")}: judged apart from all of them`,
  });
  return undefined;
}
