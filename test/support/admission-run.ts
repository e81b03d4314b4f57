// A check run whose admission stage runs with the given state (src/admission/run.ts).
import { newAdmissionRun, type AdmissionOptions, type AdmissionRun } from "../../src/admission/run.ts";
import { RunScope } from "../../src/rules/engine.ts";

/** A check run (for checkObjects' `run`) with its admission state, made with `options`. */
export function admissionScope(options: AdmissionOptions = {}): { scope: RunScope; admission: AdmissionRun } {
  const admission = newAdmissionRun(options);
  return { scope: new RunScope().provide(newAdmissionRun, admission), admission };
}
