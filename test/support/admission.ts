// A small admission harness for the tests: it decides which rendered
// ValidatingAdmissionPolicies match a request (namespaceSelector on the
// namespace's name label, resourceRules with subresources, operations and
// resourceNames, as the API server matches them) and evaluates the
// policies' variables and validations with a real CEL engine.
//
// The request is handed over as the API server hands it to a policy: the
// AdmissionRequest converted to JSON, so empty fields (subResource of a
// main-resource request, name of a deletecollection, groups of a user
// without any) are absent rather than "". An expression that fails to
// evaluate denies the request (failurePolicy: Fail) and is reported apart
// from the validations that said no, so that tests can tell them apart.
import { celEnv, celError, isCelError, parse, plan, type CelInput, type CelResult } from "@bufbuild/cel";
import type { K8sObject } from "../../src/k8s/objects.ts";

export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  resource: string;
  subResource?: string;
  namespace: string;
  /** Empty for a deletecollection (namespace deletion deletes this way). */
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
  /** Messages of the validations that evaluated to false. */
  messages: string[];
  /** Expressions that failed to evaluate (each denies the request). */
  errors: string[];
}

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  resourceNames?: string[];
}

interface PolicySpec {
  matchConstraints: { namespaceSelector?: { matchLabels?: Record<string, string> }; resourceRules: Rule[] };
  variables?: { name: string; expression: string }[];
  validations: { expression: string; message: string }[];
}

const any = (list: string[] | undefined, value: string) => !list || list.includes("*") || list.includes(value);

function matches(policy: K8sObject, req: AdmissionRequest): boolean {
  const spec = policy.spec as PolicySpec;
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

/** The AdmissionRequest as JSON: fields with an empty value are left out (omitempty). */
function requestJson(req: AdmissionRequest): Record<string, unknown> {
  const omitEmpty = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== "" && v !== undefined && !(Array.isArray(v) && v.length === 0)));
  return omitEmpty({
    operation: req.operation,
    namespace: req.namespace,
    name: req.name,
    subResource: req.subResource,
    resource: { group: req.group, version: req.version, resource: req.resource },
    userInfo: omitEmpty({ username: req.user, groups: req.groups }),
  });
}

type Program = (bindings: Record<string, CelInput>) => CelResult;
const programs = new Map<string, Program>();
const ENV = celEnv();

/** Parses and plans an expression once; a syntax error is returned as an error, like `run`. */
function compile(expression: string): Program {
  let program = programs.get(expression);
  if (!program) {
    try {
      program = plan(ENV, parse(expression)) as Program;
    } catch (e) {
      const error = celError(e);
      program = () => error;
    }
    programs.set(expression, program);
  }
  return program;
}

export function admit(objects: readonly K8sObject[], req: AdmissionRequest): Decision {
  const bound = new Set(
    objects
      .filter((o) => o.kind === "ValidatingAdmissionPolicyBinding" && (o.spec as { validationActions: string[] }).validationActions.includes("Deny"))
      .map((o) => (o.spec as { policyName: string }).policyName),
  );
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy" && bound.has(o.metadata.name) && matches(o, req));
  const request = requestJson(req);
  const messages: string[] = [];
  const errors: string[] = [];
  for (const policy of policies) {
    const spec = policy.spec as PolicySpec;
    const variables: Record<string, unknown> = {};
    // Plain JSON data; the engine maps objects to CEL maps.
    const context = { request, object: req.object ?? null, oldObject: req.oldObject ?? null, variables } as unknown as Record<string, CelInput>;
    const evaluate = (expression: string) => {
      let result: CelResult;
      try {
        result = compile(expression)(context);
      } catch (e) {
        result = celError(e);
      }
      if (isCelError(result)) errors.push(`${policy.metadata.name}: ${expression}: ${result.message}`);
      return result;
    };
    // The API server evaluates variables lazily; evaluating them all up
    // front is stricter: a variable that fails is an error even if unused.
    for (const v of spec.variables ?? []) variables[v.name] = evaluate(v.expression);
    for (const validation of spec.validations) {
      const result = evaluate(validation.expression);
      if (isCelError(result)) continue;
      if (typeof result !== "boolean") errors.push(`${policy.metadata.name}: ${validation.expression} gave ${String(result)}, not a bool`);
      else if (!result) messages.push(validation.message);
    }
  }
  return { allowed: messages.length === 0 && errors.length === 0, matched: policies.map((p) => p.metadata.name), messages, errors };
}
