// invariants keeps its texts by what they are made of (a fleet's
// installations share them): whatever was asked before, each answer must be
// what invariantsOf makes for those inputs, in objects of the caller's own.
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { describe, expect, it } from "vitest";
import { invariants, invariantsOf, type RunnerShape } from "../../src/profiles/compass-runner/admission-cel.ts";

const word = fc.constantFrom("a", "b", "compass-runner", "x/y", 'q"', "");
const shape = fc.record({
  containerName: word,
  serviceAccount: word,
  imageRepository: word,
  hostPaths: fc.array(word, { maxLength: 3 }),
  seccompProfile: word,
}) as fc.Arbitrary<RunnerShape>;
const paths = fc.record({ spec: word, meta: word, metaPresent: fc.option(word, { nil: undefined }), skipWhen: fc.option(word, { nil: undefined }) });
const ask = fc.tuple(word, shape, paths);

describe("invariants, kept by what they are made of", () => {
  it("answers what invariantsOf makes, whatever was asked before", async () => {
    await fc.assert(
      loopProperty(fc.array(ask, { minLength: 1, maxLength: 12 }), (asks) => {
        for (const [where, s, p] of [...asks, ...asks.reverse()]) expect(invariants(where, s, p)).toEqual(invariantsOf(where, s, p));
      }),
      { numRuns: 300 },
    );
  });

  it("tells apart inputs that differ in one field only", async () => {
    const fields = ["where", "containerName", "serviceAccount", "imageRepository", "hostPaths", "seccompProfile", "spec", "meta", "metaPresent", "skipWhen"];
    await fc.assert(
      loopProperty(ask, fc.constantFrom(...fields), fc.constantFrom("other", "x y", "/b"), ([where, s, p], field, value) => {
        const changed = { where, ...s, ...p, [field]: field === "hostPaths" ? [...s.hostPaths, value] : value };
        const { containerName, serviceAccount, imageRepository, hostPaths, seccompProfile, spec, meta, metaPresent, skipWhen } = changed;
        const s2 = { containerName, serviceAccount, imageRepository, hostPaths, seccompProfile };
        const p2 = { spec, meta, metaPresent, skipWhen };
        expect(invariants(where, s, p)).toEqual(invariantsOf(where, s, p));
        expect(invariants(changed.where, s2, p2)).toEqual(invariantsOf(changed.where, s2, p2));
      }),
      { numRuns: 500 },
    );
  });

  it("gives each caller objects of its own", () => {
    const s: RunnerShape = { containerName: "c", serviceAccount: "sa", imageRepository: "r", hostPaths: ["/a"], seccompProfile: "p.json" };
    const first = invariants("w", s, { spec: "object.spec", meta: "object.metadata" });
    first[0].message = "edited";
    first.pop();
    expect(invariants("w", s, { spec: "object.spec", meta: "object.metadata" })).toEqual(
      invariantsOf("w", s, { spec: "object.spec", meta: "object.metadata" }),
    );
  });
});
