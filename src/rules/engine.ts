// A rule is data (ID, summary, fix, severity, profiles) plus one pure function
// over a set of objects, shared by render, check and the docs.
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../k8s/objects.ts";
import type { Applier } from "../k8s/gitops.ts";

import type { SystemName } from "./judged-system.ts";
import { dig } from "../k8s/access.ts";
import { POD_SPEC_PATH } from "../k8s/pod-spec.ts";

export type { SystemName };

export interface RuleHit {
  object: K8sObject;
  /** Field path inside the object, for example ["spec","replicas"]. */
  path: PropertyKey[];
  message: string;
  /** Marks this hit as rigging's own hardening under the ID: a warning. */
  opinion?: string;
}

/** An error is what the source documents or the real programs enforce; a warning is our own hardening, exits 0 unless `--fail-on warning`, and can be waived. */
export type Severity = "error" | "warning";

/** Where a requirement comes from: the ground its severity stands on. */
export interface Source {
  /** documented: a source document states it; upstream: the real program or Kubernetes enforces it; rigging: rigging's own choice. */
  from: "documented" | "upstream" | "rigging";
  /** The document by its public name and its sentence, the upstream file or behaviour, or the reason for rigging's choice. */
  says: string;
}

/** How a requirement is judged; absent, it is `{ by: "manifests" }`. */
export type Judged =
  /** A rule over manifests judges it; `except`, the part manifests cannot show, is listed by `check` as not judged. */
  | { by: "manifests"; except?: string }
  /** Its rule cannot judge manifests: `check` reports it skipped, with `from`, what it is judged from instead. */
  | { by: "not-manifests"; from: string }
  /** No rule judges it: `where` says how it is enforced; `checkNote`, for one bearing on manifests too, is listed by `check` as not judged. */
  | { by: "elsewhere"; where: string; checkNote?: string };

/** How a rule's requirement is judged: a rule exists, so never elsewhere. */
export type RuleJudged = Exclude<Judged, { by: "elsewhere" }>;

/** rigging's own hardening under a requirement's ID: reported as a warning, with its reason. */
export interface Opinion {
  summary: string;
  /** Why rigging asks for it although no source document or program does. */
  because: string;
}

export interface Rule {
  /** The requirement this rule enforces, for example `CR-03`. */
  id: string;
  summary: string;
  fix: string;
  severity: Severity;
  /** Where the requirement comes from (docs/rules.md shows it); its severity follows it. */
  source?: Source;
  /** rigging's own hardening judged under this ID, by key: hits naming one are warnings. */
  opinions?: Readonly<Record<string, Opinion>>;
  profiles: readonly SystemName[];
  /** Set when rendered output is proven another way, so render's self-check skips the rule. */
  provenForRendered?: string;
  /** Why it exists and what breaks without it, in the source documents' words where they help (`rigging explain`). */
  why?: string;
  /** How it is judged, when not wholly from manifests. */
  judged?: RuleJudged;
  /** What a finding puts at risk; security findings carry a security-severity in SARIF. Default security. */
  concern?: "security" | "reliability";
  check(set: ObjectSet): RuleHit[];
}

export interface Finding extends RuleHit {
  id: string;
  /** The profile whose set the rule judged. */
  profile?: SystemName;
  severity: Severity;
  fix: string;
  /** For a warning: why rigging asks for it (the opinion's or the rule's reason). */
  because?: string;
}

/** A hit's severity and reason: an opinion is a warning, anything else has the rule's severity. */
export function judged(rule: Rule, hit: RuleHit): Pick<Finding, "severity" | "because"> {
  if (hit.opinion === undefined) return { severity: rule.severity, ...(rule.severity === "warning" && rule.source ? { because: rule.source.says } : {}) };
  const opinion = rule.opinions?.[hit.opinion];
  if (!opinion) throw new Error(`${rule.id}: a hit names the opinion ${JSON.stringify(hit.opinion)}, which the rule does not list`);
  return { severity: "warning", because: opinion.because };
}

/** Whether any finding of the rule can be a warning (so that a waiver of its ID can apply). */
export function canWarn(rule: Rule): boolean {
  return rule.severity === "warning" || Object.keys(rule.opinions ?? {}).length > 0;
}

