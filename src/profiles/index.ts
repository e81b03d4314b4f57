// The profiles this tool knows, by values kind.
import { compassRunnerProfile } from "./compass-runner/index.ts";
import { compassServerProfile } from "./compass-server/index.ts";
import { compassProfile } from "./compass/index.ts";
import { rootpilotRunnerProfile } from "./rootpilot-runner/index.ts";
import type { Profile } from "./profile.ts";

export const PROFILES: readonly Profile[] = [compassRunnerProfile, compassServerProfile, compassProfile, rootpilotRunnerProfile];

export function profileOf(kind: string): Profile | undefined {
  return PROFILES.find((p) => p.kind === kind);
}

export const KINDS = PROFILES.map((p) => p.kind);
