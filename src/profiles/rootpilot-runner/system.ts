// The Rootpilot runner as a system: its values kind, the names and shape of
// its objects, its Pod Security level and its rules (src/rules/system.ts).
import { defineSystem } from "../../rules/system.ts";
import { hasEnv, hasImage, projectsAudience } from "../../rules/shapes.ts";
import { rootpilotRunnerProfile } from "./index.ts";
import { rootpilotRunnerRules } from "./rules.ts";
import { ENROLL_AUDIENCE } from "./runtime.ts";

export const rootpilotRunnerSystem = defineSystem({
  name: "rootpilot-runner",
  summary: "The Rootpilot runner: stateless, outbound-only replicas that attest per provider",
  apps: ["rootpilot-runner"],
  // It runs as node with no privilege: the restricted level passes (seed 002).
  podSecurity: "restricted",
  shapes: [
    { sign: "env RUNNER_ATTESTATION_MODE", matches: (spec) => hasEnv(spec, /^RUNNER_ATTESTATION_MODE$/) },
    { sign: `a projected token with audience ${ENROLL_AUDIENCE}`, matches: (spec) => projectsAudience(spec, ENROLL_AUDIENCE) },
    { sign: "an image named rootpilot", matches: (spec) => hasImage(spec, /rootpilot/i) },
  ],
  // A getter: the rules are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return rootpilotRunnerRules;
  },
  profiles: [rootpilotRunnerProfile],
});
