// The rule catalog: the general rules plus every profile's own. It is the
// single source of truth for `render`'s self-check, `check`, `explain` and
// the docs table.
import { compassRunnerRules } from "../profiles/compass-runner/rules.ts";
import { compassServerRules } from "../profiles/compass-server/rules.ts";
import { rootpilotRunnerRules } from "../profiles/rootpilot-runner/rules.ts";
import { ObjectSet, runRules, type Finding, type ProfileName, type Rule, type RuleErrorHandler } from "./engine.ts";
import { generalRules } from "./general.ts";
import type { K8sObject } from "../core/objects.ts";

export const CATALOG: readonly Rule[] = [...generalRules, ...compassRunnerRules, ...compassServerRules, ...rootpilotRunnerRules];

/** The profile an object belongs to, from its `app.kubernetes.io/name`. */
const PROFILE_BY_APP: Record<string, ProfileName> = {
  "compass-runner": "compass-runner",
  "compass-server": "compass-server",
  "compass-nats": "compass-server",
  "rootpilot-runner": "rootpilot-runner",
};

export function profileByLabels(object: K8sObject): ProfileName | undefined {
  const app = object.metadata?.labels?.["app.kubernetes.io/name"];
  return app === undefined ? undefined : PROFILE_BY_APP[app];
}

/**
 * Groups objects by profile and, within a profile, by installation (`groupOf`,
 * for example the directory a fleet rendered each installation into), so
 * that rules judging a whole set (CR-01: one DaemonSet) see one at a time.
 */
export function groupByProfile(
  objects: readonly K8sObject[],
  classify: (o: K8sObject) => ProfileName | undefined = profileByLabels,
  groupOf: (o: K8sObject) => string = () => "",
): { profile: ProfileName; objects: K8sObject[] }[] {
  const groups = new Map<string, { profile: ProfileName; objects: K8sObject[] }>();
  for (const object of objects) {
    const profile = classify(object);
    if (!profile) continue;
    const key = `${profile}\u0000${groupOf(object)}`;
    const group = groups.get(key) ?? groups.set(key, { profile, objects: [] }).get(key)!;
    group.objects.push(object);
  }
  return [...groups.values()];
}

export interface CheckOptions {
  /** Report a rule that throws on a malformed object instead of failing (`check`). */
  onError?: RuleErrorHandler;
  /** The installation an object belongs to; objects of one profile are judged per installation. */
  groupOf?: (o: K8sObject) => string;
}

export function checkObjects(objects: readonly K8sObject[], classify?: (o: K8sObject) => ProfileName | undefined, options: CheckOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const group of groupByProfile(objects, classify, options.groupOf)) findings.push(...runRules(CATALOG, new ObjectSet(group.profile, group.objects), options.onError));
  return findings;
}
