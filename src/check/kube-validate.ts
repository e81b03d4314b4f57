// What kube-apiserver's validation (pkg/apis/<group>/validation) refuses in a built-in object beyond
// its OpenAPI schema, read offline: nothing that depends on the cluster (admission, quotas, the node
// port range, the service CIDR, whether a referenced object exists). Values of the wrong type are
// skipped: the schema walk reports them.
import { type Ctx, checkMetadata, isRecord, kindInfo, type Problem } from "./kube-validate-meta.ts";
import { checkNetworkPolicy, checkService } from "./kube-validate-net.ts";
import { checkConfigMap, checkPodDisruptionBudget, checkPriorityClass, checkRbac, checkSecret } from "./kube-validate-other.ts";
import { checkHorizontalPodAutoscaler } from "./kube-validate-autoscaling.ts";
import { checkIngressClass, checkStorageClass } from "./kube-validate-classes.ts";
import { checkIngress } from "./kube-validate-ingress.ts";
import { checkPodTemplate } from "./kube-validate-pod.ts";
import { checkWebhookConfiguration } from "./kube-validate-webhooks.ts";
import { checkPersistentVolumeClaim } from "./kube-validate-storage.ts";
import { checkAppsWorkload, checkCronJob, checkJob, checkPod, checkReplicationController } from "./kube-validate-workloads.ts";

export type { Problem } from "./kube-validate-meta.ts";

type Check = (object: Record<string, unknown>, ctx: Ctx) => void;

/** The spec checks by group/kind; the metadata checks run for every kind kindInfo knows. */
const CHECKS: Record<string, Check> = {
  "/Pod": checkPod,
  "/PodTemplate": (object, ctx) => checkPodTemplate(object.template, ["template"], ctx),
  "/ReplicationController": checkReplicationController,
  "/Service": checkService,
  "/ConfigMap": checkConfigMap,
  "/Secret": checkSecret,
  "/PersistentVolumeClaim": checkPersistentVolumeClaim,
  "autoscaling/HorizontalPodAutoscaler": checkHorizontalPodAutoscaler,
  "apps/Deployment": checkAppsWorkload,
  "apps/ReplicaSet": checkAppsWorkload,
  "apps/StatefulSet": checkAppsWorkload,
  "apps/DaemonSet": checkAppsWorkload,
  "batch/Job": checkJob,
  "batch/CronJob": checkCronJob,
  "networking.k8s.io/NetworkPolicy": checkNetworkPolicy,
  "networking.k8s.io/Ingress": checkIngress,
  "networking.k8s.io/IngressClass": checkIngressClass,
  "storage.k8s.io/StorageClass": checkStorageClass,
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": checkWebhookConfiguration,
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": checkWebhookConfiguration,
  "policy/PodDisruptionBudget": checkPodDisruptionBudget,
  "scheduling.k8s.io/PriorityClass": checkPriorityClass,
  "rbac.authorization.k8s.io/Role": checkRbac,
  "rbac.authorization.k8s.io/ClusterRole": checkRbac,
  "rbac.authorization.k8s.io/RoleBinding": checkRbac,
  "rbac.authorization.k8s.io/ClusterRoleBinding": checkRbac,
};

/** "1.N" → N; undefined for anything else, and then version-dependent rules take the looser reading. */
function minorOf(version: string): number | undefined {
  const match = /^1\.(\d{1,3})$/.exec(version);
  return match ? Number(match[1]) : undefined;
}

/**
 * What kube-apiserver `version` ("1.24" … "1.37") refuses in `object` beyond the OpenAPI schema,
 * each with its path in the object. Nothing for a kind that is not a built-in one read from upstream.
 */
export function apiServerProblems(object: Record<string, unknown>, version: string): Problem[] {
  if (!isRecord(object)) return [];
  const info = kindInfo(object.apiVersion, object.kind);
  if (info === undefined) return [];
  const ctx: Ctx = { minor: minorOf(version), problems: [] };
  checkMetadata(object, info, ctx);
  const apiVersion = String(object.apiVersion);
  const key = `${apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : ""}/${object.kind}`;
  if (Object.hasOwn(CHECKS, key)) CHECKS[key](object, ctx);
  return ctx.problems;
}
