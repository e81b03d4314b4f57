// One record per system rigging knows (the Compass Runner, the Compass
// Server, the Rootpilot runner): everything the commands need to know about
// it, in one place. Adding a system is its own folder (values schema,
// renderer, rules, this record) plus one line in the registry
// (src/rules/registry.ts) and its name in ProfileName (engine.ts).
import type { PodSpec } from "kubernetes-types/core/v1";
import type { K8sObject } from "../core/objects.ts";
import type { Profile } from "../profiles/profile.ts";
import type { ProfileName, Rule } from "./engine.ts";

/** A shape that names a workload's system when its labels do not (`check` on hand-written manifests). */
export interface Shape {
  /** What gives it away, for people (docs, messages). */
  sign: string;
  matches(spec: PodSpec, object: K8sObject): boolean;
}

export type PodSecurityLevel = "restricted" | "baseline" | "privileged";

export interface System {
  /** The name rules and findings use: `rootpilot-runner`. */
  name: ProfileName;
  summary: string;
  /** The app.kubernetes.io/name values of its objects (G-07), by which `check` recognises them. */
  apps: readonly string[];
  /** The Pod Security Admission level its namespace carries: the strictest its pods pass (G-10). */
  podSecurity: PodSecurityLevel;
  /** How an unlabelled workload of the system is recognised, by what its pod reads or runs. */
  shapes: readonly Shape[];
  /** Its own rules (the general G- rules apply to every system). */
  rules: readonly Rule[];
  /** Its values kinds: each with its schema, renderer, notes and bundled example. */
  profiles: readonly Profile[];
}

export function defineSystem(system: System): System {
  return system;
}
