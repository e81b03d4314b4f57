// CR-06 judged by what the admission policies decide on the request matrix,
// so a stricter policy that decides every request correctly passes.
import type { K8sObject } from "../k8s/objects.ts";
import type { Finding, RuleHit, RunScope, Severity } from "../rules/engine.ts";
import { ACTORS, FIXED, isNode, namedActors, type Actor } from "./actors.ts";
import { decider, type Decide, type Decision } from "./decide.ts";
import { matchesPolicy, namespaceLabels, type RequestShape } from "./match.ts";
import { MATRIX, type GroupName, type Row, type Who } from "./matrix.ts";
import { GITOPS_APPLIER, INFERRED_E } from "./opinions.ts";
import type { Applier } from "../k8s/gitops.ts";
import { planPolicies, type Planned } from "./plan.ts";
import { requestsFor, type AdmissionTarget, type Check, type RequestName } from "./requests.ts";
import { newAdmissionRun, type AdmissionRun } from "./run.ts";
import { dig, list } from "../k8s/access.ts";

export type { AdmissionTarget } from "./requests.ts";

const ID = "CR-06";
const FIX =
  "bind ValidatingAdmissionPolicies with validationActions [Deny] and failurePolicy Fail that deny these requests to everyone but the allowed identities (rigging renders them)";
const UNJUDGED =
  "rigging evaluates the standard CEL library and its strings extension; Kubernetes' own libraries (authorizer, quantity, url...) are not evaluated";

/** One judgement of a set: what the rows need to ask and report. */
interface Judging {
  objects: readonly K8sObject[];
  target: AdmissionTarget;
  policies: K8sObject[];
  planned: Planned[];
  namespaceObject: K8sObject;
  requests: Record<RequestName, Check>;
  groups: Map<GroupName, Actor[]>;
  decide: Decide;
  /** Functions the engine lacks, with the last request that met each. */
  unknown: Map<string, string>;
  findings: Finding[];
}

/** One finding per request kind and outcome that CR-06 decides otherwise, at the deciding field. */
export function judgeAdmission(objects: readonly K8sObject[], target: AdmissionTarget, run: AdmissionRun, appliers: readonly Applier[] = []): Finding[] {
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
  const { planned, uncompiled } = planPolicies(run, objects);
  const namespaceObject = objects.find((o) => o.kind === "Namespace" && o.metadata.name === target.namespace) ?? {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: target.namespace },
  };
  const j: Judging = {
    objects,
    target,
    policies,
    planned,
    namespaceObject,
    requests: requestsFor(target),
    groups: new Map([["named", namedActors(policies)]]),
    decide: decider(run, planned, namespaceObject),
    unknown: new Map(),
    findings: [],
  };
  for (const u of uncompiled) finding(j, u.object, u.path, u.message);
  for (const row of MATRIX) runRow(j, row);
  if (target.daemonSet) for (const applier of appliers) applierRow(j, applier);
  for (const [fn, what] of j.unknown) {
    const message = `${what} and the requests like it were not judged: a policy calls ${fn}, which rigging's CEL engine does not have`;
    j.findings.push({ object: target.anchor, path: [], message, id: ID, severity: "warning", fix: FIX, profile: "compass-runner", because: UNJUDGED });
  }
  return j.findings;
}

function runRow(j: Judging, row: Row): void {
  const check = j.requests[row.request];
  const allowed = (actor: Actor) => ask(j, check, actor).allowed;
  switch (row.kind) {
    case "expect":
      expect(j, check, actorsOf(j, row.who), row.expected, row.why);
      return;
    case "allowed":
      j.groups.set(row.as, actorsOf(j, row.among).filter(allowed));
      return;
    case "either": {
      const among = actorsOf(j, row.among);
      if (!among.some(allowed)) expect(j, check, among.slice(0, 1), "allow", row.why);
      return;
    }
    case "needs": {
      // A found group is not asked again; a list is asked until someone is allowed.
      const someone = typeof row.among === "string" ? actorsOf(j, [row.among]).length > 0 : actorsOf(j, row.among).some(allowed);
      if (someone || j.unknown.size > 0 || (row.unlessBroken && j.target.templateBroken)) return;
      const policy = row.atPolicy ? policyFor(j, check.request) : undefined;
      finding(j, policy ?? j.target.anchor, policy ? ["spec", "validations"] : [], row.missing);
    }
  }
}

/** A GitOps controller the input names, refused the DaemonSet: its sync would fail (a warning: the input cannot show it applies this one). */
function applierRow(j: Judging, applier: Applier): void {
  const actor: Actor = { who: applier.who, user: applier.user, groups: applier.groups, named: false };
  for (const check of [j.requests.createDs, j.requests.updateDs]) {
    const decision = ask(j, check, actor);
    if (decision.unknown || decision.allowed || !decision.deniedBy) continue;
    const { object, path, message: denied } = decision.deniedBy;
    const message = `${check.what} by ${applier.user} is denied (${denied}): ${applier.who} applies as that identity, assuming ${applier.assuming}; if it applies this DaemonSet, add ${applier.user} to admission.deployers`;
    j.findings.push({ object, path, message, id: ID, severity: "warning", fix: FIX, profile: "compass-runner", because: GITOPS_APPLIER });
    return;
  }
}

