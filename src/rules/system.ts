// One record per system: what commands, docs and build need to know. Adding a
// system is its folder plus one line in src/systems/index.ts.
import type { PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../k8s/objects.ts";
import type { InterfaceRow } from "../docs/interfaces.ts";
import type { ValuesKind } from "../systems/values-kind.ts";
import type { Opinion, Rule } from "./engine.ts";
import type { RequirementEntry } from "./requirement-data.ts";

/** A system's name, as rules, findings and `check --profile` use it: `rootpilot-runner`. */
export type SystemName = string;

/** A shape that names a workload's system when its labels do not (`check` on hand-written manifests). */
export interface Shape {
  /** What gives it away, for people (docs, messages). */
  sign: string;
  matches(spec: PodSpec, object: K8sObject): boolean;
}

export type PodSecurityLevel = "restricted" | "baseline" | "privileged";

/** D10: the platforms an image must hold, which `pin` checks its digest against. */
export interface ImageNeed {
  /** Whose image it is, in messages: `the Compass Server`. */
  who: string;
  platforms: readonly string[];
  /** Whether it must be an image index (one tag for every platform). */
  index: boolean;
  /** Why it needs them, in pin's messages. */
  why: string;
}

export interface System {
  name: SystemName;
  summary: string;
  /** The prefix of its requirement IDs (CR of CR-03); IDs sort G- first, then by the registry's order. */
  idPrefix: string;
  /** The app.kubernetes.io/name values of its objects (G-07), by which `check` recognises them. */
  apps: readonly string[];
  /** The Pod Security Admission level its namespace carries: the strictest its pods pass (G-10). */
  podSecurity: PodSecurityLevel;
  /** How an unlabelled workload of the system is recognised, by what its pod reads or runs. */
  shapes: readonly Shape[];
  /** Whether an object names no workload of the system yet serves it (an issuer-discovery ClusterRoleBinding): `check` places it in the system's set when the input holds one of its workloads. */
  claims?(object: K8sObject, objects: readonly K8sObject[]): boolean;
  /** Its own rules (the general G- rules apply to every system). */
  rules: readonly Rule[];
  /** Its values kinds: each with its schema, renderer, notes and bundled example. */
  valuesKinds: readonly ValuesKind[];
  /** What `pin` asks of its own image (D10). */
  image: ImageNeed;
  /** Images of other programs it runs beside its own, by a key on their values path (`nats`). */
  bundledImages?: Readonly<Record<string, ImageNeed>>;
  /** G-05: no source document asks it to pin images by digest, so a tag is rigging's opinion (a warning), under this key. */
  digestOpinion?: { key: string } & Opinion;
  /** G-06: a source document asks it for a read-only root filesystem, so a writable one is an error, not an opinion. */
  readOnlyRootRequired?: boolean;
  /** Its requirements by ID (its folder's requirements.ts): what rules, values refusals, `explain` and the docs say. */
  requirements: Readonly<Record<string, RequirementEntry>>;
  /** Its programs' interface tables in the docs, by the name a page marks them with. */
  interfaces?: Readonly<Record<string, () => readonly InterfaceRow[]>>;
  /** Values files the build renders so that its code is cached; its values kinds' examples when unset. */
  warmUps?: readonly string[];
}

export function defineSystem(system: System): System {
  return system;
}
