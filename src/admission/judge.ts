// CR-06 judged by what the admission policies decide. A matrix of requests
// (who: an ordinary user, a user without groups, a kubelet, the DaemonSet
// controller, the cluster's housekeepers, and every identity the policies
// name; what: exec, attach, ephemeral containers, port-forward and proxy on
// a Runner pod, creating a Runner pod, changing the Runner DaemonSet,
// requesting a token for the Runner ServiceAccount, and the housekeeping the
// policies must leave alone) is run through the policies and bindings of the
// set (eval.ts), and each request decided against CR-06 a-e is a
// finding. So a policy of `true`, an Audit-only binding or a missing
// break-glass exception is an error, while a stricter policy that decides
// every request correctly (a `pods/*` rule on CONNECT, say) passes.
import type { K8sObject } from "../core/objects.ts";
import type { Finding, RuleHit, Severity } from "../rules/engine.ts";
import { dig } from "../rules/engine.ts";
import { isRecord, list } from "../rules/templates.ts";
import { decider, matchesRules, planPolicies, type AdmissionRequest, type Decision } from "./eval.ts";
import { INFERRED_E } from "./opinions.ts";

export interface AdmissionContext {
  /** The Runner namespace: it holds only Runner pods (CR-06b), which marks a pod on a CONNECT request. */
  namespace: string;
  /** The Runner ServiceAccount, whose tokens enroll a Runner (CR-06d). */
  serviceAccount: string;
  /** The Runner DaemonSet: the object of DaemonSet requests, and the template of the Runner pod. */
  daemonSet?: K8sObject;
  /** Where a finding goes when no policy field decided it (usually the DaemonSet). */
  anchor: K8sObject;
  /**
   * The DaemonSet's template breaks a Runner invariant that another rule
   * reports (CR-09, CR-10, G-05, G-06): policies that refuse it are right,
   * so "no identity may create" is not said of them.
   */
  templateBroken?: boolean;
}

const ID = "CR-06";
const FIX =
  "bind ValidatingAdmissionPolicies with validationActions [Deny] and failurePolicy Fail that deny these requests to everyone but the allowed identities (rigging renders them)";

interface Actor {
  who: string;
  user: string;
  groups?: string[];
  /** Named in the policies (a configured controller, deployer or break-glass identity). */
  named: boolean;
}

const AUTHENTICATED = "system:authenticated";
const sa = (ns: string, name: string): Actor => ({
  who: `the ServiceAccount ${ns}/${name}`,
  user: `system:serviceaccount:${ns}:${name}`,
  groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, AUTHENTICATED],
  named: false,
});

const ORDINARY: Actor = { who: "an ordinary user (alice)", user: "alice", groups: [AUTHENTICATED, "developers"], named: false };
const NO_GROUPS: Actor = { who: "a user with no groups (bob)", user: "bob", named: false };
const KUBELET: Actor = { who: "a kubelet (system:node:node-1)", user: "system:node:node-1", groups: ["system:nodes", AUTHENTICATED], named: false };
const DS_CONTROLLER = sa("kube-system", "daemon-set-controller");
const NS_CONTROLLER = sa("kube-system", "namespace-controller");
const GC = sa("kube-system", "generic-garbage-collector");
const KCM: Actor = {
  who: "the controller manager (system:kube-controller-manager)",
  user: "system:kube-controller-manager",
  groups: [AUTHENTICATED],
  named: false,
};
const FIXED = [ORDINARY, NO_GROUPS, KUBELET, DS_CONTROLLER, NS_CONTROLLER, GC, KCM];

/** A literal's text that is an identity as written: no escape, no control character. */
const IDENTITY_TEXT = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\\]+$/;

/** At most this many string literals of the policies are tried as identities. */
const MAX_NAMED = 48;

