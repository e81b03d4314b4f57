// The Compass Server as a system record, with its own and the combined `kind: Compass` values.
import type { System } from "../registry.ts";
import { compassServerKind } from "./kind.ts";
import { COMPASS_CONSEQUENCES } from "../compass-contract/consequences.ts";
import { SERVER_SHAPES } from "../compass-contract/server-interface.ts";
import { NATS_APP, SERVER_APP } from "../compass-contract/ports.ts";
import { CS, CS_GENERAL_REFUSED_BY } from "./requirements.ts";
import { compassServerRules } from "./rules.ts";
import { opensDiscovery } from "./rules-release.ts";
import { SERVER_INTERFACE, SERVER_SECRETS } from "./interface.ts";

const MULTI_ARCH = ["linux/amd64", "linux/arm64"];

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
  get generalRefusedBy() {
    return CS_GENERAL_REFUSED_BY;
  },
  // The Compass pair's consequences in `diff`, the Runner's record's too: in the contract's chunk, loaded when a diff first reads them.
  get consequences() {
    return COMPASS_CONSEQUENCES;
  },
  // The combined `kind: Compass` joins these in the registry: it imports both Compass systems, which import neither it nor each other.
  valuesKinds: [compassServerKind],
  image: { who: "the Compass Server", platforms: MULTI_ARCH, index: true, why: "the Compass Server runs on amd64 and arm64 nodes (D10)" },
  bundledImages: { nats: { who: "NATS", platforms: MULTI_ARCH, index: true, why: "NATS runs on amd64 and arm64 nodes (D10)" } },
  // The Compass Server-on-Kubernetes design asks the Server for a read-only root (CS-02).
  readOnlyRootRequired: true,
  interfaces: { "compass-server": () => [...Object.values(SERVER_INTERFACE), ...SERVER_SECRETS] },
};
