// One object as the API server stores it and the kubelet mounts it: the
// defaults of defaults.ts put in place, field by field.
import { dig, isRecord, list } from "../k8s/access.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { POD_SPEC_PATH } from "../k8s/pod-spec.ts";
import { applyDefaults, type Scope } from "./defaults.ts";

type Node = Record<string, unknown>;

/** A subtree written elsewhere in the object: `from` in the normalised object, `to` in the input. */
export type Move = { from: PropertyKey[]; to: PropertyKey[] };

/** The kinds whose objects the API server defaults here: others pass through untouched. */
export const DEFAULTED_KINDS = new Set([...Object.keys(POD_SPEC_PATH), "Service", "NetworkPolicy", "RoleBinding", "ClusterRoleBinding"]);

/** Puts the API server's defaults in `object` (a copy of the input's), returning the fields it moved. */
export function defaultObject(object: K8sObject): Move[] {
  const moves: Move[] = [];
  const spec = object.spec;
  switch (object.kind) {
    case "Deployment":
      defaultRollout(spec, "deployment", "strategy", "deploymentRollingUpdate");
      break;
    case "DaemonSet":
      defaultRollout(spec, "daemonSet", "updateStrategy", "daemonSetRollingUpdate");
      break;
    case "StatefulSet":
      applyDefaults("statefulSet", spec);
      break;
    case "Service":
      defaultService(spec);
      break;
    case "NetworkPolicy":
      defaultNetworkPolicy(spec);
      break;
    case "RoleBinding":
    case "ClusterRoleBinding":
      for (const subject of list(object.subjects)) applyDefaults("rbacSubject", subject);
      break;
  }
  const path = POD_SPEC_PATH[object.kind];
  const pod = path ? dig(object, path) : undefined;
  if (path && isRecord(pod)) defaultPodSpec(pod, path, moves);
  return moves;
}

function defaultRollout(spec: unknown, scope: Scope, field: string, rolling: Scope): void {
  if (!isRecord(spec)) return;
  applyDefaults(scope, spec);
  const strategy = spec[field];
  if (!isRecord(strategy) || strategy.type !== "RollingUpdate") return;
  if (!isRecord(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  applyDefaults(rolling, strategy.rollingUpdate);
}

function defaultService(spec: unknown): void {
  if (!isRecord(spec)) return;
  applyDefaults("serviceSpec", spec);
  for (const port of list(spec.ports)) applyDefaults("servicePort", port);
}

function defaultNetworkPolicy(spec: unknown): void {
  if (!isRecord(spec)) return;
  applyDefaults("networkPolicySpec", spec);
  for (const direction of ["ingress", "egress"])
    for (const rule of list<Node>(spec[direction])) for (const port of list(rule?.ports)) applyDefaults("networkPolicyPort", port);
}

/** The container lists of a pod spec. */
const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/** Kinds of volume the kubelet always mounts read-only (pkg/volume: secret, configmap, downwardapi, projected). */
const READ_ONLY_VOLUMES = ["secret", "configMap", "downwardAPI", "projected"] as const;

function defaultPodSpec(spec: Node, at: PropertyKey[], moves: Move[]): void {
  // pkg/apis/core/v1/conversion.go: serviceAccountName falls back to the deprecated serviceAccount, which then mirrors it.
  if (
    (spec.serviceAccountName === undefined || spec.serviceAccountName === "" || spec.serviceAccountName === null) &&
    typeof spec.serviceAccount === "string" &&
    spec.serviceAccount !== ""
  ) {
    spec.serviceAccountName = spec.serviceAccount;
    moves.push({ from: [...at, "serviceAccountName"], to: [...at, "serviceAccount"] });
  } else if (typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== "") spec.serviceAccount = spec.serviceAccountName;
  applyDefaults("podSpec", spec);
  const readOnly = new Set<string>();
  for (const volume of list<Node>(spec.volumes)) {
    if (!isRecord(volume)) continue;
    defaultVolume(volume);
    if (READ_ONLY_VOLUMES.some((kind) => isRecord(volume[kind])) && typeof volume.name === "string") readOnly.add(volume.name);
  }
  for (const field of CONTAINER_LISTS) {
    for (const [index, container] of list<Node>(spec[field]).entries()) {
      if (!isRecord(container)) continue;
      defaultContainer(container);
      for (const name of requestsFromLimits(container))
        moves.push({ from: [...at, field, index, "resources", "requests", name], to: [...at, field, index, "resources", "limits", name] });
      for (const mount of list<Node>(container.volumeMounts)) if (isRecord(mount) && readOnly.has(String(mount.name))) mount.readOnly = true;
    }
  }
}

function defaultVolume(volume: Node): void {
  applyDefaults("secretVolume", volume.secret);
  applyDefaults("configMapVolume", volume.configMap);
  applyDefaults("downwardAPIVolume", volume.downwardAPI);
  if (isRecord(volume.downwardAPI)) for (const item of list<Node>(volume.downwardAPI.items)) if (isRecord(item)) applyDefaults("fieldRef", item.fieldRef);
  applyDefaults("hostPathVolume", volume.hostPath);
  const projected = volume.projected;
  if (!isRecord(projected)) return;
  applyDefaults("projectedVolume", projected);
  for (const source of list<Node>(projected.sources)) {
    if (!isRecord(source)) continue;
    applyDefaults("tokenProjection", source.serviceAccountToken);
    if (isRecord(source.downwardAPI)) for (const item of list<Node>(source.downwardAPI.items)) if (isRecord(item)) applyDefaults("fieldRef", item.fieldRef);
  }
}

function defaultContainer(container: Node): void {
  applyDefaults("container", container);
  for (const port of list(container.ports)) applyDefaults("containerPort", port);
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const p = container[probe];
    if (!isRecord(p)) continue;
    applyDefaults("probe", p);
    applyDefaults("httpGet", p.httpGet);
  }
  for (const env of list<Node>(container.env)) if (isRecord(env) && isRecord(env.valueFrom)) applyDefaults("fieldRef", env.valueFrom.fieldRef);
}

/** pkg/apis/core/v1/defaults.go SetDefaults_Pod: a resource with a limit and no request requests its limit; returns those. */
function requestsFromLimits(container: Node): string[] {
  const resources = container.resources;
  if (!isRecord(resources) || !isRecord(resources.limits)) return [];
  const requests = isRecord(resources.requests) ? resources.requests : (resources.requests = {});
  const set: string[] = [];
  for (const [name, limit] of Object.entries(resources.limits)) {
    if (requests[name] !== undefined && requests[name] !== null) continue;
    requests[name] = limit;
    set.push(name);
  }
  return set;
}
