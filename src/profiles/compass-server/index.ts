import { defineProfile } from "../profile.ts";
import { serverChecklist } from "./notes.ts";
import { renderCompassServer } from "./render.ts";
import { compassServerSchema } from "./values.ts";

export const compassServerProfile = defineProfile({
  kind: "CompassServer",
  summary: "The Compass Server: one pod that terminates its own TLS, with external Postgres and bundled or external NATS",
  schema: compassServerSchema,
  render: renderCompassServer,
  notes: (v) => serverChecklist(v, v.runnerClusters),
  example: "examples/compass-server.yaml",
});
