// The Compass Server as a system record, with its own and the combined `kind: Compass` values.
import type { System } from "../registry.ts";
import { compassKind } from "../compass/kind.ts";
import { compassServerKind } from "./kind.ts";
import { hasEnv, hasFlag, hasImage, type Shape } from "../../rules/shapes.ts";
import { NATS_APP, SERVER_APP } from "./ports.ts";
import { CS } from "./requirements.ts";
import { compassServerRules } from "./rules.ts";
import { opensDiscovery } from "./rules-release.ts";
import { SERVER_INTERFACE, SERVER_SECRETS } from "./interface.ts";

const MULTI_ARCH = ["linux/amd64", "linux/arm64"];

/** What only compass-server's pod runs or reads (its flags and variables); its rules recognise an unlabelled Server by the same shapes. */
export const SERVER_SHAPES: readonly Shape[] = [
  {
    sign: "--runner-clusters or --admin-token-file, or env COMPASS_DATABASE_DSN or COMPASS_RUNNER_CLUSTERS",
    matches: (spec) => hasFlag(spec, SERVER_INTERFACE.runnerClusters.flag, "--admin-token-file") || hasEnv(spec, /^COMPASS_(DATABASE_DSN|RUNNER_CLUSTERS)$/),
  },
  { sign: "an image named compass-server", matches: (spec) => hasImage(spec, /compass-server/i) },
];

export const compassServerSystem: System = {
  name: "compass-server",
  summary: "The Compass Server: one pod that terminates its own TLS, with external Postgres and bundled or external NATS",
  idPrefix: "CS",
  apps: [SERVER_APP, NATS_APP],
  podSecurity: "restricted",
  shapes: SERVER_SHAPES,
  claims: (object, objects) => opensDiscovery(object, objects),
  // Getters: the rules and requirements are in the build's chunk of this folder, loaded when first read.
  get rules() {
    return compassServerRules;
  },
  get requirements() {
    return CS;
  },
  // The combined Compass values kind renders both; its objects are the Server's and the Runner's.
  valuesKinds: [compassServerKind, compassKind],
  image: { who: "the Compass Server", platforms: MULTI_ARCH, index: true, why: "the Compass Server runs on amd64 and arm64 nodes (D10)" },
  bundledImages: { nats: { who: "NATS", platforms: MULTI_ARCH, index: true, why: "NATS runs on amd64 and arm64 nodes (D10)" } },
  // The Compass Server-on-Kubernetes design asks the Server for a read-only root (CS-02).
  readOnlyRootRequired: true,
  interfaces: { "compass-server": () => [...Object.values(SERVER_INTERFACE), ...SERVER_SECRETS] },
};
