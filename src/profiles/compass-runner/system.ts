// The Compass Runner as a system: its values kind, the names and shape of
// its objects, its Pod Security level and its rules (src/rules/system.ts).
import { hasEnv, hasFlag, projectsAudience } from "../../rules/shapes.ts";
import { defineSystem } from "../../rules/system.ts";
import { compassRunnerProfile } from "./index.ts";
import { compassRunnerRules } from "./rules.ts";
import { RUNNER_AUDIENCE } from "./runtime.ts";

export const compassRunnerSystem = defineSystem({
  name: "compass-runner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  apps: ["compass-runner"],
  // hostPath volumes are forbidden from `baseline` up; CR-06 takes their place.
  podSecurity: "privileged",
  shapes: [
    // compass-interfaces §1.1: the Runner's server address and token file, by flag or variable.
    {
      sign: "--server or --token-file, or env COMPASS_SERVER_ADDR, COMPASS_RUNNER_TOKEN_FILE or COMPASS_MICROVM_VOLUME_ROOT",
      matches: (spec) => hasFlag(spec, "--server", "--token-file") || hasEnv(spec, /^COMPASS_(SERVER_ADDR|SERVER_URL|RUNNER_TOKEN_FILE|MICROVM_VOLUME_ROOT)$/),
    },
    { sign: `a projected token with audience ${RUNNER_AUDIENCE}`, matches: (spec) => projectsAudience(spec, RUNNER_AUDIENCE) },
    { sign: "a DaemonSet with hostUsers: false", matches: (spec, object) => object.kind === "DaemonSet" && spec.hostUsers === false },
  ],
  // A getter: the rules are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return compassRunnerRules;
  },
  profiles: [compassRunnerProfile],
});
