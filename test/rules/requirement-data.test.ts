// A rule is its requirement's data plus how it is judged; the types refuse a
// rule for an ID the requirement files do not hold, or for one judged elsewhere.
import { describe, expect, it } from "vitest";
import { CR } from "../../src/systems/compass-runner/requirements.ts";
import { rule } from "../../src/rules/requirement-data.ts";
import { catalog } from "../../src/systems/registry.ts";

describe("rules are built from the requirement files", () => {
  it("a rule takes its entry's text and adds only its check", () => {
    const check = () => [];
    expect(rule(CR["CR-03"], { check })).toEqual({ ...CR["CR-03"], check });
  });

  it("every rule of the catalog says what its requirement entry says", () => {
    const entries = new Map(catalog.requirementEntries().map((entry) => [entry.id, entry]));
    for (const built of catalog.allRules()) {
      const { check: _check, provenForRendered: _proven, ...text } = built;
      expect(text, built.id).toEqual(entries.get(built.id));
    }
  });

  it("the types refuse an unknown ID and a requirement no rule judges (tsc checks these lines)", () => {
    const check = () => [];
    const refused = [
      // @ts-expect-error: the Runner has no requirement CR-99
      () => rule(CR["CR-99"], { check }),
      // @ts-expect-error: CR-18 is enforced by render's checklist, not by a rule
      () => rule(CR["CR-18"], { check }),
    ];
    // At run time nothing stops them: the guard is the type.
    expect(refused.map((make) => make().id)).toEqual([undefined, "CR-18"]);
    expect(CR["CR-18"].judged).toEqual({ by: "elsewhere", where: expect.stringMatching(/checklist/), checkNote: expect.any(String) });
  });
});
