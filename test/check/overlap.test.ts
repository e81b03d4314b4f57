// Where rules and the schema meet: a rule stopped by a value the schema refuses is not judged (an input
// problem only where the schema says nothing), and a finding said twice in the same words is said once.
import { describe, expect, it } from "vitest";
import { crashesFolded, saidOnce } from "../../src/check/overlap.ts";
import type { CheckFinding } from "../../src/check/run.ts";

const finding = (ruleId: string, message: string, extra: Partial<CheckFinding> = {}): CheckFinding => ({
  file: "svc.yaml",
  line: 7,
  ruleId,
  severity: "error",
  profile: "compass-server",
  object: { apiVersion: "v1", kind: "Service", name: "compass" },
  path: 'metadata.annotations["load balancer/type"]',
  message,
  fix: "-",
  ...extra,
});

describe("saidOnce", () => {
  it("leaves out a schema finding a requirement makes at the same place, in the same words", () => {
    const requirement = finding("CS-08", '"load balancer/type" is not a valid annotation key');
    const schema = [finding("schema", '"load balancer/type" is not a valid annotation key: a qualified name...'), finding("schema", "another", { line: 9 })];
    expect(saidOnce(schema, [requirement]).map((f) => f.message)).toEqual(["another"]);
    expect(saidOnce(schema, [finding("CS-08", "other words")])).toHaveLength(2);
  });
});

describe("crashesFolded", () => {
  const crash = { id: "CS-05", profile: "compass-server" as const, message: "x.map is not a function" };

  it("makes a rule stopped by a refused value a skipped entry of the whole rule", () => {
    const problems: string[] = [];
    const skipped = crashesFolded([crash], [finding("schema", "expected a list")], problems);
    expect(problems).toEqual([]);
    expect(skipped).toEqual([{ ruleId: "CS-05", profiles: ["compass-server"], reason: expect.stringContaining("the Kubernetes schema refuses"), whole: true }]);
  });

  it("keeps it an input problem where the schema finds nothing to explain it, or only a warning", () => {
    for (const schema of [[], [finding("schema", "beta apiVersion", { severity: "warning" })], [finding("schema", "x", { profile: "rootpilot-runner" })]]) {
      const problems: string[] = [];
      expect(crashesFolded([crash], schema, problems)).toEqual([]);
      expect(problems).toEqual(["CS-05 could not read the compass-server objects (a field of the wrong type?): x.map is not a function"]);
    }
  });
});
