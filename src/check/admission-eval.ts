// The API server's side of ValidatingAdmissionPolicies, for judging
// hand-written policies by what they decide rather than by how they look:
// which policies and bindings match a request (namespaceSelector,
// objectSelector, resourceRules with subresources, operations and
// resourceNames, excludeResourceRules, matchConditions), what their CEL
// variables and validations answer (a real CEL engine, loaded only when a
// set holds policies), and what the binding's validationActions and the
// policy's failurePolicy make of it.
import { createRequire } from "node:module";
import type { K8sObject } from "../core/objects.ts";
import { dig } from "../rules/engine.ts";
import { isRecord, list, selects } from "../rules/templates.ts";

export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  resource: string;
  subResource?: string;
  kind: string;
  namespace: string;
  name: string;
  user: string;
  groups?: readonly string[];
  object?: unknown;
  oldObject?: unknown;
}

/** Why a request was decided as it was, to point a finding at the field that decided it. */
export interface Decision {
  allowed: boolean;
  /** Undecided: a policy that matched uses a function the engine does not have. */
  unknown?: string;
  /** The policy (and field) that denied it. */
  deniedBy?: { object: K8sObject; path: PropertyKey[]; message: string };
}

/** A policy found in a set, with its CEL planned once. */
interface Planned {
  policy: K8sObject;
  bindings: K8sObject[];
  failClosed: boolean;
  matchConditions: { fn: Evaluator; path: PropertyKey[] }[];
  variables: { name: string; fn: Evaluator }[];
  validations: { fn: Evaluator; path: PropertyKey[]; message: string }[];
}

type Evaluator = (context: Record<string, unknown>) => unknown;

/** A CEL expression that the API server would refuse, with where it is. */
export interface Uncompiled {
  object: K8sObject;
  path: PropertyKey[];
  message: string;
}

// ----------------------------------------------------------------- CEL engine

interface Cel {
  plan(env: unknown, parsed: unknown): (context: Record<string, unknown>) => unknown;
  parse(expression: string): unknown;
  isCelError(value: unknown): value is Error;
  env: unknown;
}

let engine: Cel | undefined;

/** The longest CEL expression evaluated (the API server's own limit on one is 5 KiB: x-kubernetes validation maxLength). */
const MAX_EXPRESSION = 64 * 1024;

/** The CEL engine, loaded on first use: a check of a set without policies never pays for it. */
function cel(): Cel {
  if (engine) return engine;
  // Literal require() calls, so that the bundle and the standalone executable
  // carry the engine; the sources under test run as ES modules, without require.
  const [coreModule, extModule] =
    typeof require === "function" ? [require("@bufbuild/cel"), require("@bufbuild/cel/ext")] : [createRequire(import.meta.url)("@bufbuild/cel"), createRequire(import.meta.url)("@bufbuild/cel/ext")];
  const core = coreModule as { celEnv(options: unknown): unknown; plan: Cel["plan"]; parse: Cel["parse"]; isCelError: Cel["isCelError"] };
  const { strings } = extModule as { strings: unknown };
  engine = { plan: core.plan, parse: core.parse, isCelError: core.isCelError, env: core.celEnv({ funcs: strings }) };
  return engine;
}

/** CEL results: a value, or an error (evaluation failed), or an unsupported function. */
type Outcome = { value: unknown } | { error: string } | { unsupported: string };

function evaluate(fn: Evaluator, context: Record<string, unknown>): Outcome {
  const { isCelError } = cel();
  let value: unknown;
  try {
    value = fn(context);
  } catch (error) {
    return { error: (error as Error).message };
  }
  if (!isCelError(value)) return { value };
  const unbound = /unbound function: (\S+)/.exec(value.message);
  return unbound ? { unsupported: unbound[1] } : { error: value.message };
}

// ------------------------------------------------------------------- policies

