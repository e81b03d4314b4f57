// The rule engine. A rule is data (requirement ID, summary, fix, severity,
// the profiles it belongs to) plus one pure function over a set of objects.
// `render` runs the catalog over its own output, `check` over anyone's
// manifests, and the docs table is generated from the same entries.
import type { Container, EnvVar, PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../core/objects.ts";

export type ProfileName = "compass-runner" | "compass-server" | "rootpilot-runner";
export const PROFILE_NAMES: readonly ProfileName[] = ["compass-runner", "compass-server", "rootpilot-runner"];

export interface RuleHit {
  object: K8sObject;
  /** Field path inside the object, for example ["spec","replicas"]. */
  path: PropertyKey[];
  message: string;
  /** A hit may be milder than its rule: what manifests cannot prove is a warning. */
  severity?: "error" | "warning";
}

export interface Rule {
  /** The requirement this rule enforces, for example `CR-03`. */
  id: string;
  summary: string;
  fix: string;
  severity: "error" | "warning";
  profiles: readonly ProfileName[];
  /** Where the requirement comes from: a seed, an upstream file, or rigging's own choice. */
  source?: string;
  /** Why it exists and what breaks without it, in the seeds' words where they help (`rigging explain`). */
  why?: string;
  /**
   * Set when manifests alone cannot show the requirement (it needs values,
   * a live server or a node): `check` reports it as skipped with this note.
   */
  judgedFrom?: string;
  check(set: ObjectSet): RuleHit[];
}

export interface Finding extends RuleHit {
  id: string;
  severity: Rule["severity"];
  fix: string;
}

/** The objects of one profile, as a rule sees them. */
export class ObjectSet {
  constructor(
    readonly profile: ProfileName,
    readonly objects: readonly K8sObject[],
  ) {}

  ofKind(kind: string): K8sObject[] {
    return this.objects.filter((o) => o.kind === kind);
  }

  /** Every pod template (or bare Pod), with the path to its spec. */
  pods(): PodRef[] {
    const out: PodRef[] = [];
    for (const object of this.objects) {
      const path = POD_SPEC_PATH[object.kind];
      if (!path) continue;
      const spec = dig(object, path) as PodSpec | undefined;
      if (spec && typeof spec === "object") out.push({ object, spec, path });
    }
    return out;
  }

  /** Every container of every pod (init and ephemeral included), with its path. */
  containers(): ContainerRef[] {
    return this.pods().flatMap((pod) =>
      (["initContainers", "containers"] as const).flatMap((field) =>
        (Array.isArray(pod.spec[field]) ? (pod.spec[field] as Container[]) : []).map((container, index) => ({
          ...pod,
          container,
          containerPath: [...pod.path, field, index],
        })),
      ),
    );
  }
}

export interface PodRef {
  object: K8sObject;
  spec: PodSpec;
  path: PropertyKey[];
}

export interface ContainerRef extends PodRef {
  container: Container;
  containerPath: PropertyKey[];
}

/** Where each pod-carrying kind keeps its pod spec. */
export const POD_SPEC_PATH: Record<string, PropertyKey[]> = {
  Pod: ["spec"],
  DaemonSet: ["spec", "template", "spec"],
  Deployment: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  ReplicaSet: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
};

export function dig(value: unknown, path: readonly PropertyKey[]): unknown {
  let node = value;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

/**
 * What to do when a rule throws on a malformed object (a string where a
 * list belongs, say). Without it the error propagates: rendered objects
 * have a known shape, so a throw there is a bug. `check` reads anyone's
 * manifests and reports it instead.
 */
export type RuleErrorHandler = (rule: Rule, set: ObjectSet, error: unknown) => void;

export function runRules(rules: readonly Rule[], set: ObjectSet, onError?: RuleErrorHandler): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    if (!rule.profiles.includes(set.profile)) continue;
    let hits: RuleHit[];
    try {
      hits = rule.check(set);
    } catch (error) {
      if (!onError) throw error;
      onError(rule, set, error);
      continue;
    }
    for (const hit of hits) findings.push({ ...hit, id: rule.id, severity: hit.severity ?? rule.severity, fix: rule.fix });
  }
  return findings;
}

/** A container's environment variable by name, with its index for the finding's path. */
export function envOf(container: Container, name: string): { env?: EnvVar; index: number } {
  const index = (container.env ?? []).findIndex((e) => e.name === name);
  return { env: index < 0 ? undefined : container.env![index], index };
}

/** Shorthand for a rule's hit. */
export function hit(object: K8sObject, path: PropertyKey[], message: string): RuleHit {
  return { object, path, message };
}

/** A hit that is a warning: something manifests alone cannot prove wrong. */
export function warn(object: K8sObject, path: PropertyKey[], message: string): RuleHit {
  return { object, path, message, severity: "warning" };
}
