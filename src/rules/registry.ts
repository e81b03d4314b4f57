// The systems rigging knows, one record each (src/rules/system.ts). The rule
// catalog, profile recognition by label and by shape, and each namespace's
// Pod Security level are all read from here. Each record lives in its
// system's folder; adding a system is one line below (and its name in
// ProfileName, src/rules/engine.ts).
import { compassRunnerSystem } from "../profiles/compass-runner/system.ts";
import { compassServerSystem } from "../profiles/compass-server/system.ts";
import { rootpilotRunnerSystem } from "../profiles/rootpilot-runner/system.ts";
import type { ProfileName } from "./engine.ts";
import type { PodSecurityLevel, System } from "./system.ts";

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
