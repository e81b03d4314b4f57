// The registry: the systems rigging knows, one line each. Everything that
// concerns every system (values kinds, rules, recognition, pin, docs, the
// build's warm-ups) is read from these records (src/rules/systems.ts).
import { compassRunnerSystem } from "./compass-runner/system.ts";
import { compassServerSystem } from "./compass-server/system.ts";
import { rootpilotRunnerSystem } from "./rootpilot-runner/system.ts";
import type { System } from "../rules/system.ts";

export const SYSTEMS: readonly System[] = [compassRunnerSystem, compassServerSystem, rootpilotRunnerSystem];