/** Plans every bound ValidatingAdmissionPolicy of the set; expressions that do not compile are returned apart. */
export function planPolicies(objects: readonly K8sObject[]): { planned: Planned[]; uncompiled: Uncompiled[] } {
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
  const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
  const planned: Planned[] = [];
  const uncompiled: Uncompiled[] = [];
  if (policies.length === 0) return { planned, uncompiled };
  const { plan, parse, env } = cel();
  for (const policy of policies) {
    const spec = isRecord(policy.spec) ? policy.spec : {};
    const compile = (expression: unknown, path: PropertyKey[]): Evaluator | undefined => {
      if (typeof expression !== "string") {
        uncompiled.push({ object: policy, path, message: "the expression is not a string" });
        return undefined;
      }
      // Read no further than the API server would: it refuses a policy whose CEL is this long, and
      // the CEL parser is not linear on hostile text (test/hardening/linear-time.test.ts).
      if (expression.length > MAX_EXPRESSION) {
        uncompiled.push({ object: policy, path, message: `is ${expression.length} characters long, over the ${MAX_EXPRESSION} rigging evaluates: the API server refuses such a policy` });
        return undefined;
      }
      try {
        return plan(env, parse(expression)) as Evaluator;
      } catch (error) {
        uncompiled.push({ object: policy, path, message: `does not compile (${firstLine((error as Error).message)}): the API server refuses the policy` });
        return undefined;
      }
    };
    const entry: Planned = {
      policy,
      bindings: bindings.filter((b) => dig(b, ["spec", "policyName"]) === policy.metadata.name),
      failClosed: spec.failurePolicy !== "Ignore",
      matchConditions: [],
      variables: [],
      validations: [],
    };
    let broken = false;
    list<Record<string, unknown>>(spec.matchConditions).forEach((c, i) => {
      const fn = compile(c?.expression, ["spec", "matchConditions", i, "expression"]);
      if (fn) entry.matchConditions.push({ fn, path: ["spec", "matchConditions", i, "expression"] });
      else broken = true;
    });
    list<Record<string, unknown>>(spec.variables).forEach((v, i) => {
      const fn = compile(v?.expression, ["spec", "variables", i, "expression"]);
      if (fn && typeof v?.name === "string") entry.variables.push({ name: v.name, fn });
      else broken = true;
    });
    list<Record<string, unknown>>(spec.validations).forEach((v, i) => {
      const fn = compile(v?.expression, ["spec", "validations", i, "expression"]);
      if (fn) entry.validations.push({ fn, path: ["spec", "validations", i, "expression"], message: typeof v?.message === "string" ? v.message : `failed expression: ${String(v?.expression)}` });
      else broken = true;
    });
    // A policy the API server refuses is not in the cluster: it decides nothing.
    if (!broken) planned.push(entry);
  }
  return { planned, uncompiled };
}

/** Whether a policy's (or binding's) match rules take a request, as the API server matches them. */
export function matchesRules(match: unknown, req: AdmissionRequest, namespaceLabels: Record<string, string>): boolean {
  if (match === undefined || match === null) return true;
  if (!isRecord(match)) return false;
  if (!selects(match.namespaceSelector ?? {}, namespaceLabels)) return false;
  const objectSelector = match.objectSelector ?? {};
  const labelsOf = (o: unknown) => (isRecord(o) && isRecord(o.metadata) && isRecord(o.metadata.labels) ? (o.metadata.labels as Record<string, string>) : {});
  if (!selects(objectSelector, labelsOf(req.object)) && !selects(objectSelector, labelsOf(req.oldObject))) return false;
  const rules = match.resourceRules;
  // A binding's matchResources may leave resourceRules out (the policy's decide); a policy's may not.
  if (rules !== undefined && !list<Record<string, unknown>>(rules).some((rule) => ruleMatches(rule, req))) return false;
  return !list<Record<string, unknown>>(match.excludeResourceRules).some((rule) => ruleMatches(rule, req));
}

function ruleMatches(rule: Record<string, unknown>, req: AdmissionRequest): boolean {
  const any = (field: string, value: string) => {
    const values = list<unknown>(rule?.[field]);
    return values.includes("*") || values.includes(value);
  };
  if (!isRecord(rule) || !any("apiGroups", req.group) || !any("apiVersions", req.version) || !any("operations", req.operation)) return false;
  const scope = rule.scope;
  if (scope === "Cluster") return false; // every request judged here is namespaced
  const resources = list<unknown>(rule.resources);
  const sub = req.subResource ?? "";
  const hit = sub === "" ? resources.includes("*") || resources.includes(req.resource) : resources.some((r) => r === "*/*" || r === `${req.resource}/${sub}` || r === `${req.resource}/*` || r === `*/${sub}`);
  if (!hit) return false;
  const names = list<unknown>(rule.resourceNames);
  return names.length === 0 || names.includes(req.name);
}

