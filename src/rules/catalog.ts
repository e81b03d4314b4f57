// The rule catalog over the systems it is given: one source for render's self-check, `check`, `explain` and the docs.
import { ObjectSet, RunScope, runRules, type Finding, type SystemName, type Rule, type RuleErrorHandler } from "./engine.ts";
import { generalRules } from "./general.ts";
import type { JudgedSystem } from "./judged-system.ts";
import type { RequirementEntry } from "./requirement-data.ts";
import { requirementEntries, requirements, type Requirement } from "./requirements.ts";
import type { K8sObject } from "../k8s/objects.ts";

/** The rules and requirements of a list of systems, each made on first use, since reading a system's rules loads its chunk. */
export class Catalog<S extends JudgedSystem = JudgedSystem> {
  #all?: readonly Rule[];
  #general?: readonly Rule[];
  #requirements?: Requirement[];
  #byProfile = new Map<SystemName, readonly Rule[]>();
  #byApp?: ReadonlyMap<string, SystemName>;

  /** `systems` is read, not copied: a system added to the list is seen after `forget()`. */
  constructor(readonly systems: readonly S[]) {}

  /** Drops what was made from the list, after a system was added to it. */
  forget(): void {
    this.#all = this.#general = this.#requirements = this.#byApp = undefined;
    this.#byProfile.clear();
  }

  systemOf(name: SystemName): S {
    const system = this.systems.find((s) => s.name === name);
    if (!system) throw new Error(`no system named ${name} in the registry`);
    return system;
  }

  /** Every system's name, in the list's order (`check --profile`). */
  names(): SystemName[] {
    return this.systems.map((s) => s.name);
  }

  /** Every rule: the general ones, then each system's own. */
  allRules(): readonly Rule[] {
    this.#all ??= [...this.#generalRules(), ...this.systems.flatMap((system) => system.rules)];
    return this.#all;
  }

  /** The rules that judge a profile's objects, in the catalog's order: the general ones and its system's own. */
  rulesFor(profile: SystemName): readonly Rule[] {
    let rules = this.#byProfile.get(profile);
    if (!rules) {
      rules = [...this.#generalRules(), ...this.systemOf(profile).rules].filter((rule) => rule.profiles.includes(profile));
      this.#byProfile.set(profile, rules);
    }
    return rules;
  }

  /** Every requirement, sorted by ID (`explain`, `rules`, the docs). */
  requirements(): Requirement[] {
    this.#requirements ??= requirements(this.systems);
    return this.#requirements;
  }

  requirementEntries(): RequirementEntry[] {
    return requirementEntries(this.systems);
  }

  /** Requirement ID prefixes in the order IDs sort: G- first, then each system's. */
  idPrefixes(): string[] {
    return ["G", ...this.systems.map((s) => s.idPrefix)];
  }

  /** The profile an object belongs to, from its `app.kubernetes.io/name` (the systems' `apps`). */
  profileByLabels = (object: K8sObject): SystemName | undefined => {
    this.#byApp ??= new Map(this.systems.flatMap((s) => s.apps.map((app) => [app, s.name] as const)));
    const app = object.metadata?.labels?.["app.kubernetes.io/name"];
    return typeof app === "string" ? this.#byApp.get(app) : undefined;
  };

  checkObjects(objects: readonly K8sObject[], classify?: (o: K8sObject) => SystemName | undefined, options: CheckOptions = {}): Finding[] {
    // Every set is made before any is judged, so that each sees the others of the stream.
    const stream: ObjectSet[] = [];
    const run = options.run ?? new RunScope();
    for (const [profile, group] of groupByProfile(objects, classify ?? this.profileByLabels)) {
      for (const installation of installationsOf(group)) stream.push(new ObjectSet(profile, installation, stream, run));
    }
    return stream.flatMap((set) => runRules(this.rulesFor(set.profile), set, options.onError, options.rendered));
  }

  #generalRules(): readonly Rule[] {
    this.#general ??= generalRules(this.systems);
    return this.#general;
  }
}

/** Groups objects by profile; objects of no profile are left out. */
export function groupByProfile(objects: readonly K8sObject[], classify: (o: K8sObject) => SystemName | undefined): Map<SystemName, K8sObject[]> {
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
