// The matrix's requests for one Runner, one object each, so each is prepared once.
import type { K8sObject } from "../k8s/objects.ts";
import type { Severity } from "../rules/engine.ts";
import type { AdmissionRequest, RequestShape } from "./match.ts";
import { dig, isRecord } from "../k8s/access.ts";

export interface AdmissionTarget {
  /** The Runner namespace: it holds only Runner pods (CR-06b), which marks a pod on a CONNECT request. */
  namespace: string;
  /** The Runner ServiceAccount, whose tokens enroll a Runner (CR-06d). */
  serviceAccount: string;
  /** The Runner DaemonSet: the object of DaemonSet requests, and the template of the Runner pod. */
  daemonSet?: K8sObject;
  /** Where a finding goes when no policy field decided it (usually the DaemonSet). */
  anchor: K8sObject;
  /** The DaemonSet's template breaks a Runner invariant that another rule reports: policies that refuse it are right. */
  templateBroken?: boolean;
}

export interface Check {
  what: string;
  severity: Severity;
  request: RequestShape;
}

export type RequestName = keyof ReturnType<typeof requestsFor>;

const POD_KINDS: Record<string, string> = {
  exec: "PodExecOptions",
  attach: "PodAttachOptions",
  portforward: "PodPortForwardOptions",
  proxy: "PodProxyOptions",
};

/** Every request of the matrix for the Runner of `target`. */
export function requestsFor(target: AdmissionTarget) {
  const pod = runnerPod(target);
  const ds = target.daemonSet ?? { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "runner", namespace: target.namespace } };
  const onPod = (
    subResource: string,
    operation: AdmissionRequest["operation"],
    what: string,
    object: unknown,
    oldObject?: unknown,
    severity: Severity = "error",
  ): Check => ({
    what,
    severity,
    request: {
      operation,
      group: "",
      version: "v1",
      resource: "pods",
      subResource,
      kind: POD_KINDS[subResource] ?? "Pod",
      namespace: target.namespace,
      name: String(dig(pod, ["metadata", "name"])),
      object,
      ...(oldObject ? { oldObject } : {}),
    },
  });
  const withEphemeral = { ...pod, spec: { ...(pod.spec as object), ephemeralContainers: [{ name: "debugger", image: "busybox", command: ["sh"] }] } };
  return {
    exec: onPod("exec", "CONNECT", "exec on a Runner pod", { kind: "PodExecOptions", apiVersion: "v1", command: ["sh"], stdin: true, tty: true }),
    attach: onPod("attach", "CONNECT", "attach to a Runner pod", { kind: "PodAttachOptions", apiVersion: "v1", stdin: true }),
    ephemeral: onPod("ephemeralcontainers", "UPDATE", "an ephemeral container on a Runner pod", withEphemeral, pod),
    portforward: onPod("portforward", "CONNECT", "port-forward to a Runner pod", { kind: "PodPortForwardOptions", apiVersion: "v1" }, undefined, "warning"),
    proxy: onPod("proxy", "CONNECT", "a proxied request to a Runner pod", { kind: "PodProxyOptions", apiVersion: "v1" }, undefined, "warning"),
    createPod: onPod("", "CREATE", "creating a Runner pod", pod),
    podStatus: onPod("status", "UPDATE", "a pod status update", pod, pod),
    deletePod: onPod("", "DELETE", "deleting a Runner pod", undefined, pod),
    createDs: onDs(target, ds, "CREATE", ""),
    updateDs: onDs(target, ds, "UPDATE", ""),
    deleteDs: onDs(target, ds, "DELETE", ""),
    dsStatus: onDs(target, ds, "UPDATE", "status"),
    token: token(target),
  };
}

function onDs(target: AdmissionTarget, ds: K8sObject, operation: AdmissionRequest["operation"], subResource: string): Check {
  const verb = operation === "CREATE" ? "creating" : operation === "UPDATE" ? "updating" : "deleting";
  return {
    what: subResource ? `a DaemonSet ${subResource} update` : `${verb} the Runner DaemonSet`,
    severity: "error",
    request: {
      operation,
      group: "apps",
      version: "v1",
      resource: "daemonsets",
      subResource,
      kind: "DaemonSet",
      namespace: target.namespace,
      name: ds.metadata.name,
      ...(operation === "DELETE" ? {} : { object: ds }),
      ...(operation === "CREATE" ? {} : { oldObject: ds }),
    },
  };
}

function token(target: AdmissionTarget): Check {
  return {
    what: `a token request for the Runner ServiceAccount ${target.serviceAccount}`,
    severity: "error",
    request: {
      operation: "CREATE",
      group: "",
      version: "v1",
      resource: "serviceaccounts",
      subResource: "token",
      kind: "TokenRequest",
      namespace: target.namespace,
      name: target.serviceAccount,
      object: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["compass-runner"], expirationSeconds: 3600 } },
    },
  };
}

/** The pod the Runner DaemonSet makes: its template, owned by the DaemonSet, in the Runner namespace. */
function runnerPod(target: AdmissionTarget): Record<string, unknown> {
  const ds = target.daemonSet;
  const template = (ds ? dig(ds, ["spec", "template"]) : undefined) ?? {};
  const metadata = isRecord(template) && isRecord(template.metadata) ? template.metadata : {};
  const spec = isRecord(template) && isRecord(template.spec) ? template.spec : { serviceAccountName: target.serviceAccount, containers: [] };
  const owner = ds
    ? {
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata.name, uid: "uid-daemonset", controller: true, blockOwnerDeletion: true },
        ],
      }
    : {};
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { ...metadata, name: `${ds?.metadata.name ?? "runner"}-x7k2p`, namespace: target.namespace, ...owner },
    spec: { nodeName: "node-1", ...spec },
  };
}