/** The API server's decision on one request: every matching policy, through its bindings. */
export function decide(planned: readonly Planned[], req: AdmissionRequest, namespaceObject: K8sObject): Decision {
  const namespaceLabels = { ...((namespaceObject.metadata?.labels as Record<string, string> | undefined) ?? {}), "kubernetes.io/metadata.name": req.namespace };
  const request = {
    kind: { group: req.group, version: req.version, kind: req.kind },
    resource: { group: req.group, version: req.version, resource: req.resource },
    subResource: req.subResource ?? "",
    requestKind: { group: req.group, version: req.version, kind: req.kind },
    requestResource: { group: req.group, version: req.version, resource: req.resource },
    requestSubResource: req.subResource ?? "",
    name: req.name,
    namespace: req.namespace,
    operation: req.operation,
    userInfo: { username: req.user, uid: `uid-${req.user}`, ...(req.groups ? { groups: [...req.groups] } : {}) },
    dryRun: false,
    options: {},
  };
  const base = { request: celData(request), object: cached(req.object), oldObject: cached(req.oldObject), namespaceObject: cached(namespaceObject), params: null };
  let unknown: string | undefined;
  for (const entry of planned) {
    if (!matchesRules(dig(entry.policy, ["spec", "matchConstraints"]), req, namespaceLabels)) continue;
    const denying = entry.bindings.filter((b) => list(dig(b, ["spec", "validationActions"])).includes("Deny") && matchesRules(dig(b, ["spec", "matchResources"]), req, namespaceLabels));
    if (denying.length === 0) continue;
    const verdict = judgePolicy(entry, base);
    if (verdict === undefined) continue;
    if ("deniedBy" in verdict) return { allowed: false, deniedBy: verdict.deniedBy };
    unknown ??= verdict.unknown;
  }
  return unknown === undefined ? { allowed: true } : { allowed: false, unknown };
}

/** One policy's answer: undefined when it admits the request. */
function judgePolicy(entry: Planned, base: Record<string, unknown>): { deniedBy: NonNullable<Decision["deniedBy"]> } | { unknown: string } | undefined {
  const variables: Record<string, unknown> = {};
  const context = { ...base, variables };
  const failed = (path: PropertyKey[], error: string) => (entry.failClosed ? { deniedBy: { object: entry.policy, path, message: `evaluation failed (${error}) and failurePolicy is Fail` } } : undefined);
  for (const condition of entry.matchConditions) {
    const outcome = evaluate(condition.fn, context);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) return failed(condition.path, outcome.error);
    if (outcome.value === false) return undefined;
  }
  // Variables are computed in order; one that fails stays unset, and fails what reads it.
  for (const variable of entry.variables) {
    const outcome = evaluate(variable.fn, context);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("value" in outcome) variables[variable.name] = outcome.value;
  }
  for (const validation of entry.validations) {
    const outcome = evaluate(validation.fn, context);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) {
      const denied = failed(validation.path, outcome.error);
      if (denied) return denied;
      continue;
    }
    if (outcome.value !== true) return { deniedBy: { object: entry.policy, path: validation.path, message: validation.message } };
  }
  return undefined;
}

/** Objects are asked about many times (one request per identity): converted once. */
const converted = new WeakMap<object, unknown>();
function cached(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return celData(value);
  if (!converted.has(value)) converted.set(value, celData(value));
  return converted.get(value);
}

/** Plain data as CEL sees Kubernetes objects: whole numbers are ints (bigint), not doubles. */
function celData(value: unknown, depth = 0): unknown {
  if (depth > 200) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((item) => celData(item, depth + 1));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celData(v, depth + 1)]));
  return value;
}

function firstLine(text: string): string {
  return text.split("\n")[0];
}
