// Live objects as `kubectl get -o yaml --show-managed-fields` prints them after
// a client-side apply (last-applied-configuration, and the kubectl-client-side-apply
// Update entry that owns the defaults too) or a server-side apply (the kubectl
// Apply entry that owns exactly what was applied), in the fieldsV1 encoding:
// `f:NAME`, `k:{"name":...}` for items keyed by their merge key, `.` for the
// field itself, and a keyless list (tolerations, args) owned whole.
import type { K8sObject } from "../../src/k8s/objects.ts";
import { liveOf } from "../support/live-state.ts";

type Json = Record<string, any>;

/** Merge keys of the keyed lists of a pod template, as the API's schema declares them. */
function mergeKey(item: Json): Json | undefined {
  if (typeof item.containerPort === "number") return { containerPort: item.containerPort, protocol: item.protocol ?? "TCP" };
  for (const key of ["name", "mountPath", "devicePath"]) if (typeof item[key] === "string") return { [key]: item[key] };
  return undefined;
}

/** The fieldsV1 of a value: what a manager that set all of it owns. */
export function fieldsV1Of(value: unknown): Json {
  if (Array.isArray(value)) {
    if (!value.every((item) => item && typeof item === "object" && mergeKey(item))) return {};
    const out: Json = { ".": {} };
    for (const item of value) out[`k:${JSON.stringify(mergeKey(item))}`] = { ".": {}, ...fieldsV1Of(item) };
    return out;
  }
  if (value === null || typeof value !== "object") return {};
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) out[`f:${key}`] = fieldsV1Of(child);
  return out;
}

/** An object's fieldsV1: its identity (apiVersion, kind, name, namespace) is not a field anyone owns. */
function objectFieldsV1(object: unknown): Json {
  const { "f:apiVersion": _a, "f:kind": _k, ...fields } = fieldsV1Of(object);
  const { "f:name": _n, "f:namespace": _ns, ...metadata } = fields["f:metadata"] ?? {};
  return { ...fields, "f:metadata": metadata };
}

/** What `kubectl get` adds that no one applied: status and server metadata. */
function withoutServerFields(live: Json): Json {
  const { status: _status, ...rest } = live;
  const { uid: _u, resourceVersion: _r, generation: _g, creationTimestamp: _c, managedFields: _m, ...metadata } = live.metadata;
  return { ...rest, metadata };
}

/** The live List of `applied` after `kubectl apply` (client-side): the annotation, and the Update entry with the server's defaults. */
export function clientSideApplied(applied: readonly K8sObject[]): Json {
  const list = liveOf(applied) as Json;
  for (const live of list.items) {
    live.metadata.managedFields = [
      {
        apiVersion: live.apiVersion,
        fieldsType: "FieldsV1",
        fieldsV1: objectFieldsV1(withoutServerFields(live)),
        manager: "kubectl-client-side-apply",
        operation: "Update",
        time: "2026-11-30T12:00:00Z",
      },
    ];
  }
  return list;
}

/** The live List of `applied` after `kubectl apply --server-side`: no annotation, the kubectl Apply entry owns what was applied. */
export function serverSideApplied(applied: readonly K8sObject[]): Json {
  const list = liveOf(applied) as Json;
  list.items.forEach((live: Json, i: number) => {
    delete live.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"];
    live.metadata.managedFields = [
      {
        apiVersion: live.apiVersion,
        fieldsType: "FieldsV1",
        fieldsV1: objectFieldsV1(applied[i]),
        manager: "kubectl",
        operation: "Apply",
        time: "2026-11-30T12:00:00Z",
      },
    ];
  });
  return list;
}
