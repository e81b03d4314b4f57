// CR-06: ValidatingAdmissionPolicies standing in for the guard rails the
// `privileged` Pod Security level leaves out (G-10). Each matches one object
// shape so the API server's type checking sees every field it reads.
import type {
  MatchResources,
  NamedRuleWithOperations,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
} from "kubernetes-types/admissionregistration/v1";
import type { K8sObject } from "../../k8s/objects.ts";
import { celList, celMap, celString, invariants, POD_SELECTOR_VAR, type RunnerShape } from "./admission-cel.ts";

export { celList } from "./admission-cel.ts";

export interface AdmissionInput extends RunnerShape {
  /** Prefix of the cluster-scoped policy names: unique per installation. */
  prefix: string;
  namespace: string;
  /** Labels of the policies and bindings themselves. */
  labels: Record<string, string>;
  /** The Runner DaemonSet: the one DaemonSet of the namespace and the owner of every pod in it. */
  daemonSetName: string;
  /** The DaemonSet's selector labels, which its NetworkPolicy selects the pods by too. */
  podSelector: Record<string, string>;
  controllers: readonly string[];
  deployers: readonly string[];
  breakGlassGroups: readonly string[];
}

/** Cluster housekeeping that must keep working on the DaemonSet (namespace deletion, garbage collection). */
export const HOUSEKEEPERS = [
  "system:serviceaccount:kube-system:namespace-controller",
  "system:serviceaccount:kube-system:generic-garbage-collector",
  "system:kube-controller-manager",
] as const;

/** Workload kinds that would run pods in the Runner namespace besides its DaemonSet. */
export const OTHER_WORKLOADS: readonly { group: string; resources: string[] }[] = [
  { group: "", resources: ["replicationcontrollers"] },
  { group: "apps", resources: ["deployments", "replicasets", "statefulsets"] },
  { group: "batch", resources: ["jobs", "cronjobs"] },
];

/** Every request the policies guard, as [resource, operation]: what `check` looks for. */
export const GUARDED_REQUESTS: readonly (readonly [string, string])[] = [
  ...["exec", "attach", "portforward", "proxy"].map((sub) => [`pods/${sub}`, "CONNECT"] as const),
  ...["pods", "pods/status", "pods/ephemeralcontainers", "pods/resize"].map((resource) => [resource, "UPDATE"] as const),
  ["pods", "CREATE"],
  ...OTHER_WORKLOADS.flatMap((w) => w.resources.map((resource) => [resource, "CREATE"] as const)),
  ["daemonsets", "CREATE"],
  ["daemonsets", "UPDATE"],
  ["daemonsets", "DELETE"],
  ["serviceaccounts/token", "CREATE"],
  ["secrets", "CREATE"],
];

const IS_BREAK_GLASS = "has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in variables.breakGlassGroups)";
/** A pod or its status: request.subResource is absent (not "") on the main resource. */
const MAIN_OR_STATUS = '(!has(request.subResource) || request.subResource == "status")';
const sameMeta = (field: string) =>
  `has(object.metadata.${field}) == has(oldObject.metadata.${field}) && (!has(object.metadata.${field}) || object.metadata.${field} == oldObject.metadata.${field})`;
/** The label the DaemonSet controller rewrites on its pods when it merges duplicate revisions. */
export const REVISION_LABEL = "controller-revision-hash";
const sameLabelsBut = (key: string) => {
  const [now, before] = ["object.metadata.labels", "oldObject.metadata.labels"];
  return `has(${now}) && has(${before}) && ${celString(key)} in ${now} && ${celString(key)} in ${before} && ${now}.all(k, k == ${celString(key)} || (k in ${before} && ${before}[k] == ${now}[k])) && ${before}.all(k, k == ${celString(key)} || k in ${now})`;
};

/** podAccess's value-independent expressions, made once (see invariantTexts). */
const IS_CHANGE = `variables.isPod && request.operation == "UPDATE" && ${MAIN_OR_STATUS}`;
const SAME_ANNOTATIONS = `variables.isChange && ${sameMeta("annotations")}`;
const SAME_LABELS = `variables.isChange && ${sameMeta("labels")}`;
const ONLY_RELABELLED = `variables.isChange && request.userInfo.username in variables.controllers && ${sameLabelsBut(REVISION_LABEL)}`;

/** kubernetes-types drops fields the upstream Rule inlines. */
type ResourceRule = NamedRuleWithOperations & { resources: string[]; scope?: string };
type PolicySpec = Omit<ValidatingAdmissionPolicySpec, "matchConstraints"> & {
  matchConstraints: Omit<MatchResources, "resourceRules"> & { resourceRules: ResourceRule[] };
};
type Policy = Omit<ValidatingAdmissionPolicy, "spec"> & K8sObject & { spec: PolicySpec };
type Binding = ValidatingAdmissionPolicyBinding & K8sObject;

