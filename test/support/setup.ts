// Every property test draws the same cases on every run, so a failure is a
// bug to reproduce, never bad luck. A test that names no count draws
// fast-check's 100, scaled by RUNS (runs.ts) like every other.
import fc from "fast-check";
import { runs } from "./runs.ts";

fc.configureGlobal({ seed: 20261201, numRuns: runs(100) });
