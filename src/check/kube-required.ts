// Required fields written but unset: an explicit null (the API server reads
// null as unset), or an empty list where Kubernetes validation refuses one.

/**
 * Required lists whose validation refuses an empty list, by model (without its version prefix) and field.
 * Each was refused by kube-apiserver 1.36 on a server-side dry run (`Required value`, "at least one"); a
 * required list not named here (LimitRangeSpec.limits, PodFailurePolicy.rules: accepted empty) is not judged empty.
 */
export const NON_EMPTY_LISTS: ReadonlySet<string> = new Set([
  "PodSpec.containers",
  "PolicyRule.verbs",
  "HTTPIngressRuleValue.paths",
  "NodeSelector.nodeSelectorTerms",
  "TopologySelectorLabelRequirement.values",
  "Endpoint.addresses",
  "ValidatingWebhook.admissionReviewVersions",
  "MutatingWebhook.admissionReviewVersions",
  "ValidatingAdmissionPolicyBindingSpec.validationActions",
  "SuccessPolicy.rules",
  "PodFailurePolicyOnExitCodesRequirement.values",
  "CustomResourceDefinitionSpec.versions",
  "PolicyRulesWithSubjects.subjects",
  "ResourcePolicyRule.verbs",
  "NonResourcePolicyRule.verbs",
  "NonResourcePolicyRule.nonResourceURLs",
  "CephFSVolumeSource.monitors",
  "CephFSPersistentVolumeSource.monitors",
]);

/** A model's name without its version (V1beta3PolicyRulesWithSubjects: PolicyRulesWithSubjects) and any group prefix. */
const bare = (model: string) => /V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$/.exec(model)?.[1] ?? model;

/** What is wrong with a required field's value (never undefined: missing is the caller's), or undefined. */
export function requiredProblem(model: string, field: string, value: unknown): string | undefined {
  if (value === null) return `required field "${field}" is null (${model}): Kubernetes reads null as unset`;
  if (Array.isArray(value) && value.length === 0 && NON_EMPTY_LISTS.has(`${bare(model)}.${field}`))
    return `required field "${field}" is an empty list (${model}): Kubernetes refuses it without at least one entry`;
  return undefined;
}