const core = (resources: string[], operations: string[], resourceNames?: string[]): ResourceRule => ({
  apiGroups: [""],
  apiVersions: ["v1"],
  resources,
  operations,
  ...(resourceNames ? { resourceNames } : {}),
});

export function admissionPolicies(input: AdmissionInput): K8sObject[] {
  const policies = [podAccess(input), podCreate(input), daemonSet(input), token(input)];
  return [...policies, ...policies.map((p) => binding(input, p))];
}

/** Runner pods once they exist: only break-glass members get in or change them; no other workload. */
function podAccess(input: AdmissionInput): Policy {
  const groups = input.breakGlassGroups.join(", ");
  return policy(input, "pod-access", {
    matchConstraints: {
      namespaceSelector: inNamespace(input),
      resourceRules: [
        // CONNECT requests; port-forward and proxy would bypass the NetworkPolicy.
        core(["pods/exec", "pods/attach", "pods/portforward", "pods/proxy"], ["CONNECT"]),
        // Kubelets write pods/status; the garbage collector and the
        // DaemonSet controller change finalizers and ownerReferences.
        core(["pods", "pods/status", "pods/ephemeralcontainers", "pods/resize"], ["UPDATE"]),
        ...OTHER_WORKLOADS.map((w) => ({ apiGroups: [w.group], apiVersions: ["v1"], resources: w.resources, operations: ["CREATE"] })),
      ],
    },
    variables: [
      // Kept first: the profile tests read the break-glass groups here.
      { name: "breakGlassGroups", expression: celList(input.breakGlassGroups) },
      { name: "isBreakGlass", expression: IS_BREAK_GLASS },
      { name: "controllers", expression: celList(input.controllers) },
      { name: "isPod", expression: 'request.resource.resource == "pods"' },
      { name: "isChange", expression: IS_CHANGE },
      // Read only for a change (an UPDATE has an oldObject).
      { name: "sameAnnotations", expression: SAME_ANNOTATIONS },
      { name: "sameLabels", expression: SAME_LABELS },
      { name: "onlyRevisionRelabelled", expression: ONLY_RELABELLED },
    ],
    validations: [
      {
        expression: "!variables.isPod || variables.isChange || variables.isBreakGlass",
        message: `exec, attach, port-forward, proxy, ephemeral containers and resizing on Compass Runner pods are reserved to the break-glass groups ${groups} (CR-06a, CR-06e)`,
        reason: "Forbidden",
      },
      {
        // pods/status resets the spec but not metadata; the DaemonSet controller relabels revisions.
        expression:
          "!variables.isChange || variables.isBreakGlass || (object.spec == oldObject.spec && variables.sameAnnotations && (variables.sameLabels || variables.onlyRevisionRelabelled))",
        message: `a Compass Runner pod may change only in its finalizers and ownerReferences (garbage collection, adoption), its status, and (by ${input.controllers.join(", ")}) its ${REVISION_LABEL} label; its spec, labels and annotations are reserved to the break-glass groups ${groups} (CR-06e)`,
        reason: "Forbidden",
      },
      {
        expression: "variables.isPod",
        message: `the Compass Runner namespace ${input.namespace} holds only the DaemonSet ${input.daemonSetName}: no other workload may run pods there or use the ServiceAccount ${input.serviceAccount} (CR-06e)`,
        reason: "Forbidden",
      },
    ],
  });
}

/** New pods: made by a controller, owned by the Runner DaemonSet, keeping the invariants. */
function podCreate(input: AdmissionInput): Policy {
  return policy(input, "pod-create", {
    matchConstraints: {
      namespaceSelector: inNamespace(input),
      // Only CREATE on the main resource: DELETE (the DaemonSet controller,
      // the namespace controller) is not matched, so housekeeping goes on.
      resourceRules: [core(["pods"], ["CREATE"])],
    },
    variables: [
      { name: "controllers", expression: celList(input.controllers) },
      { name: POD_SELECTOR_VAR, expression: celMap(input.podSelector) },
    ],
    validations: [
      {
        expression: "request.userInfo.username in variables.controllers",
        message: `only ${input.controllers.join(", ")} may create pods in the Compass Runner namespace ${input.namespace} (CR-06b)`,
        reason: "Forbidden",
      },
      {
        // system:kube-controller-manager creates every controller's pods
        // when controllers share its credentials: the owner tells them apart.
        expression: `has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller && r.apiVersion == "apps/v1" && r.kind == "DaemonSet" && r.name == ${celString(input.daemonSetName)})`,
        message: `a pod in the Compass Runner namespace ${input.namespace} must be owned (controller ownerReference) by the DaemonSet ${input.daemonSetName} (CR-06e)`,
        reason: "Forbidden",
      },
      ...invariants("a Compass Runner pod", input, { spec: "object.spec", meta: "object.metadata" }),
    ],
  });
}

