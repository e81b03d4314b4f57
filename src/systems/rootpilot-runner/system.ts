// The Rootpilot runner as a system record (src/systems/registry.ts).
import type { System } from "../registry.ts";
import { hasEnv, hasImage, projectsAudience } from "../../rules/shapes.ts";
import { rootpilotRunnerKind } from "./kind.ts";
import { RP, RP_GENERAL_REFUSED_BY } from "./requirements.ts";
import { rootpilotRunnerRules } from "./rules.ts";
import { ENROLL_AUDIENCE } from "./interface.ts";

export const rootpilotRunnerSystem: System = {
  name: "rootpilot-runner",
  summary: "The Rootpilot runner: stateless, outbound-only replicas that attest per provider",
  idPrefix: "RP",
  apps: ["rootpilot-runner"],
  // It runs as node with no privilege: the restricted level passes (the Rootpilot Kubernetes guide).
  podSecurity: "restricted",
  shapes: [
    { sign: "env RUNNER_ATTESTATION_MODE", matches: (spec) => hasEnv(spec, /^RUNNER_ATTESTATION_MODE$/) },
    { sign: `a projected token with audience ${ENROLL_AUDIENCE}`, matches: (spec) => projectsAudience(spec, ENROLL_AUDIENCE) },
    { sign: "an image named rootpilot", matches: (spec) => hasImage(spec, /rootpilot/i) },
  ],
  // Getters: the rules and requirements are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return rootpilotRunnerRules;
  },
  get requirements() {
    return RP;
  },
  get generalRefusedBy() {
    return RP_GENERAL_REFUSED_BY;
  },
  valuesKinds: [rootpilotRunnerKind],
  image: {
    who: "the Rootpilot runner",
    platforms: ["linux/amd64", "linux/arm64"],
    index: true,
    why: "the Rootpilot runner runs on amd64 and arm64 nodes (D10)",
  },
  digestOpinion: {
    key: "rootpilot",
    summary: "the Rootpilot image is pinned by digest",
    because: "the Rootpilot Kubernetes guide does not ask for a digest; rigging does, so that every node runs the image that was reviewed",
  },
  // The EKS example, which reaches more of its renderer than the GKE one.
  warmUps: ["examples/rootpilot-eks.yaml"],
};
