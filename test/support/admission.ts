// A small admission harness for the tests: it decides which rendered
// ValidatingAdmissionPolicies match a request (namespaceSelector on the
// namespace's name label, resourceRules with subresources, operations and
// resourceNames, as the API server matches them) and evaluates the
// policies' variables and validations with a real CEL engine.
import { run, type CelInput } from "@bufbuild/cel";
import type { K8sObject } from "../../src/core/objects.ts";

export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  resource: string;
  subResource?: string;
  namespace: string;
  name: string;
  user: string;
  groups?: string[];
  object?: unknown;
  oldObject?: unknown;
}

export interface Decision {
  allowed: boolean;
  /** The policies that matched the request. */
  matched: string[];
  messages: string[];
}

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  resourceNames?: string[];
}

const any = (list: string[] | undefined, value: string) => !list || list.includes("*") || list.includes(value);

function matches(policy: K8sObject, req: AdmissionRequest): boolean {
  const spec = policy.spec as { matchConstraints: { namespaceSelector?: { matchLabels?: Record<string, string> }; resourceRules: Rule[] } };
  const nsLabels: Record<string, string> = { "kubernetes.io/metadata.name": req.namespace };
  const wanted = spec.matchConstraints.namespaceSelector?.matchLabels ?? {};
  if (!Object.entries(wanted).every(([k, v]) => nsLabels[k] === v)) return false;
  const resource = req.subResource ? `${req.resource}/${req.subResource}` : req.resource;
  return spec.matchConstraints.resourceRules.some(
    (rule) =>
      any(rule.apiGroups, req.group) &&
      any(rule.apiVersions, req.version) &&
      any(rule.operations, req.operation) &&
      (rule.resources ?? []).includes(resource) &&
      (!rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(req.name)),
  );
}

export function admit(objects: readonly K8sObject[], req: AdmissionRequest): Decision {
  const bound = new Set(
    objects
      .filter((o) => o.kind === "ValidatingAdmissionPolicyBinding" && (o.spec as { validationActions: string[] }).validationActions.includes("Deny"))
      .map((o) => (o.spec as { policyName: string }).policyName),
  );
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy" && bound.has(o.metadata.name) && matches(o, req));
  const request = {
    operation: req.operation,
    namespace: req.namespace,
    name: req.name,
    subResource: req.subResource ?? "",
    resource: { group: req.group, version: req.version, resource: req.resource },
    userInfo: req.groups ? { username: req.user, groups: req.groups } : { username: req.user },
  };
  const messages: string[] = [];
  for (const policy of policies) {
    const spec = policy.spec as { variables?: { name: string; expression: string }[]; validations: { expression: string; message: string }[] };
    const variables: Record<string, unknown> = {};
    // Plain JSON data; the engine maps objects to CEL maps.
    const context = { request, object: req.object ?? null, oldObject: req.oldObject ?? null, variables } as unknown as Record<string, CelInput>;
    for (const v of spec.variables ?? []) variables[v.name] = run(v.expression, context);
    for (const validation of spec.validations) {
      const result = run(validation.expression, context);
      if (typeof result !== "boolean") throw new Error(`${policy.metadata.name}: ${validation.expression} gave ${String(result)}, not a bool`);
      if (!result) messages.push(validation.message);
    }
  }
  return { allowed: messages.length === 0, matched: policies.map((p) => p.metadata.name), messages };
}
