// The rule catalog: one source for render's self-check, `check`, `explain` and the docs.
import { ObjectSet, RunScope, runRules, type Finding, type SystemName, type Rule, type RuleErrorHandler } from "./engine.ts";
import { generalRules } from "./general.ts";
import { SYSTEM_BY_APP, SYSTEMS, systemOf } from "./systems.ts";
import type { K8sObject } from "../k8s/objects.ts";

let all: readonly Rule[] | undefined;

/** Every rule, made on first use, since reading a system's rules loads its chunk. */
export function allRules(): readonly Rule[] {
  all ??= [...generalRules, ...SYSTEMS.flatMap((system) => system.rules)];
  return all;
}

const byProfile = new Map<SystemName, readonly Rule[]>();

/** The rules that judge a profile's objects, in the catalog's order: the general ones and its system's own. */
export function rulesFor(profile: SystemName): readonly Rule[] {
  let rules = byProfile.get(profile);
  if (!rules) byProfile.set(profile, (rules = [...generalRules, ...systemOf(profile).rules].filter((rule) => rule.profiles.includes(profile))));
  return rules;
}

/** The profile an object belongs to, from its `app.kubernetes.io/name` (the registry's `apps`). */
export function profileByLabels(object: K8sObject): SystemName | undefined {
  const app = object.metadata?.labels?.["app.kubernetes.io/name"];
  return typeof app === "string" ? SYSTEM_BY_APP.get(app) : undefined;
}

/** Groups objects by profile; objects of no profile are left out. */
export function groupByProfile(
  objects: readonly K8sObject[],
  classify: (o: K8sObject) => SystemName | undefined = profileByLabels,
): Map<SystemName, K8sObject[]> {
  const groups = new Map<SystemName, K8sObject[]>();
  for (const object of objects) {
    const profile = classify(object);
    if (!profile) continue;
    const group = groups.get(profile);
    if (group) group.push(object);
    else groups.set(profile, [object]);
  }
  return groups;
}

export interface CheckOptions {
  /** Report a rule that throws on a malformed object instead of failing (`check`). */
  onError?: RuleErrorHandler;
  /** The objects are rigging's own output: skip rules proven for it another way (render's self-check). */
  rendered?: boolean;
  /** The check run the objects are judged in: its stages' caches carry over from one call to the next. */
  run?: RunScope;
}

export function checkObjects(objects: readonly K8sObject[], classify?: (o: K8sObject) => SystemName | undefined, options: CheckOptions = {}): Finding[] {
  // Every set is made before any is judged, so that each sees the others of the stream.
  const stream: ObjectSet[] = [];
  const run = options.run ?? new RunScope();
  for (const [profile, group] of groupByProfile(objects, classify)) {
    for (const installation of installationsOf(group)) stream.push(new ObjectSet(profile, installation, stream, run));
  }
  return stream.flatMap((set) => runRules(rulesFor(set.profile), set, options.onError, options.rendered));
}

const INSTANCE_LABEL = "app.kubernetes.io/instance";

/** One profile's objects split into installations by app.kubernetes.io/instance, so two Runners in one stream are judged apart. */
export function installationsOf(group: readonly K8sObject[]): K8sObject[][] {
  const byInstance = new Map<string, K8sObject[]>();
  for (const object of group) {
    const instance = object.metadata?.labels?.[INSTANCE_LABEL];
    if (typeof instance !== "string") return [[...group]];
    const installation = byInstance.get(instance);
    if (installation) installation.push(object);
    else byInstance.set(instance, [object]);
  }
  return [...byInstance.values()];
}
