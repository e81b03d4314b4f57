// The Compass Server as a system: its values kinds (its own, and the
// combined `kind: Compass`, which renders the Server and a Runner), the
// names and shape of its objects, its Pod Security level and its rules
// (src/rules/system.ts).
import { hasEnv, hasFlag, hasImage } from "../../rules/shapes.ts";
import { defineSystem } from "../../rules/system.ts";
import { compassProfile } from "../compass/index.ts";
import { compassServerProfile } from "./index.ts";
import { NATS_APP, SERVER_APP } from "./ports.ts";
import { compassServerRules } from "./rules.ts";

export const compassServerSystem = defineSystem({
  name: "compass-server",
  summary: "The Compass Server: one pod that terminates its own TLS, with external Postgres and bundled or external NATS",
  apps: [SERVER_APP, NATS_APP],
  podSecurity: "restricted",
  shapes: [
    // compass-interfaces §2: flags and variables only the Server reads.
    {
      sign: "--runner-clusters or --admin-token-file, or env COMPASS_DATABASE_DSN",
      matches: (spec) => hasFlag(spec, "--runner-clusters", "--admin-token-file") || hasEnv(spec, /^COMPASS_DATABASE_DSN$/),
    },
    { sign: "an image named compass-server", matches: (spec) => hasImage(spec, /compass-server/i) },
  ],
  // A getter: the rules are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return compassServerRules;
  },
  // The combined Compass values kind renders both; its objects are the Server's and the Runner's.
  profiles: [compassServerProfile, compassProfile],
});