/** State that lives for one check run, made by the first rule that asks (`make` is the key). */
export class RunScope {
  readonly #made = new Map<() => unknown, unknown>();
  /**
   * `kubeVersion`: the Kubernetes minor the objects are judged for (check --kube-version), 1.N; unknown when absent.
   * `appliers`: the GitOps controllers the input names, wherever they sit in it.
   */
  constructor(
    readonly kubeVersion?: string,
    readonly appliers: readonly Applier[] = [],
  ) {}
  get<T>(make: () => T): T {
    if (!this.#made.has(make)) this.#made.set(make, make());
    return this.#made.get(make) as T;
  }
  /** Gives `make`'s value for this run, made elsewhere (a stage with other options). */
  provide<T>(make: () => T, value: T): this {
    this.#made.set(make, value);
    return this;
  }
}

/** The objects of one profile; kinds, pods and containers found once and frozen. */
export class ObjectSet {
  #byKind?: Map<string, K8sObject[]>;
  #pods?: PodRef[];
  #containers?: ContainerRef[];
  #derived?: Map<(set: ObjectSet) => unknown, unknown>;

  /** `stream`: every set judged from the same input, so rules can compare systems that must agree; `run`: the check run. */
  constructor(
    readonly profile: SystemName,
    readonly objects: readonly K8sObject[],
    private readonly stream: readonly ObjectSet[] = [],
    readonly run: RunScope = new RunScope(),
  ) {}

  /** The other sets of the same input that are `profile`'s. */
  others(profile: SystemName): ObjectSet[] {
    return this.stream.filter((set) => set !== this && set.profile === profile);
  }

  ofKind(kind: string): K8sObject[] {
    if (!this.#byKind) {
      const byKind = new Map<string, K8sObject[]>();
      for (const object of this.objects) {
        const list = byKind.get(object.kind);
        if (list) list.push(object);
        else byKind.set(object.kind, [object]);
      }
      for (const list of byKind.values()) Object.freeze(list);
      this.#byKind = byKind;
    }
    return this.#byKind.get(kind) ?? NONE;
  }

  /** Every pod template (or bare Pod), with the path to its spec. */
  pods(): PodRef[] {
    if (this.#pods) return this.#pods;
    const out: PodRef[] = [];
    for (const object of this.objects) {
      const path = POD_SPEC_PATH[object.kind];
      if (!path) continue;
      const spec = dig(object, path) as PodSpec | undefined;
      if (spec && typeof spec === "object") out.push({ object, spec, path });
    }
    return (this.#pods = Object.freeze(out) as PodRef[]);
  }

  /** Every container of every pod (init and ephemeral included), with its path. */
  containers(): ContainerRef[] {
    if (this.#containers) return this.#containers;
    const out: ContainerRef[] = [];
    for (const { object, spec, path } of this.pods()) {
      for (const field of CONTAINER_FIELDS) {
        const list = spec[field];
        if (!Array.isArray(list)) continue;
        for (let index = 0; index < list.length; index++) {
          out.push({ object, spec, path, container: list[index] as Container, containerPath: [...path, field, index] });
        }
      }
    }
    return (this.#containers = Object.freeze(out) as ContainerRef[]);
  }

  /** `derive`'s answer for this set, made once and shared (`derive` is the key: pass a function declared once). Do not edit it. */
  derived<T>(derive: (set: ObjectSet) => T): T {
    const known = (this.#derived ??= new Map());
    if (known.has(derive)) return known.get(derive) as T;
    const value = derive(this);
    known.set(derive, value);
    return value;
  }
}

/** The container lists of a pod spec, init containers first (the order `containers()` gives). */
const CONTAINER_FIELDS = ["initContainers", "containers"] as const;

const NONE: K8sObject[] = Object.freeze([]) as unknown as K8sObject[];

export interface PodRef {
  object: K8sObject;
  spec: PodSpec;
  path: PropertyKey[];
}

export interface ContainerRef extends PodRef {
  container: Container;
  containerPath: PropertyKey[];
}

export { POD_SPEC_PATH };

/** What to do when a rule throws on a malformed object; without it the error propagates, since rendered objects have a known shape. */
export type RuleErrorHandler = (rule: Rule, set: ObjectSet, error: unknown) => void;

export function runRules(rules: readonly Rule[], set: ObjectSet, onError?: RuleErrorHandler, rendered = false): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    if (!rule.profiles.includes(set.profile)) continue;
    if (rendered && rule.provenForRendered) continue;
    let hits: RuleHit[];
    try {
      hits = rule.check(set);
    } catch (error) {
      if (!onError) throw error;
      onError(rule, set, error);
      continue;
    }
    for (const hit of hits) findings.push({ ...hit, id: rule.id, profile: set.profile, ...judged(rule, hit), fix: rule.fix });
  }
  return findings;
}

/** Shorthand for a rule's hit; `opinion` makes it a warning (a key of the rule's `opinions`). */
export function hit(object: K8sObject, path: PropertyKey[], message: string, opinion?: string): RuleHit {
  return opinion === undefined ? { object, path, message } : { object, path, message, opinion };
}
