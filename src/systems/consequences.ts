// What `diff` and the systems share of a change: each object's changed fields,
// and the consequences a system's record adds to them (System.consequences).
import type { K8sObject } from "../k8s/objects.ts";

export interface FieldChange {
  /** spec.template.spec.containers[runner].image */
  path: string;
  old?: unknown;
  new?: unknown;
}

export interface Consequence {
  /** `rollout`, `token-pair`: diff's own ids and each system's. */
  id: string;
  /** One line a person reads. */
  message: string;
  /** Its few words in the summary, when not its id's. */
  short?: string;
}

export interface ObjectDiff {
  key: string;
  change: "added" | "removed" | "changed";
  old?: K8sObject;
  new?: K8sObject;
  fields: FieldChange[];
  consequences: Consequence[];
}

/** Every object of each side, for the pair's other half. */
export interface BothSides {
  old: readonly K8sObject[];
  new: readonly K8sObject[];
}

/** One row of docs/diff.md's table: a kind of change and what it does. */
export interface ConsequenceRow {
  ids: readonly string[];
  change: string;
  consequence: string;
}

/** What a system tells `diff` about changes to its objects; systems that share one record are judged by it once. */
export interface SystemConsequences {
  /** The few words of each of its consequence ids, for the one-line summary. */
  short: Readonly<Record<string, string>>;
  /** Its rows of docs/diff.md's table, diff's own consequences as they apply to its objects included. */
  rows: readonly ConsequenceRow[];
  /** How diff's own rollout message names one of its Deployments: `the Compass Server`. */
  nameOf?(deployment: K8sObject): string | undefined;
  /** A Deployment whose restart it words itself, in place of diff's rollout. */
  restartsItself?(deployment: K8sObject): boolean;
  /** Adds its consequences to the diffs, after diff's own of each object; `diffs` is changed in place. */
  judge(diffs: ObjectDiff[], sides: BothSides): void;
}

/** A Deployment's update strategy, with the API server's default. */
export function strategyOf(deployment: K8sObject): string {
  return (deployment.spec as { strategy?: { type?: string } } | undefined)?.strategy?.type ?? "RollingUpdate";
}

/** group/kind namespace/name: the identity apply goes by (the version is not part of it), by which diff pairs an object's two sides. */
export function objectKeyOf(object: K8sObject): string {
  const group = String(object.apiVersion ?? "").includes("/") ? String(object.apiVersion).split("/")[0] : "";
  const ns = object.metadata?.namespace;
  return `${group ? `${group}/` : ""}${object.kind} ${ns ? `${ns}/` : ""}${object.metadata?.name ?? ""}`;
}
