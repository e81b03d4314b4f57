// The registry of systems, one line each; everything about every system is read from these records.
import { compassRunnerSystem } from "./compass-runner/system.ts";
import { compassServerSystem } from "./compass-server/system.ts";
import { rootpilotRunnerSystem } from "./rootpilot-runner/system.ts";
import type { System } from "../rules/system.ts";

export const SYSTEMS: readonly System[] = [compassRunnerSystem, compassServerSystem, rootpilotRunnerSystem];
