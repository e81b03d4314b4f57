// A light head: the values schema, renderer and notes are called through
// arrows, so that the build's chunk of this folder loads on first use
// (scripts/build.mjs, KIND_CHUNKS), not when the command starts.
import { defineValuesKind } from "../values-kind.ts";
import { runnerNotes } from "./checklist.ts";
import { renderCompassRunner } from "./render.ts";
import { UPSTREAM_SHAPE_KEYS } from "./runtime.ts";
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