/** The identities of `who`, in order. */
function actorsOf(j: Judging, who: Who): Actor[] {
  return who.flatMap((name): Actor[] => {
    if (name === "fixed") return [...FIXED];
    if (name === "tokenOthers") {
      // Without a break-glass identity (reported apart) the named ones cannot be told apart: only the fixed ones are judged.
      const glass = j.groups.get("glass") ?? [];
      return glass.length === 0 ? [] : (j.groups.get("named") ?? []).filter((a) => !glass.includes(a) && !isNode(a));
    }
    if (name in ACTORS) return [ACTORS[name as keyof typeof ACTORS]];
    return j.groups.get(name as GroupName) ?? [];
  });
}

function ask(j: Judging, check: Check, actor: Actor): Decision {
  const decision = j.decide(check.request, actor.user, actor.groups);
  if (decision.unknown) j.unknown.set(decision.unknown, check.what);
  return decision;
}

function finding(j: Judging, object: K8sObject, path: PropertyKey[], message: string, severity: Severity = "error"): void {
  j.findings.push({ object, path, message, id: ID, severity, fix: FIX, profile: "compass-runner", ...(severity === "warning" ? { because: INFERRED_E } : {}) });
}

/** Reports the actors for whom the check is decided against the expectation, grouped by the field that decided. */
function expect(j: Judging, check: Check, actors: readonly Actor[], expected: "deny" | "allow", why: string): void {
  const wrong = new Map<string, { object: K8sObject; path: PropertyKey[]; who: string[]; detail?: string }>();
  for (const actor of actors) {
    const decision = ask(j, check, actor);
    if (decision.unknown || decision.allowed === (expected === "allow")) continue;
    const place = decision.allowed
      ? whyAllowed(j, check)
      : { object: decision.deniedBy!.object, path: decision.deniedBy!.path, detail: decision.deniedBy!.message };
    const key = `${place.object.kind}/${place.object.metadata.name}/${place.path.join(".")}`;
    const entry = wrong.get(key) ?? { ...place, who: [] };
    entry.who.push(actor.who);
    wrong.set(key, entry);
  }
  for (const entry of wrong.values()) {
    const verdict = expected === "deny" ? "is allowed" : "is denied";
    const who = entry.who.length > 3 ? `${entry.who.slice(0, 2).join(", ")} and ${entry.who.length - 2} other identities` : entry.who.join(", ");
    const denied = entry.detail && expected === "allow" ? ` (denied with: ${entry.detail})` : "";
    finding(j, entry.object, entry.path, `${check.what} by ${who} ${verdict}: ${why}${denied}`, check.severity);
  }
}

/** Where a wrongly allowed request should have been stopped: the deciding field of the nearest policy. */
function whyAllowed(j: Judging, check: Check): { object: K8sObject; path: PropertyKey[]; detail?: string } {
  const labels = namespaceLabels(j.namespaceObject, j.target.namespace);
  const req = check.request;
  const policy = j.planned.find((p) => matchesPolicy(p.policy, req, labels))?.policy ?? j.policies.find((p) => matchesPolicy(p, req, labels));
  if (!policy) return { object: j.target.anchor, path: [], detail: `no admission policy matches ${describe(req)}` };
  const bindings = j.objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding" && dig(o, ["spec", "policyName"]) === policy.metadata.name);
  if (bindings.length === 0) return { object: policy, path: ["metadata", "name"], detail: "the policy has no binding, so it decides nothing" };
  const deny = bindings.find((b) => list(dig(b, ["spec", "validationActions"])).includes("Deny"));
  if (!deny) return { object: bindings[0], path: ["spec", "validationActions"], detail: "the binding does not list Deny" };
  const validations = list(dig(policy, ["spec", "validations"])).length > 0;
  return { object: policy, path: validations ? ["spec", "validations"] : ["spec"], detail: "its validations admit the request" };
}

/** The first planned policy that matches the request in a namespace labelled by its name alone. */
function policyFor(j: Judging, req: RequestShape): K8sObject | undefined {
  return j.planned.find((p) => matchesPolicy(p.policy, req, { "kubernetes.io/metadata.name": j.target.namespace }))?.policy;
}

function describe(req: RequestShape): string {
  return `${req.operation} ${req.resource}${req.subResource ? `/${req.subResource}` : ""} in ${req.namespace}`;
}

/** `judgeAdmission` as the CR-06 rule's hits, with the run's state from its scope: errors as they are, warnings under CR-06's opinion keys. */
export function admissionHits(objects: readonly K8sObject[], target: AdmissionTarget, scope: RunScope): RuleHit[] {
  const opinion = (because?: string) => (because === INFERRED_E ? "port-forward-proxy" : because === GITOPS_APPLIER ? "gitops-applier" : "cel-unjudged");
  return judgeAdmission(objects, target, scope.get(newAdmissionRun), scope.appliers).map(({ object, path, message, severity, because }) =>
    severity === "error" ? { object, path, message } : { object, path, message, opinion: opinion(because) },
  );
}
