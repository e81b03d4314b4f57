// Waivers (rigging.dev/waive): a warning waived on its object with a reason
// stays visible (text, JSON, SARIF suppressions) but no longer fails
// --fail-on warning; an error cannot be waived, and a waiver that tries,
// names an unknown ID or gives no reason is itself an error finding.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { generatedFile } from "../support/corpus.ts";

const RP = join(ROOT, "test", "fixtures", "check", "rootpilot-runner");
/** The corpus's G-07 case: the Deployment lacks its version label. */
const G07 = generatedFile("rootpilot-runner", "G-07.yaml");

/** The G-07 set with an annotation on the Deployment. */
function withWaiver(waiver: unknown, file = G07): string {
  const objects = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS());
  const deployment = objects.find((o) => o.kind === "Deployment");
  deployment.metadata.annotations = { "rigging.dev/waive": waiver };
  return tempFile(objects.map((o) => stringify(o)).join("---\n"), "set.yaml");
}

function json(...args: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const r = runInProcess(["check", "--format", "json", ...args]);
  return { code: r.code, findings: r.code === 2 ? [] : JSON.parse(r.out), err: r.err };
}

describe("a waiver of a warning", () => {
  const file = withWaiver("G-07: labels come from our chart library");

  it("keeps the finding, marked waived with its reason, and exits 0 even with --fail-on warning", () => {
    const { code, findings } = json("--fail-on", "warning", file);
    expect(code).toBe(0);
    expect(findings.map((f) => [f.ruleId, f.severity, f.waived])).toEqual([["G-07", "warning", "labels come from our chart library"]]);
  });

  it("shows in text and in the summary", () => {
    const r = runInProcess(["check", file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/G-07 {2}Deployment\/rootpilot\/runner-eu .*\[waived: labels come from our chart library\]/);
    expect(r.err).toMatch(/0 error\(s\), 0 warning\(s\), 1 waived/);
  });

  it("is a SARIF suppression, and the log stays valid SARIF 2.1.0", () => {
    const r = runInProcess(["check", "--format", "sarif", file]);
    const log = JSON.parse(r.out);
    const [result] = log.runs[0].results;
    expect(result.ruleId).toBe("G-07");
    expect(result.suppressions).toEqual([{ kind: "inSource", status: "accepted", justification: "labels come from our chart library" }]);
    const schema = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "sarif-schema-2.1.0.json"), "utf8"));
    const ajv = new Ajv2020({
      allErrors: true,
      strict: false,
      validateSchema: false,
      code: { regExp: ((p: string, f?: string) => new RegExp(p.replace(/^\^\(\?i\)/, "^"), (f ?? "") + (p.startsWith("^(?i)") ? "i" : ""))) as never },
    });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
  });

  it("is ignored with --no-waivers: the warning counts again", () => {
    const { code, findings } = json("--no-waivers", "--fail-on", "warning", file);
    expect(code).toBe(1);
    expect(findings.map((f) => [f.ruleId, f.waived])).toEqual([["G-07", undefined]]);
  });

  it("without --fail-on warning, an unwaived warning exits 0", () => {
    expect(json("--no-waivers", file).code).toBe(0);
  });
});

describe("the waiver syntax: entries separated by ; each `IDs: reason`", () => {
  it("several IDs and entries", () => {
    const file = withWaiver("G-07, G-09: our chart library writes labels; RP-08: the mesh enforces egress", join(RP, "warn", "RP-08-no-policy.yaml"));
    const { code, findings } = json("--fail-on", "warning", file);
    expect(code).toBe(0);
    expect(findings.map((f) => [f.ruleId, f.waived])).toEqual([["RP-08", "the mesh enforces egress"]]);
  });

  it("a waiver covers only its own object", () => {
    const objects = parseAllDocuments(readFileSync(G07, "utf8")).map((d) => d.toJS());
    objects.find((o) => o.kind === "ServiceAccount").metadata.annotations = { "rigging.dev/waive": "G-07: not this one" };
    const { findings } = json(tempFile(objects.map((o) => stringify(o)).join("---\n"), "set.yaml"));
    expect(findings.map((f) => [f.ruleId, f.object.kind, f.waived])).toEqual([["G-07", "Deployment", undefined]]);
  });
});

