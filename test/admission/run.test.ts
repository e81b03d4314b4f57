// A check run's admission state (src/admission/run.ts): made once per run by
// the first set that asks, carried over to the next set, and never shared
// with another run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newAdmissionRun } from "../../src/admission/run.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { RunScope } from "../../src/rules/engine.ts";
import { ROOT } from "../support/cli.ts";
import { catalog } from "../../src/systems/registry.ts";

const rendered = () => renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;

describe("a check run's admission state", () => {
  it("is made once per run, and another run starts with its own", () => {
    const one = new RunScope();
    expect(one.get(newAdmissionRun)).toBe(one.get(newAdmissionRun));
    expect(new RunScope().get(newAdmissionRun)).not.toBe(one.get(newAdmissionRun));
  });

  it("carries compiled expressions from one set to the next of its run, and not to another run", () => {
    const objects = rendered();
    const first = new RunScope();
    catalog.checkObjects(objects, undefined, { run: first });
    const compiled = first.get(newAdmissionRun).stats.compilations;
    expect(compiled).toBeGreaterThan(0);
    catalog.checkObjects(objects, undefined, { run: first });
    expect(first.get(newAdmissionRun).stats.compilations).toBe(compiled);
    const second = new RunScope();
    catalog.checkObjects(objects, undefined, { run: second });
    expect(second.get(newAdmissionRun).stats.compilations).toBe(compiled);
  });
});
