import { runInProcess } from "../support/cli.ts";
import { describe, expect, it } from "vitest";
import { catalog } from "../../src/systems/registry.ts";

describe("rigging explain", () => {
  it("lists every requirement of the requirement files, once each, each ruled one with its rule", () => {
    const r = runInProcess(["explain"]);
    expect(r.code).toBe(0);
    const ids = r.out
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/)[0]);
    const expected = catalog.requirementEntries().map((entry) => entry.id);
    expect([...ids].sort()).toEqual([...expected].sort());
    for (const rule of catalog.allRules()) expect(ids).toContain(rule.id);
    expect(ids.slice(0, 4)).toEqual(["G-01", "G-02", "G-03", "G-04"]);
    expect(r.out).toMatch(/^CR-09\s+error\s+The pod runs in a user namespace: hostUsers: false$/m);
    expect(r.out).toMatch(/^CR-18\s+values\s+Node prerequisites/m);
  });

  it("explains a rule: requirement, why (with the source document's words), how judged, fix", () => {
    const r = runInProcess(["explain", "cr-03"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^CR-03 {2}The only credential is a projected token/);
    expect(r.out).toMatch(/Why:\n {2}The Compass Runner manifests guide: "The DaemonSet uses a projected\s+compass-runner ServiceAccount/);
    expect(r.out).toMatch(/attestation_invalid/);
    expect(r.out).toMatch(/Judged:\n {2}rule over manifests/);
    expect(r.out).toMatch(/Fix:\n {2}mount a projected serviceAccountToken/);
  });

  it("says how values meet a requirement, under its own label, only where the data says it", () => {
    const r = runInProcess(["explain", "CR-03"]);
    expect(r.out).toMatch(/Judged:\n(?: {2}.*\n)+\nIn values:\n {2}`tokenExpirationSeconds` \(default 600\) is the token's/);
    expect(r.out).toMatch(/no higher than\s+`maxTokenLifetimeSeconds`/);
    expect(runInProcess(["explain", "CR-02"]).out).not.toContain("In values:");
  });

  it("says how a rule over manifests reads its fields: the object Kubernetes runs, and its own readings", () => {
    const r = runInProcess(["explain", "CR-03"]);
    expect(r.out).toMatch(/Reads:\n {2}after the API server's defaults/);
    expect(r.out).toMatch(/envFrom read from the\s+ConfigMaps in the input/);
    expect(runInProcess(["explain", "CR-18"]).out).not.toContain("Reads:");
  });

  it("explains a requirement no rule judges by how it is enforced", () => {
    const r = runInProcess(["explain", "CR-18"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/render prints the checklist/);
  });

  it("every G- and CR- rule has its why", () => {
    const missing = catalog
      .allRules()
      .filter((rule) => /^(G|CR)-/.test(rule.id) && !rule.why)
      .map((rule) => rule.id);
    expect(missing).toEqual([]);
  });

  it("refuses an unknown ID with a suggestion", () => {
    const r = runInProcess(["explain", "CR-3"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown requirement "CR-3" \(did you mean CR-\d+\?\)/);
  });
});