/** The identities the policies name: every string literal of their CEL, tried as a user and as a group. */
function namedActors(policies: readonly K8sObject[]): Actor[] {
  const literals = new Set<string>();
  for (const policy of policies) {
    for (const field of ["matchConditions", "variables", "validations"]) {
      for (const entry of list<Record<string, unknown>>(dig(policy, ["spec", field]))) {
        if (typeof entry?.expression !== "string" || entry.expression.length > 65536) continue;
        for (const m of entry.expression.matchAll(/"((?:[^"\\\n]|\\.){1,512})"|'((?:[^'\\\n]|\\.){1,512})'/g)) literals.add(m[1] ?? m[2]);
      }
    }
  }
  const fixed = new Set(FIXED.map((a) => a.user));
  const actors: Actor[] = [];
  // Any name an authenticator gives (an OIDC "https://issuer#subject", an
  // e-mail with a +, a name with a space), as long as the values accept it
  // as an identity (IDENTITY_MAX, admission-identity.ts); a literal with an
  // escape is left out, since its text is not the string it stands for.
  for (const literal of [...literals].filter((l) => IDENTITY_TEXT.test(l) && !fixed.has(l)).slice(0, MAX_NAMED)) {
    const serviceAccount = /^system:serviceaccount:([^:]+):[^:]+$/.exec(literal);
    actors.push({
      who: `the user ${literal}`,
      user: literal,
      groups: serviceAccount ? ["system:serviceaccounts", `system:serviceaccounts:${serviceAccount[1]}`, AUTHENTICATED] : [AUTHENTICATED],
      named: true,
    });
    actors.push({ who: `a member of the group ${literal}`, user: `member-of-${literal}`, groups: [literal, AUTHENTICATED], named: true });
  }
  return actors;
}

/** The pod the Runner DaemonSet makes: its template, owned by the DaemonSet, in the Runner namespace. */
function runnerPod(context: AdmissionContext): Record<string, unknown> {
  const ds = context.daemonSet;
  const template = (ds ? dig(ds, ["spec", "template"]) : undefined) ?? {};
  const metadata = isRecord(template) && isRecord(template.metadata) ? template.metadata : {};
  const spec = isRecord(template) && isRecord(template.spec) ? template.spec : { serviceAccountName: context.serviceAccount, containers: [] };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...metadata,
      name: `${ds?.metadata.name ?? "runner"}-x7k2p`,
      namespace: context.namespace,
      ...(ds
        ? {
            ownerReferences: [
              { apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata.name, uid: "uid-daemonset", controller: true, blockOwnerDeletion: true },
            ],
          }
        : {}),
    },
    spec: { nodeName: "node-1", ...spec },
  };
}

type Expectation = "deny" | "allow";

interface Check {
  what: string;
  /** The part of CR-06 it proves, for the message. */
  part: string;
  severity: Severity;
  request: Omit<AdmissionRequest, "user" | "groups">;
}

/**
 * Judges the admission policies and bindings among `objects` for the Runner
 * of `context`: one finding per request kind and outcome that CR-06 decides
 * otherwise (listing who), at the field that decided it.
 */
