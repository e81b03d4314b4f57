// A light head (src/seams.ts, KIND_HEADS): the folder's chunk loads on first use, not at start.
import { defineValuesKind } from "../values-kind.ts";
import { runnerNotes } from "./checklist.ts";
import { renderCompassRunner } from "./render.ts";
import { UPSTREAM_SHAPE_KEYS } from "./interface.ts";
import { compassRunnerSchema } from "./values.ts";

export const compassRunnerKind = defineValuesKind({
  kind: "CompassRunner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  schema: () => compassRunnerSchema(),
  render: (v) => renderCompassRunner(v),
  notes: (v) => runnerNotes(v),
  shapeKeys: UPSTREAM_SHAPE_KEYS,
  example: "examples/compass-runner.yaml",
});
