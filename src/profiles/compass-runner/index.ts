import { defineProfile } from "../profile.ts";
import { runnerNotes } from "./checklist.ts";
import { renderCompassRunner } from "./render.ts";
import { compassRunnerSchema, UPSTREAM_SHAPE_KEYS } from "./values.ts";

export const compassRunnerProfile = defineProfile({
  kind: "CompassRunner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  schema: compassRunnerSchema,
  render: renderCompassRunner,
  notes: runnerNotes,
  shapeKeys: UPSTREAM_SHAPE_KEYS,
  example: "examples/compass-runner.yaml",
});
