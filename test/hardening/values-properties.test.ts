// Property tests of the render pipeline over generated values of every kind
// (drawn from each kind's JSON Schema, support/values-arbitrary.ts), valid and
// mutated: every input ends either in objects that pass strict schema
// validation and the rule catalog, or in a refusal that names a key path.
// Nothing else may escape (no crash, no internal error).
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { UsageError, ValuesError } from "../../src/core/errors.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { mutate, mutation } from "../support/compass-runner-values.ts";
import { validateStrict } from "../support/k8s-schema.ts";
import { runs } from "../support/runs.ts";
import { valuesOfKind } from "../support/values-arbitrary.ts";
import { catalog, kinds } from "../../src/systems/registry.ts";

/** Per kind: the four kinds draw about what one drew before, at 200. */
const RUNS = runs(100);

type Outcome = { accepted: true } | { accepted: false; usage: boolean };

/** Runs the pipeline as the CLI does and checks whichever way it ends. */
function judge(values: unknown, asJson = false): Outcome {
  const text = asJson ? JSON.stringify(values) : stringify(values);
  let rendered;
  try {
    rendered = renderSource(parseValuesFile(text, "values.yaml"));
  } catch (error) {
    if (error instanceof UsageError) {
      expect(error.message).not.toBe("");
      return { accepted: false, usage: true };
    }
    if (!(error instanceof ValuesError)) throw error; // a crash or an internal error fails the property
    expect(error.diagnostics.length).toBeGreaterThan(0);
    for (const d of error.diagnostics) {
      expect(d.path, `diagnostic without a key path: ${JSON.stringify(d)}`).not.toBe("");
      expect(d.id).toMatch(/^[A-Z]+-\d+$/);
      expect(d.message).not.toBe("");
      expect(d.fix).not.toBe("");
      expect(d.location?.line).toBeGreaterThan(0);
    }
    return { accepted: false, usage: false };
  }
  expect(rendered.objects.length).toBeGreaterThan(0);
  for (const object of rendered.objects) expect(validateStrict(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
  // Warnings are for what values cannot prove (one node by a label, a Server by host name): only CR-07 may warn here,
  // and CR-14 or CS-14 on a flag a designed task the values opt into asks for (a released binary exits on it).
  const designed = optsIntoDesigned(values);
  const unexpected = (f: { id: string; severity: string }) => f.severity === "error" || (f.id !== "CR-07" && !(designed && ["CR-14", "CS-14"].includes(f.id)));
  expect(catalog.checkObjects(rendered.objects).filter(unexpected)).toEqual([]);
  return { accepted: true };
}

/** Whether the values opt into a designed task anywhere (`designed: {P9: true}`, a Server's or a Runner's). */
function optsIntoDesigned(values: unknown): boolean {
  if (values === null || typeof values !== "object") return false;
  return Object.entries(values).some(
    ([key, child]) => (key === "designed" && child !== null && typeof child === "object" && Object.values(child).includes(true)) || optsIntoDesigned(child),
  );
}

describe.each(kinds())("%s values, generated", (kind) => {
  const valid = valuesOfKind(kind);

  it("valid values always render strict-valid objects that pass the catalog", async () => {
    await fc.assert(
      loopProperty(valid, fc.boolean(), (values, asJson) => {
        expect(judge(values, asJson)).toEqual({ accepted: true });
      }),
      { numRuns: RUNS },
    );
  });

  it("mutated values are either rendered cleanly or refused with a key path", async () => {
    const seen = { accepted: 0, values: 0, usage: 0 };
    await fc.assert(
      loopProperty(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }), (values, mutations) => {
        const outcome = judge(mutations.reduce(mutate, values));
        if (outcome.accepted) seen.accepted++;
        else if (outcome.usage) seen.usage++;
        else seen.values++;
      }),
      { numRuns: RUNS },
    );
    // The mutations must reach the refusals, not only harmless corners.
    expect(seen.values).toBeGreaterThan(RUNS / 4);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a wrong type at any key is refused at that key", async () => {
    await fc.assert(
      loopProperty(valid, fc.nat(), (values, at) => {
        const keys = Object.keys(values).filter((k) => k !== "kind");
        const key = keys[at % keys.length];
        const wrong = typeof values[key] === "number" || typeof values[key] === "object" ? "not-a-number-or-object" : 12345;
        const bad = { ...values, [key]: wrong };
        let refusal: ValuesError | undefined;
        try {
          renderSource(parseValuesFile(stringify(bad), "values.yaml"));
        } catch (error) {
          if (!(error instanceof ValuesError)) throw error;
          refusal = error;
        }
        expect(refusal, `${key}: ${JSON.stringify(wrong)} was accepted`).toBeDefined();
        expect(refusal!.diagnostics.some((d) => d.path === key || d.path.startsWith(`${key}.`) || d.path.startsWith(`${key}[`))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
