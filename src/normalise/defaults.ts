// The API server's defaults as data, each with the upstream function that sets
// it (k8s.io/kubernetes pkg/apis/*/v1/defaults.go); test/cluster/defaults.test.ts
// holds them equal to what a real API server stores.
import { isRecord, list } from "../k8s/access.ts";

type Node = Record<string, unknown>;

/** One default: where it applies, the field, its value (or how to make it) and the upstream function that sets it. */
export interface Default {
  scope: Scope;
  field: string;
  value: unknown | ((node: Node, parent: Node | undefined) => unknown);
  /** Only Go's nil counts as unset (a pointer field); otherwise "" and 0 are unset too, as Go's zero value. */
  pointer?: boolean;
  source: string;
}

export type Scope =
  | "podSpec"
  | "container"
  | "containerPort"
  | "probe"
  | "httpGet"
  | "secretVolume"
  | "configMapVolume"
  | "downwardAPIVolume"
  | "projectedVolume"
  | "tokenProjection"
  | "hostPathVolume"
  | "fieldRef"
  | "deployment"
  | "deploymentRollingUpdate"
  | "daemonSet"
  | "daemonSetRollingUpdate"
  | "statefulSet"
  | "serviceSpec"
  | "servicePort"
  | "networkPolicySpec"
  | "networkPolicyPort"
  | "rbacSubject"
  | "roleRef";

const CORE = "pkg/apis/core/v1/defaults.go";
const APPS = "pkg/apis/apps/v1/defaults.go";

export const DEFAULTS: readonly Default[] = [
  { scope: "podSpec", field: "dnsPolicy", value: "ClusterFirst", source: `${CORE} SetDefaults_PodSpec` },
  { scope: "podSpec", field: "restartPolicy", value: "Always", source: `${CORE} SetDefaults_PodSpec` },
  { scope: "podSpec", field: "terminationGracePeriodSeconds", value: 30, pointer: true, source: `${CORE} SetDefaults_PodSpec` },
  { scope: "podSpec", field: "securityContext", value: () => ({}), pointer: true, source: `${CORE} SetDefaults_PodSpec` },
  { scope: "podSpec", field: "schedulerName", value: "default-scheduler", source: `${CORE} SetDefaults_PodSpec` },
  { scope: "podSpec", field: "enableServiceLinks", value: true, pointer: true, source: `${CORE} SetDefaults_PodSpec` },
  { scope: "container", field: "terminationMessagePath", value: "/dev/termination-log", source: `${CORE} SetDefaults_Container` },
  { scope: "container", field: "terminationMessagePolicy", value: "File", source: `${CORE} SetDefaults_Container` },
  { scope: "container", field: "imagePullPolicy", value: pullPolicy, source: `${CORE} SetDefaults_Container` },
  {
    scope: "container",
    field: "resources",
    value: () => ({}),
    pointer: true,
    source: "pkg/apis/core/v1 ResourceRequirements, a struct the server always writes",
  },
  { scope: "containerPort", field: "protocol", value: "TCP", source: `${CORE} SetDefaults_ContainerPort` },
  { scope: "probe", field: "timeoutSeconds", value: 1, source: `${CORE} SetDefaults_Probe` },
  { scope: "probe", field: "periodSeconds", value: 10, source: `${CORE} SetDefaults_Probe` },
  { scope: "probe", field: "successThreshold", value: 1, source: `${CORE} SetDefaults_Probe` },
  { scope: "probe", field: "failureThreshold", value: 3, source: `${CORE} SetDefaults_Probe` },
  { scope: "httpGet", field: "path", value: "/", source: `${CORE} SetDefaults_HTTPGetAction` },
  { scope: "httpGet", field: "scheme", value: "HTTP", source: `${CORE} SetDefaults_HTTPGetAction` },
  { scope: "secretVolume", field: "defaultMode", value: 0o644, pointer: true, source: `${CORE} SetDefaults_SecretVolumeSource` },
  { scope: "configMapVolume", field: "defaultMode", value: 0o644, pointer: true, source: `${CORE} SetDefaults_ConfigMapVolumeSource` },
  { scope: "downwardAPIVolume", field: "defaultMode", value: 0o644, pointer: true, source: `${CORE} SetDefaults_DownwardAPIVolumeSource` },
  { scope: "projectedVolume", field: "defaultMode", value: 0o644, pointer: true, source: `${CORE} SetDefaults_ProjectedVolumeSource` },
  { scope: "tokenProjection", field: "expirationSeconds", value: 3600, pointer: true, source: `${CORE} SetDefaults_ServiceAccountTokenProjection` },
  { scope: "hostPathVolume", field: "type", value: "", pointer: true, source: `${CORE} SetDefaults_HostPathVolumeSource` },
  { scope: "fieldRef", field: "apiVersion", value: "v1", source: `${CORE} SetDefaults_ObjectFieldSelector` },
  { scope: "deployment", field: "replicas", value: 1, pointer: true, source: `${APPS} SetDefaults_Deployment` },
  { scope: "deployment", field: "strategy", value: () => ({ type: "RollingUpdate" }), source: `${APPS} SetDefaults_Deployment` },
  { scope: "deployment", field: "revisionHistoryLimit", value: 10, pointer: true, source: `${APPS} SetDefaults_Deployment` },
  { scope: "deployment", field: "progressDeadlineSeconds", value: 600, pointer: true, source: `${APPS} SetDefaults_Deployment` },
  { scope: "deploymentRollingUpdate", field: "maxUnavailable", value: "25%", pointer: true, source: `${APPS} SetDefaults_Deployment` },
  { scope: "deploymentRollingUpdate", field: "maxSurge", value: "25%", pointer: true, source: `${APPS} SetDefaults_Deployment` },
  { scope: "daemonSet", field: "updateStrategy", value: () => ({ type: "RollingUpdate" }), source: `${APPS} SetDefaults_DaemonSet` },
  { scope: "daemonSet", field: "revisionHistoryLimit", value: 10, pointer: true, source: `${APPS} SetDefaults_DaemonSet` },
  { scope: "daemonSetRollingUpdate", field: "maxUnavailable", value: 1, pointer: true, source: `${APPS} SetDefaults_DaemonSet` },
  { scope: "daemonSetRollingUpdate", field: "maxSurge", value: 0, pointer: true, source: `${APPS} SetDefaults_DaemonSet` },
  { scope: "statefulSet", field: "replicas", value: 1, pointer: true, source: `${APPS} SetDefaults_StatefulSet` },
  { scope: "statefulSet", field: "podManagementPolicy", value: "OrderedReady", source: `${APPS} SetDefaults_StatefulSet` },
  { scope: "statefulSet", field: "revisionHistoryLimit", value: 10, pointer: true, source: `${APPS} SetDefaults_StatefulSet` },
  {
    scope: "statefulSet",
    field: "persistentVolumeClaimRetentionPolicy",
    value: () => ({ whenDeleted: "Retain", whenScaled: "Retain" }),
    pointer: true,
    source: `${APPS} SetDefaults_StatefulSet`,
  },
  { scope: "serviceSpec", field: "type", value: "ClusterIP", source: `${CORE} SetDefaults_Service` },
  { scope: "serviceSpec", field: "sessionAffinity", value: "None", source: `${CORE} SetDefaults_Service` },
  {
    scope: "serviceSpec",
    field: "externalTrafficPolicy",
    value: (spec: Node) => (spec.type === "NodePort" || spec.type === "LoadBalancer" ? "Cluster" : undefined),
    source: `${CORE} SetDefaults_Service`,
  },
  {
    scope: "serviceSpec",
    field: "allocateLoadBalancerNodePorts",
    value: (spec: Node) => (spec.type === "LoadBalancer" ? true : undefined),
    pointer: true,
    source: `${CORE} SetDefaults_Service`,
  },
  { scope: "servicePort", field: "protocol", value: "TCP", source: `${CORE} SetDefaults_Service` },
  { scope: "servicePort", field: "targetPort", value: (port: Node) => port.port, source: `${CORE} SetDefaults_Service` },
  { scope: "networkPolicySpec", field: "policyTypes", value: policyTypes, source: "pkg/apis/networking/v1/defaults.go SetDefaults_NetworkPolicy" },
  { scope: "networkPolicyPort", field: "protocol", value: "TCP", pointer: true, source: "pkg/apis/networking/v1/defaults.go SetDefaults_NetworkPolicyPort" },
  { scope: "rbacSubject", field: "apiGroup", value: subjectGroup, source: "pkg/apis/rbac/v1/defaults.go SetDefaults_Subject" },
];

