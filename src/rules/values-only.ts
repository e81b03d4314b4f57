// Requirements that no rule over manifests can judge: they concern the values
// file, the renderer's own behaviour or the node, and are enforced there
// (values schema, tests, render's notes). Listed here so that `explain` and
// the docs name every requirement ID, without a rule that checks nothing.
import { PROFILE_NAMES, type ProfileName } from "./engine.ts";

export interface ValuesOnlyRequirement {
  id: string;
  profiles: readonly ProfileName[];
  summary: string;
  /** Where and how the requirement is enforced instead. */
  enforcedBy: string;
  /**
   * Set when the requirement bears on hand-written manifests too: `check`
   * lists it as not judged, so that a clean report is not read as covering it.
   */
  checkNote?: string;
}

export const VALUES_ONLY: readonly ValuesOnlyRequirement[] = [
  {
    id: "G-01",
    profiles: PROFILE_NAMES,
    summary: "Values files are YAML or JSON; unknown keys are errors (with a did-you-mean); every error in one run; nothing written on error",
    enforcedBy: "the values schema of every profile (render refuses the file, exit 1) and the values refusal tests",
  },
  {
    id: "G-02",
    profiles: PROFILE_NAMES,
    summary: "Output is deterministic and in a stable, apply-safe order",
    enforcedBy: "the renderer (sortForApply, fixed key order) and tests that render twice, under Node and Bun, and compare bytes",
  },
  {
    id: "G-03",
    profiles: PROFILE_NAMES,
    summary: "Every rendered object passes strict upstream Kubernetes schema validation and every rule of this catalog",
    enforcedBy:
      "tests validate every rendered object strictly against the upstream OpenAPI schema; render runs the catalog over its own output (a finding there is exit 3)",
  },
  {
    id: "CR-18",
    profiles: ["compass-runner"],
    summary: "Node prerequisites no manifest can express are printed as a checklist after a render",
    enforcedBy: "render prints the checklist on stderr after every Compass Runner render; docs/compass-runner.md carries the same list",
    checkNote:
      "node prerequisites (KVM device plugin, /dev/kvm 0666, user namespaces, the staged seccomp file, host trees owned by 65532 on a project-quota filesystem) cannot be seen in manifests; see rigging explain CR-18",
  },
];
