// A light head (src/seams.ts, KIND_HEADS): the folder's chunk loads on first use, not at start.
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