/** The DaemonSet: deployers change it within the invariants; housekeeping may delete it. */
function daemonSet(input: AdmissionInput): Policy {
  return policy(input, "daemonset", {
    matchConstraints: {
      namespaceSelector: inNamespace(input),
      // Every DaemonSet of the namespace, not only the Runner's by name: the
      // namespace holds only the Runner's.
      resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["daemonsets"], operations: ["CREATE", "UPDATE", "DELETE"] }],
    },
    variables: [
      { name: "deployers", expression: celList(input.deployers) },
      { name: "housekeepers", expression: celList(HOUSEKEEPERS) },
      { name: POD_SELECTOR_VAR, expression: celMap(input.podSelector) },
      // A metadata-only change: finalizers, labels, annotations.
      { name: "specUnchanged", expression: 'request.operation == "UPDATE" && object.spec == oldObject.spec' },
    ],
    validations: [
      {
        expression:
          'request.userInfo.username in variables.deployers || (request.userInfo.username in variables.housekeepers && (request.operation == "DELETE" || variables.specUnchanged))',
        message: `only ${input.deployers.join(", ")} may create, change or delete the Compass Runner DaemonSet; the namespace controller and the garbage collector may delete it and change its metadata (CR-06c)`,
        reason: "Forbidden",
      },
      {
        expression: `request.operation == "DELETE" || object.metadata.name == ${celString(input.daemonSetName)}`,
        message: `the Compass Runner namespace ${input.namespace} holds only the DaemonSet ${input.daemonSetName} (CR-06e)`,
        reason: "Forbidden",
      },
      ...invariants("the Compass Runner DaemonSet's pod template", input, {
        spec: "object.spec.template.spec",
        meta: "object.spec.template.metadata",
        metaPresent: "has(object.spec.template.metadata)",
        skipWhen: 'request.operation == "DELETE" || variables.specUnchanged',
      }),
    ],
  });
}

/** Runner tokens: TokenRequests and Secret-type tokens for the Runner ServiceAccount. */
function token(input: AdmissionInput): Policy {
  const sa = celString(input.serviceAccount);
  const tokenSecretFor = (o: string) =>
    `has(${o}.type) && ${o}.type == "kubernetes.io/service-account-token" && has(${o}.metadata.annotations) && "kubernetes.io/service-account.name" in ${o}.metadata.annotations && ${o}.metadata.annotations["kubernetes.io/service-account.name"] == ${sa}`;
  return policy(input, "token", {
    matchConstraints: {
      namespaceSelector: inNamespace(input),
      resourceRules: [core(["serviceaccounts/token"], ["CREATE"], [input.serviceAccount]), core(["secrets"], ["CREATE", "UPDATE"])],
    },
    variables: [
      { name: "breakGlassGroups", expression: celList(input.breakGlassGroups) },
      { name: "isBreakGlass", expression: IS_BREAK_GLASS },
      { name: "isSecret", expression: 'request.resource.resource == "secrets"' },
      { name: "isRunnerTokenSecret", expression: `variables.isSecret && ${tokenSecretFor("object")}` },
      // The token controller fills in a token Secret that already names the account.
      { name: "wasRunnerTokenSecret", expression: `variables.isSecret && request.operation == "UPDATE" && ${tokenSecretFor("oldObject")}` },
    ],
    validations: [
      {
        // Kubelets mint the projected token as system:node:<name> in group
        // system:nodes; anyone else holding one could enroll as a Runner.
        expression:
          'variables.isSecret || variables.isBreakGlass || (has(request.userInfo.groups) && "system:nodes" in request.userInfo.groups && request.userInfo.username.startsWith("system:node:"))',
        message: `only kubelets (system:nodes) and the break-glass groups ${input.breakGlassGroups.join(", ")} may request tokens for the Compass Runner ServiceAccount ${input.serviceAccount} (CR-06d)`,
        reason: "Forbidden",
      },
      {
        expression: "!variables.isRunnerTokenSecret || variables.wasRunnerTokenSecret || variables.isBreakGlass",
        message: `only the break-glass groups ${input.breakGlassGroups.join(", ")} may create a Secret-type token for the Compass Runner ServiceAccount ${input.serviceAccount} (CR-06d)`,
        reason: "Forbidden",
      },
    ],
  });
}

function inNamespace(input: AdmissionInput) {
  return { matchLabels: { "kubernetes.io/metadata.name": input.namespace } };
}

function policy(input: AdmissionInput, suffix: string, spec: Omit<PolicySpec, "failurePolicy">): Policy {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${input.prefix}-${suffix}`, labels: input.labels },
    spec: { failurePolicy: "Fail", ...spec },
  };
}

function binding(input: AdmissionInput, target: Policy): Binding {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: target.metadata.name, labels: input.labels },
    spec: { policyName: target.metadata.name, validationActions: ["Deny"] },
  };
}
