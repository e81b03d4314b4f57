// The live state of a rendered set, as `kubectl get -o yaml` prints it after
// an apply: one List, each object with what the API server adds to it: the
// metadata it keeps (uid, resourceVersion, generation, creationTimestamp,
// managedFields, the last-applied and revision annotations), a status, and
// the defaults it fills in (pod template, container, Service and Namespace
// fields, written as the API server's defaulting code does).
import { stringify } from "yaml";
import type { K8sObject } from "../../src/k8s/objects.ts";

type Json = Record<string, unknown>;

export function liveOf(objects: readonly K8sObject[]): Json {
  return { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items: objects.map((o, i) => liveObject(o, i)) };
}

export function liveYaml(objects: readonly K8sObject[]): string {
  return stringify(liveOf(objects));
}

function liveObject(object: K8sObject, index: number): Json {
  const live = structuredClone(object) as unknown as Json & { metadata: Json; spec?: Json };
  const applied = JSON.stringify(object);
  Object.assign(live.metadata, {
    uid: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    resourceVersion: String(1000 + index),
    generation: 1,
    creationTimestamp: "2026-11-30T12:00:00Z",
    annotations: { ...((live.metadata.annotations as Json) ?? {}), "kubectl.kubernetes.io/last-applied-configuration": `${applied}\n` },
    managedFields: [
      {
        manager: "kubectl-client-side-apply",
        operation: "Update",
        apiVersion: object.apiVersion,
        time: "2026-11-30T12:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:metadata": {} },
      },
    ],
  });
  if (object.kind === "Namespace") {
    live.metadata.labels = { ...((live.metadata.labels as Json) ?? {}), "kubernetes.io/metadata.name": object.metadata.name };
    live.spec = { finalizers: ["kubernetes"] };
    live.status = { phase: "Active" };
  }
  if (object.kind === "Deployment" || object.kind === "DaemonSet") workload(live, object.kind);
  if (object.kind === "Service") {
    service(live.spec ?? {});
    live.status = { loadBalancer: {} };
  }
  return live;
}

function workload(live: Json & { metadata: Json; spec?: Json }, kind: string): void {
  const spec = live.spec as Json & { template: { spec: Json & { containers: Json[]; initContainers?: Json[] } } };
  spec.revisionHistoryLimit ??= 10;
  if (kind === "Deployment") {
    spec.progressDeadlineSeconds ??= 600;
    (live.metadata.annotations as Json)["deployment.kubernetes.io/revision"] = "1";
    live.status = { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 };
  } else {
    (live.metadata.annotations as Json)["deprecated.daemonset.template.generation"] = "1";
    live.status = { currentNumberScheduled: 1, desiredNumberScheduled: 1, numberReady: 1, numberMisscheduled: 0, observedGeneration: 1 };
  }
  const pod = spec.template.spec;
  pod.dnsPolicy ??= "ClusterFirst";
  pod.schedulerName ??= "default-scheduler";
  pod.restartPolicy ??= "Always";
  pod.securityContext ??= {};
  pod.terminationGracePeriodSeconds ??= 30;
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    container.imagePullPolicy ??= "IfNotPresent";
    container.terminationMessagePath ??= "/dev/termination-log";
    container.terminationMessagePolicy ??= "File";
    for (const port of (container.ports as Json[] | undefined) ?? []) port.protocol ??= "TCP";
  }
}

function service(spec: Json): void {
  spec.clusterIP ??= "10.96.0.42";
  spec.clusterIPs ??= [spec.clusterIP];
  spec.ipFamilies = ["IPv4"];
  spec.ipFamilyPolicy = "SingleStack";
  spec.internalTrafficPolicy ??= "Cluster";
  spec.sessionAffinity ??= "None";
  spec.type ??= "ClusterIP";
  for (const port of (spec.ports as Json[] | undefined) ?? []) {
    port.protocol ??= "TCP";
    port.targetPort ??= port.port;
  }
}
