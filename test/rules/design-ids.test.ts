// Whose a task or decision ID is, said once where a text names one.
import { describe, expect, it } from "vitest";
import { designIdsNote } from "../../src/rules/design-ids.ts";

describe("designIdsNote", () => {
  it("names each decision and task a text names, in the order it names them, once", () => {
    expect(designIdsNote("D1: one Server; P4 reads the token; D1 again")).toBe(
      "D1 is a decision, P4 is a task, of the Compass Server-on-Kubernetes design (docs/glossary.md).",
    );
    expect(designIdsNote("D8 and D10 (pin)")).toBe("D8, D10 are decisions of the Compass Server-on-Kubernetes design (docs/glossary.md).");
    expect(designIdsNote("needs P9")).toBe("P9 is a task of the Compass Server-on-Kubernetes design (docs/glossary.md).");
  });

  it("says nothing where no ID is named, or the text names the design itself", () => {
    expect(designIdsNote("G-07, CR-14, P10, D11, DP4, PD1")).toBeUndefined();
    expect(designIdsNote("task P4 of the Compass Server-on-Kubernetes design")).toBeUndefined();
  });
});
