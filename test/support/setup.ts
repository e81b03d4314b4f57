// Every property test draws the same cases on every run, so a failure is a
// bug to reproduce, never bad luck. A test that names no count draws
// fast-check's 100, scaled by RUNS (runs.ts) like every other.
import fc from "fast-check";
import { runs } from "./runs.ts";

fc.configureGlobal({ seed: 20261201, numRuns: runs(100) });

// The registry-wide tests run again over a fourth system, registered in the real registry (test/systems/extra-system.test.ts).
if (process.env.RIGGING_TEST_EXTRA_SYSTEM === "lantern") {
  const { registerSystem } = await import("../../src/systems/registry.ts");
  const { lanternSystem } = await import("../fixtures/systems/lantern/system.ts");
  registerSystem(lanternSystem);
}
