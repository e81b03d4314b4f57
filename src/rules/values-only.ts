// Requirements that no rule over manifests can judge: they concern the values
// file, the renderer's own behaviour or the node, and are enforced there
// (values schema, tests, render's notes). Listed here so that `explain` and
// the docs name every requirement ID, without a rule that checks nothing.
import type { SystemName } from "./engine.ts";
import { SYSTEM_NAMES, SYSTEMS } from "./systems.ts";

export interface ValuesOnlyRequirement {
  id: string;
  profiles: readonly SystemName[];
  summary: string;
  /** Where and how the requirement is enforced instead. */
  enforcedBy: string;
  /**
   * Set when the requirement bears on hand-written manifests too: `check`
   * lists it as not judged, so that a clean report is not read as covering it.
   */
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
