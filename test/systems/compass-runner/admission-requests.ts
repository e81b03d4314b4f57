// Who asks, the Runner's objects and the requests they make, for the CR-06 admission tests of this folder.
import { HOUSEKEEPERS, type AdmissionInput } from "../../../src/systems/compass-runner/admission.ts";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import type { AdmissionRequest } from "../../support/admission.ts";
import { daemonSetPod, RUNNER, runnerDaemonSet, runningPod, storedDaemonSet } from "../../support/runner-pods.ts";

export type Json = Record<string, any>;
export const NS = RUNNER.namespace;
export const DEPLOYER = "system:serviceaccount:flux-system:kustomize-controller";
export const DS_CONTROLLER = "system:serviceaccount:kube-system:daemon-set-controller";
export const KCM = "system:kube-controller-manager";

export type Who = { user: string; groups?: string[] };
export const PEOPLE = {
  "an ordinary user": { user: "alice", groups: ["system:authenticated", "developers"] },
  "a user with no groups": { user: "bob" },
  "a deployer": { user: DEPLOYER, groups: ["system:serviceaccounts", "system:serviceaccounts:flux-system", "system:authenticated"] },
  "the DaemonSet controller": { user: DS_CONTROLLER, groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "the controller manager": { user: KCM, groups: ["system:authenticated"] },
  "the namespace controller": { user: HOUSEKEEPERS[0], groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "the garbage collector": { user: HOUSEKEEPERS[1], groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "a kubelet": { user: "system:node:kvm-node-1", groups: ["system:nodes", "system:authenticated"] },
  "a break-glass member": { user: "root-admin", groups: ["system:masters", "system:authenticated"] },
} satisfies Record<string, Who>;
export type Person = keyof typeof PEOPLE;
export const EVERYONE = Object.keys(PEOPLE) as Person[];

/** The two ways a cluster names its controllers (upstream defaults include the controller manager). */
export const CONFIGS: [string, string[]][] = [
  ["per-controller credentials", [DS_CONTROLLER]],
  ["the upstream default controllers", [DS_CONTROLLER, KCM]],
];

export function inputFor(controllers: string[]): AdmissionInput {
  return {
    prefix: `${RUNNER.name}.${RUNNER.namespace}`,
    namespace: NS,
    labels: { "app.kubernetes.io/name": "compass-runner" },
    daemonSetName: RUNNER.name,
    containerName: RUNNER.containerName,
    serviceAccount: RUNNER.serviceAccount,
    imageRepository: RUNNER.repository,
    hostPaths: [RUNNER.sessions, RUNNER.runtime],
    seccompProfile: RUNNER.seccompProfile,
    podSelector: RUNNER.selector,
    controllers,
    deployers: [DEPLOYER],
    breakGlassGroups: ["system:masters"],
  };
}

// --- objects -------------------------------------------------------------

export const DS = storedDaemonSet(runnerDaemonSet());
export const POD = daemonSetPod(DS);
export const RUNNING = runningPod(POD);
export const clone = <T>(o: T): T => structuredClone(o);
/** A copy of `object` changed by `edit`. */
export const edited = (object: K8sObject, edit: (o: Json) => void): K8sObject => {
  const copy = clone(object) as Json;
  edit(copy);
  return copy as K8sObject;
};
export const container = (spec: Json) => spec.containers[0];

// --- requests ------------------------------------------------------------

export const podRequest =
  (operation: AdmissionRequest["operation"], subResource: string | undefined, object: unknown, oldObject?: unknown) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "",
    version: "v1",
    resource: "pods",
    subResource,
    namespace: NS,
    name: POD.metadata.name,
    ...who,
    object,
    oldObject,
  });
export const podUpdate = (subResource: string | undefined, edit: (o: Json) => void) => podRequest("UPDATE", subResource, edited(RUNNING, edit), RUNNING);
export const podCreate =
  (pod: K8sObject, namespace = NS) =>
  (who: Who): AdmissionRequest => ({ ...podRequest("CREATE", undefined, pod)(who), namespace: namespace, name: pod.metadata.name });
export const withSpec = (edit: (spec: Json) => void) => edited(POD, (p) => edit(p.spec));

export const dsRequest =
  (operation: AdmissionRequest["operation"], object: unknown, oldObject?: unknown, name = RUNNER.name) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    namespace: NS,
    name,
    ...who,
    object,
    oldObject,
  });
/** A deployer's apply: the same DaemonSet, one generation on. */
export const dsApply = (edit: (o: Json) => void) => dsRequest("UPDATE", storedDaemonSet(edited(runnerDaemonSet(), edit), 2), DS);
export const dsTemplate = (edit: (spec: Json) => void) => dsApply((o) => edit(o.spec.template.spec));

export const workload =
  (group: string, resource: string, kind: string) =>
  (who: Who): AdmissionRequest => {
    const template = clone((DS as Json).spec.template);
    const spec = kind === "CronJob" ? { schedule: "* * * * *", jobTemplate: { spec: { template } } } : { selector: { matchLabels: RUNNER.selector }, template };
    return {
      operation: "CREATE",
      group,
      version: "v1",
      resource,
      namespace: NS,
      name: "borrowed",
      ...who,
      object: { apiVersion: group ? `${group}/v1` : "v1", kind, metadata: { name: "borrowed", namespace: NS }, spec },
    };
  };

export const secret = (type: string, account?: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "long-lived", namespace: NS, ...(account ? { annotations: { "kubernetes.io/service-account.name": account } } : {}) },
  type,
});
export const secretRequest =
  (operation: "CREATE" | "UPDATE" | "DELETE", object: unknown, oldObject?: unknown) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "",
    version: "v1",
    resource: "secrets",
    namespace: NS,
    name: "long-lived",
    ...who,
    object,
    oldObject,
  });
export const tokenRequest =
  (account: string) =>
  (who: Who): AdmissionRequest => ({
    operation: "CREATE",
    group: "",
    version: "v1",
    resource: "serviceaccounts",
    subResource: "token",
    namespace: NS,
    name: account,
    ...who,
    object: { kind: "TokenRequest", spec: { audiences: ["compass-runner"], boundObjectRef: { kind: "Pod", apiVersion: "v1", name: POD.metadata.name } } },
  });