export function judgeAdmission(objects: readonly K8sObject[], context: AdmissionContext): Finding[] {
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
  const findings: Finding[] = [];
  const finding = (object: K8sObject, path: PropertyKey[], message: string, severity: Severity = "error"): void => {
    findings.push({ object, path, message, id: ID, severity, fix: FIX, profile: "compass-runner", ...(severity === "warning" ? { because: INFERRED_E } : {}) });
  };
  const { planned, uncompiled } = planPolicies(objects);
  for (const u of uncompiled) finding(u.object, u.path, u.message);
  const namespaceObject = objects.find((o) => o.kind === "Namespace" && o.metadata.name === context.namespace) ?? {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: context.namespace },
  };
  const pod = runnerPod(context);
  const ds = context.daemonSet ?? { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "runner", namespace: context.namespace } };
  const named = namedActors(policies);
  const unknown = new Map<string, string>();
  const decide = decider(planned, namespaceObject);

  const ask = (check: Check, actor: Actor): Decision => {
    const decision = decide(check.request, actor.user, actor.groups);
    if (decision.unknown) unknown.set(decision.unknown, check.what);
    return decision;
  };

  /** Reports the actors for whom the check is decided against the expectation, grouped by the field that decided. */
  const expect = (check: Check, actors: readonly Actor[], expected: Expectation, why: string): void => {
    const wrong = new Map<string, { object: K8sObject; path: PropertyKey[]; who: string[]; detail?: string }>();
    for (const actor of actors) {
      const decision = ask(check, actor);
      if (decision.unknown) continue;
      if (decision.allowed === (expected === "allow")) continue;
      const place = decision.allowed
        ? whyAllowed(check)
        : { object: decision.deniedBy!.object, path: decision.deniedBy!.path, detail: decision.deniedBy!.message };
      const key = `${place.object.kind}/${place.object.metadata.name}/${place.path.join(".")}`;
      const entry = wrong.get(key) ?? { ...place, who: [] };
      entry.who.push(actor.who);
      wrong.set(key, entry);
    }
    for (const entry of wrong.values()) {
      const verdict = expected === "deny" ? "is allowed" : "is denied";
      const who = entry.who.length > 3 ? `${entry.who.slice(0, 2).join(", ")} and ${entry.who.length - 2} other identities` : entry.who.join(", ");
      finding(
        entry.object,
        entry.path,
        `${check.what} by ${who} ${verdict}: ${why}${entry.detail && expected === "allow" ? ` (denied with: ${entry.detail})` : ""}`,
        check.severity,
      );
    }
  };

  /** Where a wrongly allowed request should have been stopped: the deciding field of the nearest policy. */
  const whyAllowed = (check: Check): { object: K8sObject; path: PropertyKey[]; detail?: string } => {
    const req = { ...check.request, user: ORDINARY.user, groups: ORDINARY.groups };
    const labels = { ...((namespaceObject.metadata?.labels as Record<string, string> | undefined) ?? {}), "kubernetes.io/metadata.name": context.namespace };
    const matching = planned.filter((p) => matchesPolicy(p.policy, req, labels));
    const policy = matching[0]?.policy ?? policies.find((p) => matchesPolicy(p, req, labels));
    if (!policy) return { object: context.anchor, path: [], detail: `no admission policy matches ${describe(check.request)}` };
    const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding" && dig(o, ["spec", "policyName"]) === policy.metadata.name);
    if (bindings.length === 0) return { object: policy, path: ["metadata", "name"], detail: "the policy has no binding, so it decides nothing" };
    const deny = bindings.find((b) => list(dig(b, ["spec", "validationActions"])).includes("Deny"));
    if (!deny) return { object: bindings[0], path: ["spec", "validationActions"], detail: "the binding does not list Deny" };
    return {
      object: policy,
      path: list(dig(policy, ["spec", "validations"])).length > 0 ? ["spec", "validations"] : ["spec"],
      detail: "its validations admit the request",
    };
  };

  const onPod = (
    subResource: string,
    operation: AdmissionRequest["operation"],
    what: string,
    part: string,
    severity: Severity,
    object: unknown,
    oldObject?: unknown,
  ): Check => ({
    what,
    part,
    severity,
    request: {
      operation,
      group: "",
      version: "v1",
      resource: "pods",
      subResource,
      kind:
        subResource === "exec"
          ? "PodExecOptions"
          : subResource === "attach"
            ? "PodAttachOptions"
            : subResource === "portforward"
              ? "PodPortForwardOptions"
              : subResource === "proxy"
                ? "PodProxyOptions"
                : "Pod",
      namespace: context.namespace,
      name: String(dig(pod, ["metadata", "name"])),
      object,
      ...(oldObject ? { oldObject } : {}),
    },
  });
  const withEphemeral = { ...pod, spec: { ...(pod.spec as object), ephemeralContainers: [{ name: "debugger", image: "busybox", command: ["sh"] }] } };

  // CR-06a: exec, attach, ephemeral containers; the break-glass exception must exist.
  const access = [
    onPod("exec", "CONNECT", "exec on a Runner pod", "a", "error", { kind: "PodExecOptions", apiVersion: "v1", command: ["sh"], stdin: true, tty: true }),
    onPod("attach", "CONNECT", "attach to a Runner pod", "a", "error", { kind: "PodAttachOptions", apiVersion: "v1", stdin: true }),
    onPod("ephemeralcontainers", "UPDATE", "an ephemeral container on a Runner pod", "a", "error", withEphemeral, pod),
  ];
  const glass = named.filter((actor) => ask(access[0], actor).allowed);
  for (const check of access) {
    expect(check, FIXED, "deny", "CR-06a reserves it to the break-glass groups");
    if (glass.length > 0 && check !== access[0])
      expect(check, glass, "allow", "the identity that may exec (break-glass) may also attach and add ephemeral containers (CR-06a)");
  }
  if (glass.length === 0 && !unknown.size) {
    const place = planned.find((p) =>
      matchesPolicy(p.policy, { ...access[0].request, user: "x" }, { "kubernetes.io/metadata.name": context.namespace }),
    )?.policy;
    finding(
      place ?? context.anchor,
      place ? ["spec", "validations"] : [],
      "no identity may exec into a Runner pod: the break-glass exception of CR-06a (admission.breakGlassGroups, default system:masters) is missing",
    );
  }
  // CR-06e (inferred): port-forward and proxy are denied like exec.
  for (const [sub, what] of [
    ["portforward", "port-forward to a Runner pod"],
    ["proxy", "a proxied request to a Runner pod"],
  ] as const) {
    expect(
      onPod(sub, "CONNECT", what, "e", "warning", { kind: sub === "portforward" ? "PodPortForwardOptions" : "PodProxyOptions", apiVersion: "v1" }),
      FIXED,
      "deny",
      "CR-06e denies it like exec (inferred)",
    );
  }

  // CR-06b: only the controllers create Runner pods; kubelets update pod status, the creators delete pods.
  const createPod = onPod("", "CREATE", "creating a Runner pod", "b", "error", pod);
  expect(createPod, [ORDINARY, NO_GROUPS, KUBELET, NS_CONTROLLER, GC], "deny", "CR-06b reserves it to admission.controllers");
  const creators = [DS_CONTROLLER, KCM, ...named].filter((actor) => ask(createPod, actor).allowed);
  if (creators.length === 0 && !unknown.size && !context.templateBroken)
    finding(context.anchor, [], "no identity may create Runner pods: the DaemonSet controller cannot start the Runner (CR-06b needs admission.controllers)");
  expect(
    onPod("status", "UPDATE", "a pod status update", "b", "error", pod, pod),
    [KUBELET],
    "allow",
    "kubelets must keep updating pod status (CR-06 must not break housekeeping)",
  );
  expect(
    { ...onPod("", "DELETE", "deleting a Runner pod", "b", "error", undefined, pod) },
    creators,
    "allow",
    "the DaemonSet controller must keep deleting its pods (CR-06 must not break housekeeping)",
  );

  // CR-06c: only the deployers change the DaemonSet; the namespace controller and the garbage collector delete it.
  // One Check, so one request object, for each DaemonSet request however
  // often it is asked: the decider prepares a request (matches the policies,
  // converts its fields) and keeps its decisions by class once per request
  // object, and DELETE was prepared three times, UPDATE twice. The same
  // request decides alike; `what` is the same text. Measured gain (with
  // planPolicies' slots built without spreads, eval.ts `slotOf`):
  // `valgrind --tool=callgrind node --single-threaded dist/rigging.cjs check
  // OUT` on 200 rendered installations of the bench's fleet, 8.53 -> 8.07 G
  // instructions (-5.4%, the two builds run side by side; two earlier pairs
  // -4.2% and -4.4%), of which this about 8.02 -> 7.84 G (-2.2%, against
  // the slots alone).
  const dsChecks = new Map<string, Check>();
  const onDs = (operation: AdmissionRequest["operation"], subResource = ""): Check => {
    const key = `${operation}/${subResource}`;
    let check = dsChecks.get(key);
    if (!check) dsChecks.set(key, (check = dsCheck(operation, subResource)));
    return check;
  };
  const dsCheck = (operation: AdmissionRequest["operation"], subResource: string): Check => ({
    what: subResource
      ? `a DaemonSet ${subResource} update`
      : `${operation === "CREATE" ? "creating" : operation === "UPDATE" ? "updating" : "deleting"} the Runner DaemonSet`,
    part: "c",
    severity: "error",
    request: {
      operation,
      group: "apps",
      version: "v1",
      resource: "daemonsets",
      subResource,
      kind: "DaemonSet",
      namespace: context.namespace,
      name: ds.metadata.name,
      ...(operation === "DELETE" ? {} : { object: ds }),
      ...(operation === "CREATE" ? {} : { oldObject: ds }),
    },
  });
  for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
    const check = onDs(operation);
    expect(check, [ORDINARY, NO_GROUPS, KUBELET, DS_CONTROLLER], "deny", "CR-06c reserves it to admission.deployers");
    if (!named.some((actor) => ask(check, actor).allowed) && !unknown.size && !(context.templateBroken && operation !== "DELETE"))
      finding(
        context.anchor,
        [],
        `no identity may ${operation === "CREATE" ? "create" : operation === "UPDATE" ? "update" : "delete"} the Runner DaemonSet: CR-06c needs admission.deployers to be allowed`,
      );
  }
  const eitherAllowed = (check: Check, actors: Actor[], why: string) => {
    if (!actors.some((actor) => ask(check, actor).allowed)) expect(check, actors.slice(0, 1), "allow", why);
  };
  eitherAllowed(
    onDs("DELETE"),
    [NS_CONTROLLER, KCM],
    "the namespace controller must delete the DaemonSet when its namespace goes (CR-06 must not break housekeeping)",
  );
  eitherAllowed(onDs("DELETE"), [GC, KCM], "the garbage collector must delete the DaemonSet when its owner goes (CR-06 must not break housekeeping)");
  eitherAllowed(onDs("UPDATE"), [GC, KCM], "the garbage collector must update the DaemonSet's finalizers (CR-06 must not break housekeeping)");
  eitherAllowed(
    onDs("UPDATE", "status"),
    [DS_CONTROLLER, KCM],
    "the DaemonSet controller must update the DaemonSet's status (CR-06 must not break housekeeping)",
  );

  // CR-06d: only kubelets and the break-glass groups request tokens for the Runner ServiceAccount.
  const token: Check = {
    what: `a token request for the Runner ServiceAccount ${context.serviceAccount}`,
    part: "d",
    severity: "error",
    request: {
      operation: "CREATE",
      group: "",
      version: "v1",
      resource: "serviceaccounts",
      subResource: "token",
      kind: "TokenRequest",
      namespace: context.namespace,
      name: context.serviceAccount,
      object: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["compass-runner"], expirationSeconds: 3600 } },
    },
  };
  expect(token, [KUBELET], "allow", "kubelets mint the Runner's projected token; without it the Runner cannot start (CR-06d)");
  const isNode = (a: Actor) => a.user.startsWith("system:node:") || (a.groups ?? []).includes("system:nodes");
  // Without a break-glass identity (reported above) the named ones cannot be told apart: only the fixed ones are judged.
  const others = glass.length === 0 ? [] : named.filter((a) => !glass.includes(a) && !isNode(a));
  expect(
    token,
    [ORDINARY, NO_GROUPS, DS_CONTROLLER, NS_CONTROLLER, GC, ...others],
    "deny",
    "anyone who can mint the Runner's token can enroll as a Runner; CR-06d reserves it to kubelets and the break-glass groups",
  );

  for (const [fn, what] of unknown) {
    findings.push({
      object: context.anchor,
      path: [],
      message: `${what} and the requests like it were not judged: a policy calls ${fn}, which rigging's CEL engine does not have`,
      id: ID,
      severity: "warning",
      fix: FIX,
      profile: "compass-runner",
      because:
        "rigging evaluates the standard CEL library and its strings extension; Kubernetes' own libraries (authorizer, quantity, url...) are not evaluated",
    });
  }
  return findings;
}

function matchesPolicy(policy: K8sObject, req: AdmissionRequest, labels: Record<string, string>): boolean {
  return matchesRules(dig(policy, ["spec", "matchConstraints"]), req, labels);
}

function describe(req: Omit<AdmissionRequest, "user" | "groups">): string {
  return `${req.operation} ${req.resource}${req.subResource ? `/${req.subResource}` : ""} in ${req.namespace}`;
}

/** `judgeAdmission` as a rule's hits: errors as they are, warnings under ADMISSION_OPINIONS. */
export function admissionHits(objects: readonly K8sObject[], context: AdmissionContext): RuleHit[] {
  return judgeAdmission(objects, context).map(({ object, path, message, severity, because }) =>
    severity === "error" ? { object, path, message } : { object, path, message, opinion: because === INFERRED_E ? "port-forward-proxy" : "cel-unjudged" },
  );
}
