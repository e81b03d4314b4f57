// The systems rigging knows, one record each (src/rules/system.ts). The rule
// catalog, profile recognition by label and by shape, and each namespace's
// Pod Security level are all read from here.
//
// The Compass records are written here until their folders carry their own
// (as src/profiles/rootpilot-runner/system.ts does); then each line below
// imports one record.
import { compassRunnerProfile } from "../profiles/compass-runner/index.ts";
import { compassRunnerRules } from "../profiles/compass-runner/rules.ts";
import { compassServerProfile } from "../profiles/compass-server/index.ts";
import { compassServerRules } from "../profiles/compass-server/rules.ts";
import { compassProfile } from "../profiles/compass/index.ts";
import { rootpilotRunnerSystem } from "../profiles/rootpilot-runner/system.ts";
import type { ProfileName } from "./engine.ts";
import { hasEnv, hasFlag, hasImage, projectsAudience } from "./shapes.ts";
import { defineSystem, type PodSecurityLevel, type System } from "./system.ts";

const compassRunnerSystem = defineSystem({
  name: "compass-runner",
  summary: "The Compass Runner: a one-node DaemonSet that boots microVMs with KVM",
  apps: ["compass-runner"],
  // hostPath volumes are forbidden from `baseline` up; CR-06 takes their place.
  podSecurity: "privileged",
  shapes: [
    // compass-interfaces §1.1: the Runner's server address and token file, by flag or variable.
    { sign: "--server or --token-file, or env COMPASS_SERVER_ADDR, COMPASS_RUNNER_TOKEN_FILE or COMPASS_MICROVM_VOLUME_ROOT", matches: (spec) => hasFlag(spec, "--server", "--token-file") || hasEnv(spec, /^COMPASS_(SERVER_ADDR|SERVER_URL|RUNNER_TOKEN_FILE|MICROVM_VOLUME_ROOT)$/) },
    { sign: "a projected token with audience compass-runner", matches: (spec) => projectsAudience(spec, "compass-runner") },
    { sign: "a DaemonSet with hostUsers: false", matches: (spec, object) => object.kind === "DaemonSet" && spec.hostUsers === false },
  ],
  rules: compassRunnerRules,
  profiles: [compassRunnerProfile],
});

const compassServerSystem = defineSystem({
  name: "compass-server",
  summary: "The Compass Server: one pod that terminates its own TLS, with external Postgres and bundled or external NATS",
  apps: ["compass-server", "compass-nats"],
  podSecurity: "restricted",
  shapes: [
    // compass-interfaces §2: flags and variables only the Server reads.
    { sign: "--runner-clusters or --admin-token-file, or env COMPASS_DATABASE_DSN", matches: (spec) => hasFlag(spec, "--runner-clusters", "--admin-token-file") || hasEnv(spec, /^COMPASS_DATABASE_DSN$/) },
    { sign: "an image named compass-server", matches: (spec) => hasImage(spec, /compass-server/i) },
  ],
  rules: compassServerRules,
  // The combined Compass values kind renders both; its objects are the Server's and the Runner's.
  profiles: [compassServerProfile, compassProfile],
});

export const SYSTEMS: readonly System[] = [compassRunnerSystem, compassServerSystem, rootpilotRunnerSystem];

export function systemOf(name: ProfileName): System {
  const system = SYSTEMS.find((s) => s.name === name);
  if (!system) throw new Error(`no system named ${name} in the registry`);
  return system;
}

/** The system an app.kubernetes.io/name value belongs to. */
export const SYSTEM_BY_APP: ReadonlyMap<string, ProfileName> = new Map(SYSTEMS.flatMap((s) => s.apps.map((app) => [app, s.name] as const)));

/** The Pod Security Admission level each system's namespace carries (G-10). */
export const POD_SECURITY_LEVEL = Object.fromEntries(SYSTEMS.map((s) => [s.name, s.podSecurity])) as Record<ProfileName, PodSecurityLevel>;
