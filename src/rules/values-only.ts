// Requirements no manifest rule can judge (values, renderer, node), listed so
// `explain` and the docs name every ID.
import type { SystemName } from "./engine.ts";
import { SYSTEM_NAMES, SYSTEMS } from "./systems.ts";

export interface ValuesOnlyRequirement {
  id: string;
  profiles: readonly SystemName[];
  summary: string;
  /** Where and how the requirement is enforced instead. */
  enforcedBy: string;
  /** Set when the requirement bears on manifests too: `check` lists it as not judged. */
  checkNote?: string;
}

const GENERAL: readonly ValuesOnlyRequirement[] = [
  {
    id: "G-01",
    profiles: SYSTEM_NAMES,
    summary: "Values files are YAML or JSON; unknown keys are errors (with a did-you-mean); every error in one run; nothing written on error",
    enforcedBy: "the values schema of every profile (render refuses the file, exit 1) and the values refusal tests",
  },
  {
    id: "G-02",
    profiles: SYSTEM_NAMES,
    summary: "Output is deterministic and in a stable, apply-safe order",
    enforcedBy: "the renderer (sortForApply, fixed key order) and tests that render twice, under Node and Bun, and compare bytes",
  },
  {
    id: "G-03",
    profiles: SYSTEM_NAMES,
    summary: "Every rendered object passes strict upstream Kubernetes schema validation and every rule of this catalog",
    enforcedBy:
      "tests validate every rendered object strictly against the upstream OpenAPI schema; render runs the catalog over its own output (a finding there is exit 3)",
  },
];

/** The general ones, then each system's (its record's `valuesOnly`). */
export const VALUES_ONLY: readonly ValuesOnlyRequirement[] = [...GENERAL, ...SYSTEMS.flatMap((s) => s.valuesOnly ?? [])];