/** `latest` or no tag pulls Always, anything else IfNotPresent (a digest without a tag too). */
function pullPolicy(container: Node): unknown {
  const image = container.image;
  if (typeof image !== "string" || image === "") return undefined;
  const name = image.split("@")[0];
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  const tag = colon > slash ? name.slice(colon + 1) : image.includes("@") ? "" : "latest";
  return tag === "latest" ? "Always" : "IfNotPresent";
}

function policyTypes(spec: Node): unknown {
  return ["Ingress", ...(list(spec.egress).length > 0 ? ["Egress"] : [])];
}

function subjectGroup(subject: Node): unknown {
  return subject.kind === "ServiceAccount" ? undefined : subject.kind === "User" || subject.kind === "Group" ? "rbac.authorization.k8s.io" : undefined;
}

const byScope = new Map<Scope, Default[]>();
for (const d of DEFAULTS) byScope.set(d.scope, [...(byScope.get(d.scope) ?? []), d]);

/** Sets the scope's defaults on `node` where unset; returns the fields it set. */
export function applyDefaults(scope: Scope, node: unknown, parent?: Node): string[] {
  if (!isRecord(node)) return [];
  const set: string[] = [];
  for (const d of byScope.get(scope) ?? []) {
    const current = node[d.field];
    const unset = current === undefined || current === null || (!d.pointer && (current === "" || current === 0));
    if (!unset) continue;
    const value = typeof d.value === "function" ? (d.value as (n: Node, p?: Node) => unknown)(node, parent) : d.value;
    if (value === undefined) continue;
    node[d.field] = value;
    set.push(d.field);
  }
  return set;
}
