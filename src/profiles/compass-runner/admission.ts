// CR-06: ValidatingAdmissionPolicies that stand in for the guard rails the
// `privileged` Pod Security level leaves out (G-10). The CEL is the
// standard subset (has, in, exists, ternaries), so the API server and the
// test engine run the very same text.
import type {
  MatchResources,
  NamedRuleWithOperations,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
} from "kubernetes-types/admissionregistration/v1";
import type { K8sObject } from "../../core/objects.ts";

export interface AdmissionInput {
  /** Prefix of the cluster-scoped policy names: unique per installation. */
  prefix: string;
  namespace: string;
  serviceAccount: string;
  labels: Record<string, string>;
  controllers: readonly string[];
  deployers: readonly string[];
  breakGlassGroups: readonly string[];
}

/**
 * Identities of the cluster's own housekeeping that must keep working on
 * the DaemonSet: the namespace controller and garbage collector delete it
 * (and the collector updates its finalizers) when the namespace or owner
 * goes. With --use-service-account-credentials=false they all act as
 * system:kube-controller-manager.
 */
export const HOUSEKEEPERS = [
  "system:serviceaccount:kube-system:namespace-controller",
  "system:serviceaccount:kube-system:generic-garbage-collector",
  "system:kube-controller-manager",
] as const;

/** A CEL list literal of strings; JSON string syntax is valid CEL. */
export function celList(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(", ")}]`;
}

const IS_BREAK_GLASS = "has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in variables.breakGlassGroups)";

/**
 * kubernetes-types 1.30 drops the fields NamedRuleWithOperations inlines
 * from Rule (`resources`, `scope`); the upstream API has them.
 */
type ResourceRule = NamedRuleWithOperations & { resources: string[]; scope?: string };
type PolicySpec = Omit<ValidatingAdmissionPolicySpec, "matchConstraints"> & {
  matchConstraints: Omit<MatchResources, "resourceRules"> & { resourceRules: ResourceRule[] };
};
type Policy = Omit<ValidatingAdmissionPolicy, "spec"> & K8sObject & { spec: PolicySpec };
type Binding = ValidatingAdmissionPolicyBinding & K8sObject;

export function admissionPolicies(input: AdmissionInput): K8sObject[] {
  const inNamespace = { matchLabels: { "kubernetes.io/metadata.name": input.namespace } };
  const breakGlass = { name: "breakGlassGroups", expression: celList(input.breakGlassGroups) };

  const podAccess = policy(input, "pod-access", {
    failurePolicy: "Fail",
    matchConstraints: {
      namespaceSelector: inNamespace,
      resourceRules: [
        // exec and attach arrive as CONNECT on the subresource, carrying
        // PodExecOptions/PodAttachOptions (no labels): the namespace, which
        // holds only Runner pods, is what marks them as Runner pods.
        { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec", "pods/attach"], operations: ["CONNECT"] },
        { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/ephemeralcontainers"], operations: ["UPDATE"] },
      ],
    },
    variables: [breakGlass],
    validations: [
      {
        expression: IS_BREAK_GLASS,
        message: `exec, attach and ephemeral containers on Compass Runner pods are reserved to the break-glass groups ${input.breakGlassGroups.join(", ")} (CR-06a)`,
        reason: "Forbidden",
      },
    ],
  });

  const podCreate = policy(input, "pod-create", {
    failurePolicy: "Fail",
    matchConstraints: {
      namespaceSelector: inNamespace,
      // Only the main resource: pods/status (kubelets) and DELETE (the
      // DaemonSet controller) are not matched, so housekeeping goes on.
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"] }],
    },
    variables: [{ name: "controllers", expression: celList(input.controllers) }],
    validations: [
      {
        expression: "request.userInfo.username in variables.controllers",
        message: `only ${input.controllers.join(", ")} may create pods in the Compass Runner namespace ${input.namespace} (CR-06b)`,
        reason: "Forbidden",
      },
    ],
  });

  const daemonSet = policy(input, "daemonset", {
    failurePolicy: "Fail",
    matchConstraints: {
      namespaceSelector: inNamespace,
      // Every DaemonSet of the namespace, not only the Runner's by name:
      // another DaemonSet would have the DaemonSet controller (an allowed
      // creator of pods) start non-Runner pods in the Runner namespace.
      resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["daemonsets"], operations: ["CREATE", "UPDATE", "DELETE"] }],
    },
    variables: [
      { name: "deployers", expression: celList(input.deployers) },
      { name: "housekeepers", expression: celList(HOUSEKEEPERS) },
    ],
    validations: [
      {
        expression: "request.userInfo.username in variables.deployers || (request.operation != 'CREATE' && request.userInfo.username in variables.housekeepers)",
        message: `only ${input.deployers.join(", ")} may create, update or delete the Compass Runner DaemonSet (CR-06c)`,
        reason: "Forbidden",
      },
    ],
  });

  const token = policy(input, "token", {
    failurePolicy: "Fail",
    matchConstraints: {
      namespaceSelector: inNamespace,
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["serviceaccounts/token"], operations: ["CREATE"], resourceNames: [input.serviceAccount] }],
    },
    variables: [breakGlass],
    validations: [
      {
        // Kubelets mint the projected token as system:node:<name> in group
        // system:nodes; anyone else holding one could enroll as a Runner.
        expression: `(has(request.userInfo.groups) && "system:nodes" in request.userInfo.groups) || (${IS_BREAK_GLASS})`,
        message: `only kubelets (system:nodes) and the break-glass groups may request tokens for the Compass Runner ServiceAccount ${input.serviceAccount} (CR-06d)`,
        reason: "Forbidden",
      },
    ],
  });

  const policies = [podAccess, podCreate, daemonSet, token];
  return [...policies, ...policies.map((p) => binding(input, p))];
}

function policy(input: AdmissionInput, suffix: string, spec: PolicySpec): Policy {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${input.prefix}-${suffix}`, labels: input.labels },
    spec,
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
