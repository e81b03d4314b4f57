// The Compass Runner as a system record (src/systems/registry.ts).
import { hasEnv, hasFlag, projectsAudience } from "../../rules/shapes.ts";
import type { System } from "../registry.ts";
import { COMPASS_CONSEQUENCES } from "../compass-contract/consequences.ts";
import { compassRunnerKind } from "./kind.ts";
import { CR, CR_GENERAL_REFUSED_BY } from "./requirements.ts";
import { compassRunnerRules } from "./rules.ts";
import { RUNNER_AUDIENCE, RUNNER_SETTINGS } from "./interface.ts";

export const compassRunnerSystem: System = {
  name: "compass-runner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  idPrefix: "CR",
  apps: ["compass-runner"],
  // hostPath volumes are forbidden from `baseline` up; CR-06 takes their place.
  podSecurity: "privileged",
  shapes: [
    // The Runner's server address and token file, by flag or variable.
    {
      sign: "--server or --token-file, or env COMPASS_SERVER_ADDR, COMPASS_RUNNER_TOKEN_FILE or COMPASS_MICROVM_VOLUME_ROOT",
      matches: (spec) => hasFlag(spec, "--server", "--token-file") || hasEnv(spec, /^COMPASS_(SERVER_ADDR|SERVER_URL|RUNNER_TOKEN_FILE|MICROVM_VOLUME_ROOT)$/),
    },
    { sign: `a projected token with audience ${RUNNER_AUDIENCE}`, matches: (spec) => projectsAudience(spec, RUNNER_AUDIENCE) },
    { sign: "a DaemonSet with hostUsers: false", matches: (spec, object) => object.kind === "DaemonSet" && spec.hostUsers === false },
  ],
  // Getters: the rules and requirements are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return compassRunnerRules;
  },
  get requirements() {
    return CR;
  },
  get generalRefusedBy() {
    return CR_GENERAL_REFUSED_BY;
  },
  // The Compass pair's consequences in `diff`, the Server's record's too: diff judges a shared record once.
  get consequences() {
    return COMPASS_CONSEQUENCES;
  },
  valuesKinds: [compassRunnerKind],
  // D10, with the Runner's exception: amd64 only, until an arm64 KVM boot passes.
  image: {
    who: "the Compass Runner",
    platforms: ["linux/amd64"],
    index: false,
    why: "the Runner runs on amd64 nodes only, until an arm64 KVM boot passes",
  },
  interfaces: { "compass-runner": () => Object.values(RUNNER_SETTINGS).map((s) => ({ ...s, source: s.from })) },
};
