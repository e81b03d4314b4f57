// A light head (src/seams.ts, KIND_HEADS): the folder's chunk loads on first use, not at start.
import { nodeChecklist } from "../compass-runner/checklist.ts";
import { serverChecklist } from "../compass-server/notes.ts";
import { defineValuesKind } from "../values-kind.ts";
import { renderCompass } from "./render.ts";
import { clusterOf, compassSchema, dialledHost, runnerOf, serverOf } from "./values.ts";

export const compassKind = defineValuesKind({
  kind: "Compass",
  summary: "The Compass Server and its Runner in one file; the Server's cluster entry is derived from the Runner",
  schema: () => compassSchema(),
  render: (v) => renderCompass(v),
  notes: (v) => [...serverChecklist(serverOf(v), [clusterOf(v)], { host: dialledHost(v), p9: v.runner.designed.P9 }), ...nodeChecklist(runnerOf(v))],
  imagesOf: { runner: "compass-runner" },
  example: "examples/compass.yaml",
});
