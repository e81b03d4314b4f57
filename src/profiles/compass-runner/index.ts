import { defineProfile } from "../profile.ts";
import { nodeChecklist } from "./checklist.ts";
import { renderCompassRunner } from "./render.ts";
import { compassRunnerSchema } from "./values.ts";

export const compassRunnerProfile = defineProfile({
  kind: "CompassRunner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  schema: compassRunnerSchema,
  render: renderCompassRunner,
  notes: nodeChecklist,
  example: "examples/compass-runner.yaml",
});
