// `rigging rules` lists every rule check reports, and `explain` answers every
// ID that any command prints.
import { describe, expect, it } from "vitest";
import { LIVE_DECISIONS } from "../../src/preflight/decisions.ts";
import { runInProcess } from "../support/cli.ts";
import { catalog } from "../../src/systems/registry.ts";

describe("rigging rules", () => {
  it("--format json lists every rule with id, summary, severity, fix, source and profiles", () => {
    const r = runInProcess(["rules", "--format", "json"]);
    expect(r.code).toBe(0);
    const entries = JSON.parse(r.out);
    expect(entries.map((e: { id: string }) => e.id)).toEqual([
      ...catalog.allRules().map((rule) => rule.id),
      "input",
      "unrecognised",
      "schema",
      "objects",
      "waiver",
    ]);
    for (const e of entries) {
      expect(Object.keys(e)).toEqual(["id", "summary", "severity", "fix", "source", "profiles", "opinions"]);
      expect(["error", "warning"]).toContain(e.severity);
      expect(e.fix).not.toBe("");
    }
    const cr19 = entries.find((e: { id: string }) => e.id === "CR-19");
    expect(cr19.opinions.map((o: { summary: string }) => o.summary)).toContain("no priorityClassName");
    expect(cr19.source).toMatch(/^upstream: /);
  });

  it("text lists one line per rule; a stray argument or format is a usage error", () => {
    expect(runInProcess(["rules"]).out).toMatch(/^CR-09 +error +The pod runs in a user namespace/m);
    expect(runInProcess(["rules", "CR-09"]).code).toBe(2);
    expect(runInProcess(["rules", "--format", "xml"]).code).toBe(2);
  });
});

describe("explain answers every ID a command prints", () => {
  it.each(["input", "unrecognised", "waiver", ...LIVE_DECISIONS.map((d) => d.id)])("%s", (id) => {
    const r = runInProcess(["explain", id]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.startsWith(`${id}  `)).toBe(true);
  });

  it("D8 and D10 name the command that checks them", () => {
    expect(runInProcess(["explain", "D8"]).out).toMatch(/rigging pin/);
    expect(runInProcess(["explain", "d10"]).out).toMatch(/multi-arch/);
  });
});
