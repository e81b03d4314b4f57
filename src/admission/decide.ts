// The API server's decision on a request. Matching does not depend on who
// asks, so a request is matched once, and decided once per class (classes.ts).
import type { K8sObject } from "../k8s/objects.ts";
import { classKey, type Tests } from "./classes.ts";
import { cached, celData } from "./convert.ts";
import { judgePolicy, type Outcome } from "./evaluate.ts";
import { bindsToDeny, namespaceLabels, type RequestShape } from "./match.ts";
import type { Memo } from "./memo.ts";
import { setTests, type Planned, type Slot } from "./plan.ts";
import type { AdmissionRun } from "./run.ts";

/** Why a request was decided as it was, to point a finding at the field that decided it. */
export interface Decision {
  allowed: boolean;
  /** Undecided: a policy that matched uses a function the engine does not have. */
  unknown?: string;
  /** The policy (and field) that denied it. */
  deniedBy?: { object: K8sObject; path: PropertyKey[]; message: string };
}

/** Asks the policies about a request made by a user (in groups, if any). */
export type Decide = (req: RequestShape, user: string, groups?: readonly string[]) => Decision;

/** What a request meets whoever makes it: the policies that match it (with a binding that denies), and its data as CEL sees it. */
export interface Prepared {
  matching: Planned[];
  request: Record<string, unknown>;
  /** The request's fields as CEL sees them (all but userInfo, dryRun and options), in order. */
  requestEntries: [string, unknown][];
  base: Record<string, unknown>;
  /** The answers of the expressions that answer alike whoever asks, by slot. */
  shared: Map<Slot, Outcome>;
  /** Each request field read, as a memo key part. */
  fieldKeys: Map<string, string>;
  /** Answers by what was read, where that holds an object of this installation: kept while its decider lives. */
  local: Map<Memo, Memo>;
  /** Its decisions by the class of who asks, when the set's expressions pass the proof of classes.ts. */
  classes: Map<string, Decision>;
}

/** One request, asked by one identity. */
export interface Asking {
  ready: Prepared;
  user: string;
  groups?: readonly string[];
  /** The request as CEL sees it, with who asks. */
  request(): unknown;
}

export function decider(run: AdmissionRun, planned: readonly Planned[], namespaceObject: K8sObject): Decide {
  const prepared = new WeakMap<RequestShape, Prepared>();
  const local = new Map<Memo, Memo>();
  const tests = run.plain || !run.byClass ? undefined : setTests(planned);
  return (req, user, groups) => {
    let ready = run.plain ? undefined : prepared.get(req);
    if (!ready) {
      ready = prepare(run, planned, namespaceObject, req, local);
      if (!run.plain) prepared.set(req, ready);
    }
    if (ready.matching.length === 0) return { allowed: true };
    run.stats.asked++;
    return tests ? decideByClass(run, tests, ready, user, groups) : decideFor(run, ready, user, groups);
  };
}

function prepare(run: AdmissionRun, planned: readonly Planned[], namespaceObject: K8sObject, req: RequestShape, local: Map<Memo, Memo>): Prepared {
  const labels = namespaceLabels(namespaceObject, req.namespace);
  const matching = planned.filter((entry) => bindsToDeny(entry.policy, entry.bindings, req, labels));
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
  };
  const base =
    matching.length === 0
      ? {}
      : { object: cached(run, req.object), oldObject: cached(run, req.oldObject), namespaceObject: cached(run, namespaceObject), params: null };
  const requestEntries = run.plain || matching.length === 0 ? [] : Object.entries(request).map(([k, v]): [string, unknown] => [k, celData(run, v)]);
  return { matching, request, requestEntries, base, shared: new Map(), fieldKeys: new Map(), local, classes: new Map() };
}

/** The decision of the class of who asks, made by its first member. */
function decideByClass(run: AdmissionRun, tests: Tests, ready: Prepared, user: string, groups: readonly string[] | undefined): Decision {
  const key = classKey(tests, user, groups);
  const known = ready.classes.get(key);
  if (known) {
    run.stats.fromClass++;
    return known;
  }
  const before = run.stats.thrown;
  const decision = decideFor(run, ready, user, groups);
  // An engine that threw may have run out of stack, which depends on where it was called from: not shared.
  if (run.stats.thrown === before) ready.classes.set(key, decision);
  return decision;
}

function decideFor(run: AdmissionRun, ready: Prepared, user: string, groups: readonly string[] | undefined): Decision {
  // The request as CEL sees it is made only if an expression is evaluated (most are answered from a memo).
  let request: unknown;
  const asking: Asking = { ready, user, groups, request: () => (request ??= requestOf(run, ready, user, groups)) };
  let unknown: string | undefined;
  for (const entry of ready.matching) {
    const verdict = judgePolicy(run, entry, asking);
    if (verdict === undefined) continue;
    if ("deniedBy" in verdict) return { allowed: false, deniedBy: verdict.deniedBy };
    unknown ??= verdict.unknown;
  }
  return unknown === undefined ? { allowed: true } : { allowed: false, unknown };
}

/** The request as CEL sees it: converted once but for who asks (CEL values are never changed, so they can be shared). */
function requestOf(run: AdmissionRun, ready: Prepared, user: string, groups: readonly string[] | undefined): unknown {
  const userInfo = { username: user, uid: `uid-${user}`, ...(groups ? { groups: [...groups] } : {}) };
  if (run.plain) return celData(run, { ...ready.request, userInfo, dryRun: false, options: {} });
  return run.engine().celMap(new Map([...ready.requestEntries, ["userInfo", celData(run, userInfo)], ["dryRun", false], ["options", celData(run, {})]]));
}
