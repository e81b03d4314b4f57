// What the rules read of a system; the registry's records (src/systems/registry.ts) carry it, and the rules receive them as a parameter.
import type { PodSecurityLevel } from "../k8s/workload.ts";
import type { Opinion, Rule } from "./engine.ts";
import type { RequirementEntry } from "./requirement-data.ts";
import type { GeneralRefusedBy } from "./general-requirements.ts";

export type { PodSecurityLevel };

/** A system's name, as rules, findings and `check --profile` use it: `rootpilot-runner`. */
export type SystemName = string;

export interface JudgedSystem {
  name: SystemName;
  /** The prefix of its requirement IDs (CR of CR-03); IDs sort G- first, then by the registry's order. */
  idPrefix: string;
  /** The app.kubernetes.io/name values of its objects (G-07), by which `check` recognises them. */
  apps: readonly string[];
  /** The Pod Security Admission level its namespace carries: the strictest its pods pass (G-10). */
  podSecurity: PodSecurityLevel;
  /** Its own rules (the general G- rules apply to every system). */
  rules: readonly Rule[];
  /** Its requirements by ID (its folder's requirements.ts): what rules, values refusals, `explain` and the docs say. */
  requirements: Readonly<Record<string, RequirementEntry>>;
  /** How its values break the general (G-) requirements, which know no system: the values refusal tests render them. */
  generalRefusedBy?: GeneralRefusedBy;
  /** G-05: no source document asks it to pin images by digest, so a tag is rigging's opinion (a warning), under this key. */
  digestOpinion?: { key: string } & Opinion;
  /** G-06: a source document asks it for a read-only root filesystem, so a writable one is an error, not an opinion. */
  readOnlyRootRequired?: boolean;
}
