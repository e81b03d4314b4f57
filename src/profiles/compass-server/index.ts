// A light head: the values schema, renderer and notes are called through
// arrows, so that the build's chunk of this folder loads on first use
// (scripts/build.mjs, KIND_CHUNKS), not when the command starts.
import { defineValuesKind } from "../values-kind.ts";
import { serverChecklist } from "./notes.ts";
import { renderCompassServer } from "./render.ts";
import { compassServerSchema } from "./values.ts";

export const compassServerKind = defineValuesKind({
  kind: "CompassServer",
  summary: "The Compass Server: one pod that terminates its own TLS, with external Postgres and bundled or external NATS",
  schema: () => compassServerSchema(),
  render: (v) => renderCompassServer(v),
  notes: (v) => serverChecklist(v, v.runnerClusters),
  example: "examples/compass-server.yaml",
});
