// Lookups made from the system registry, so no list elsewhere names a system.
import { SYSTEMS } from "../systems/index.ts";
import type { ValuesKind } from "../systems/values-kind.ts";
import type { PodSecurityLevel, System, SystemName } from "./system.ts";

export { SYSTEMS };

/** Every system's name, in the registry's order (`check --profile`). */
export const SYSTEM_NAMES: readonly SystemName[] = SYSTEMS.map((s) => s.name);

export function systemOf(name: SystemName): System {
  const system = SYSTEMS.find((s) => s.name === name);
  if (!system) throw new Error(`no system named ${name} in the registry`);
  return system;
}

/** The system an app.kubernetes.io/name value belongs to. */
export const SYSTEM_BY_APP: ReadonlyMap<string, SystemName> = new Map(SYSTEMS.flatMap((s) => s.apps.map((app) => [app, s.name] as const)));

/** The Pod Security Admission level each system's namespace carries (G-10). */
export const POD_SECURITY_LEVEL: Readonly<Record<SystemName, PodSecurityLevel>> = Object.fromEntries(SYSTEMS.map((s) => [s.name, s.podSecurity]));

/** Every values kind, in the registry's order. */
export const VALUES_KINDS: readonly ValuesKind[] = SYSTEMS.flatMap((s) => s.valuesKinds);

/** The `kind:` of every values kind. */
export const KINDS: readonly string[] = VALUES_KINDS.map((k) => k.kind);

export function valuesKindOf(kind: string): ValuesKind | undefined {
  return VALUES_KINDS.find((k) => k.kind === kind);
}

/** The system a values kind belongs to. */
export function systemOfKind(kind: string): System | undefined {
  return SYSTEMS.find((s) => s.valuesKinds.some((k) => k.kind === kind));
}

/** Requirement ID prefixes in the order IDs sort: G- first, then each system's. */
export const ID_PREFIXES: readonly string[] = ["G", ...SYSTEMS.map((s) => s.idPrefix)];
