// The profiles this tool knows, by values kind.
import { compassRunnerProfile } from "./compass-runner/index.ts";
import { rootpilotRunnerProfile } from "./rootpilot-runner/index.ts";
import type { Profile } from "./profile.ts";

export const PROFILES: readonly Profile[] = [compassRunnerProfile, rootpilotRunnerProfile];

export function profileOf(kind: string): Profile | undefined {
  return PROFILES.find((p) => p.kind === kind);
}

export const KINDS = PROFILES.map((p) => p.kind);