describe("a waiver that cannot apply is itself a finding (an error)", () => {
  it.each([
    ["an error: RP-10's endpoint without a scheme", "RP-10: we know better", join(RP, "broken", "RP-10.yaml"), /RP-10 is an error .*errors cannot be waived/],
    ["an unknown rule ID, with a suggestion", "G-7: typo", G07, /"G-7" is not a rule ID \(did you mean G-07\?\)/],
    ["no reason", "G-07", G07, /the waiver of G-07 gives no reason/],
    ["an empty reason", "G-07:   ", G07, /the waiver of G-07 gives no reason/],
    ["not a string", 7, G07, /is not a string/],
  ])("%s", (_what, waiver, base, message) => {
    const file = withWaiver(waiver, base);
    const { code, findings } = json(file);
    expect(code).toBe(1);
    const problems = findings.filter((f) => f.ruleId === "waiver");
    expect(problems).toHaveLength(1);
    expect(problems[0].severity).toBe("error");
    expect(problems[0].path).toBe('metadata.annotations["rigging.dev/waive"]');
    expect(problems[0].message).toMatch(message);
    const text = readFileSync(file, "utf8").split("\n");
    expect(text[problems[0].line! - 1]).toContain("rigging.dev/waive");
  });

  it("the error a waiver tried to cover stays an error", () => {
    const { findings } = json(withWaiver("RP-10: we know better", join(RP, "broken", "RP-10.yaml")));
    expect(findings.filter((f) => f.ruleId === "RP-10").map((f) => [f.severity, f.waived])).toEqual([["error", undefined]]);
  });

  it("a mixed rule's waiver covers its warnings, not its errors", () => {
    // RP-01 has errors (~/.aws away from $HOME) and opinions (uid): waive it, the error stays.
    const { code, findings } = json(withWaiver("RP-01, RP-07: on purpose", join(RP, "broken", "RP-01.yaml")));
    expect(code).toBe(1);
    expect(findings.filter((f) => f.ruleId === "RP-01").map((f) => [f.severity, f.waived])).toEqual([["error", undefined]]);
    expect(findings.filter((f) => f.ruleId === "waiver")).toEqual([]);
  });

  it("--no-waivers ignores a bad waiver too", () => {
    const { code, findings } = json("--no-waivers", withWaiver("G-7", G07));
    expect(code).toBe(0);
    expect(findings.map((f) => f.ruleId)).toEqual(["G-07"]);
  });
});

describe("a waiver is judged against the rules of its object's profile", () => {
  it("a rule of another profile (a Compass Runner warning on a Rootpilot Deployment) is an error, and waives nothing", () => {
    const { code, findings } = json(withWaiver("CR-19, G-07: our chart library"));
    expect(code).toBe(1);
    const problems = findings.filter((f) => f.ruleId === "waiver");
    expect(problems.map((f) => [f.severity, f.message])).toEqual([
      ["error", "CR-19 is not a rule of rootpilot-runner, the profile of this object (it judges compass-runner objects)"],
    ]);
    // The other ID of the entry still waives its warning.
    expect(findings.filter((f) => f.ruleId === "G-07").map((f) => f.waived)).toEqual(["our chart library"]);
  });

  it("a waiver on an object no profile recognises is read too: an unknown ID there is an error at its line", () => {
    const base = readFileSync(G07, "utf8");
    const other = stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other", annotations: { "rigging.dev/waive": "G-7: typo" } } });
    const file = tempFile(`${base}\n---\n${other}`, "set.yaml");
    const { code, findings } = json(file);
    expect(code).toBe(1);
    const problems = findings.filter((f) => f.ruleId === "waiver");
    expect(problems.map((f) => [f.object.kind, f.message])).toEqual([["ConfigMap", '"G-7" is not a rule ID (did you mean G-07?)']]);
    expect(readFileSync(file, "utf8").split("\n")[problems[0].line! - 1]).toContain("rigging.dev/waive");
  });

  it("a warning rule that finds nothing on the object is accepted: it waives nothing until the warning appears", () => {
    const { code, findings } = json("--fail-on", "warning", withWaiver("G-07: our chart library; G-06: no warning here yet"));
    expect(code).toBe(0);
    expect(findings.map((f) => [f.ruleId, f.waived])).toEqual([["G-07", "our chart library"]]);
  });
});

describe("the waiver syntax's limits (docs/check.md)", () => {
  it("a reason cannot contain ;: what follows it is read as IDs without a reason", () => {
    const { findings } = json(withWaiver("G-07: labels; those come from our chart library"));
    expect(findings.filter((f) => f.ruleId === "waiver").map((f) => f.message)).toEqual([
      expect.stringMatching(/^the waiver of those, come, from, our, chart, library gives no reason/),
    ]);
  });

  it("entries may be separated by line breaks", () => {
    const { code, findings } = json("--fail-on", "warning", withWaiver("G-07: our chart library\nG-06: no warning here yet\n"));
    expect(code).toBe(0);
    expect(findings.map((f) => [f.ruleId, f.waived])).toEqual([["G-07", "our chart library"]]);
  });

  it("an annotation over 4096 characters is an error, and waives nothing", () => {
    const { code, findings } = json(withWaiver(`G-07: ${"x".repeat(4096)}`));
    expect(code).toBe(1);
    expect(findings.find((f) => f.ruleId === "waiver")?.message).toBe("rigging.dev/waive is 4102 characters long, over the limit of 4096");
    expect(findings.find((f) => f.ruleId === "G-07")?.waived).toBeUndefined();
  });
});
