// Which part of a Compass pair an object is, by the labels rigging renders and
// the upstream renderer's (diff's reading; the rules also know an unlabelled Server
// by its shape, server-objects.ts): the Runner, the Server, its runner-clusters file, its NATS.
import type { K8sObject } from "../../k8s/objects.ts";
import { NATS_APP, RUNNER_APP, SERVER_APP } from "./ports.ts";

function labels(object: K8sObject): Record<string, string> {
  return (object.metadata?.labels ?? {}) as Record<string, string>;
}

export function isRunner(object: K8sObject): boolean {
  const l = labels(object);
  return l["app.kubernetes.io/component"] === "runner" || l["app.kubernetes.io/name"] === RUNNER_APP;
}

export function isServer(object: K8sObject): boolean {
  const l = labels(object);
  return l["app.kubernetes.io/component"] === "server" || l["app.kubernetes.io/name"] === SERVER_APP;
}

export function isRunnerDaemonSet(object: K8sObject | undefined): boolean {
  return object?.kind === "DaemonSet" && isRunner(object);
}

export function isServerDeployment(object: K8sObject | undefined): boolean {
  return object?.kind === "Deployment" && isServer(object);
}

export function isRunnerClusters(object: K8sObject): boolean {
  return object.kind === "ConfigMap" && (object.metadata.name.endsWith("runner-clusters") || Object.hasOwn((object.data ?? {}) as object, "clusters.yaml"));
}

/** The Server's NATS, as rigging renders it (a workload labelled compass-nats or component nats). */
export function isNatsDeployment(object: K8sObject | undefined): boolean {
  if (object?.kind !== "Deployment") return false;
  const l = labels(object);
  return l["app.kubernetes.io/name"] === NATS_APP || l["app.kubernetes.io/component"] === "nats";
}

/** nats-server's configuration file: a ConfigMap with a nats.conf key. */
export function isNatsConfig(object: K8sObject): boolean {
  return object.kind === "ConfigMap" && Object.hasOwn((object.data ?? {}) as object, "nats.conf");
}
