// `--format sarif` output validated against the published SARIF 2.1.0 JSON
// Schema (vendored unchanged in test/fixtures, see its README).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runCli, runInProcess } from "../support/cli.ts";
import { catalog } from "../../src/systems/registry.ts";

const schema = JSON.parse(readFileSync(join(ROOT, "test", "fixtures", "sarif-schema-2.1.0.json"), "utf8"));

/**
 * The schema writes one pattern with a leading inline flag, `^(?i)...`, which
 * JavaScript regular expressions do not accept; read it as the `i` flag.
 */
function regExp(pattern: string, flags?: string) {
  const inline = /^\^\(\?i\)/.test(pattern);
  return new RegExp(inline ? `^${pattern.slice(5)}` : pattern, (flags ?? "") + (inline ? "i" : ""));
}
regExp.code = "new RegExp";

function validator() {
  // The published file has a slip: region's `anyOf` sits inside its
  // `properties`, as if it were a property named "anyOf" whose schema is a
  // list. The meta-schema rejects that, so the schema itself is not
  // meta-validated (validateSchema: false) and the stray entry is read as
  // ajv reads any unknown property schema (strict: false). Every other
  // keyword applies as published.
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false, code: { regExp: regExp as never } });
  addFormats(ajv);
  return ajv.compile(schema);
}

const BROKEN = join(ROOT, "test", "fixtures", "check", "compass-runner", "broken");

describe("SARIF 2.1.0 output", () => {
  const validate = validator();
  const sarif = runInProcess(["check", "--format", "sarif", BROKEN]);
  const json = runInProcess(["check", "--format", "json", BROKEN]);
  const log = JSON.parse(sarif.out);

  it("is valid against the published schema", () => {
    expect(sarif.code).toBe(1);
    const ok = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("the validator does reject a broken log", () => {
    const broken = structuredClone(log);
    broken.runs[0].results[0].level = "fatal";
    delete broken.runs[0].tool.driver.name;
    expect(validate(broken)).toBe(false);
  });

  it("names the tool, lists the catalog as rules, and reports every finding with its file and line", () => {
    const run = log.runs[0];
    expect(log.version).toBe("2.1.0");
    expect(run.tool.driver.name).toBe("rigging");
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([
      ...catalog.allRules().map((r) => r.id),
      "waiver",
      "input",
      "unrecognised",
      "schema",
      "objects",
    ]);
    const rule = run.tool.driver.rules.find((r: { id: string }) => r.id === "CR-09");
    expect(rule.shortDescription.text).toBe("The pod runs in a user namespace: hostUsers: false");
    expect(rule.help.text).toMatch(/^Fix: set hostUsers: false in the pod spec/);
    // Code scanning shows this help: sources are named by their kind and public name.
    const helps: string[] = run.tool.driver.rules.map((r: { help: { text: string } }) => r.help.text);
    expect(helps.filter((h) => /\nSource \(documented\): the Compass Runner manifests guide/.test(h)).length).toBeGreaterThan(0);
    expect(helps.filter((h) => /\bseed\b/i.test(h))).toEqual([]);
    const findings: CheckFinding[] = JSON.parse(json.out);
    expect(run.results).toHaveLength(findings.length);
    // The corpus holds both: errors, and the warnings its fixtures declare.
    expect(new Set(findings.map((f) => f.severity))).toEqual(new Set(["error", "warning"]));
    run.results.forEach((result: any, i: number) => {
      const f = findings[i];
      expect(result.ruleId).toBe(f.ruleId);
      expect(result.level).toBe(f.severity);
      expect(run.tool.driver.rules[result.ruleIndex].id).toBe(f.ruleId);
      const { artifactLocation, region } = result.locations[0].physicalLocation;
      expect(decodeURIComponent(artifactLocation.uri.replace(/^file:\/\//, ""))).toBe(f.file);
      expect(region).toEqual({ startLine: f.line, startColumn: f.column });
    });
  });

  it("gives code scanning its security-severity, tags and a run category", () => {
    const run = log.runs[0];
    expect(run.automationDetails).toEqual({ id: "rigging-check/" });
    const cr09 = run.tool.driver.rules.find((r: any) => r.id === "CR-09");
    expect(cr09.properties.tags).toEqual(expect.arrayContaining(["security", "kubernetes", "compass-runner"]));
    expect(Number(cr09.properties["security-severity"])).toBeGreaterThanOrEqual(7);
    const g07 = run.tool.driver.rules.find((r: any) => r.id === "G-07");
    expect(g07.defaultConfiguration.level).toBe("warning");
    expect(Number(g07.properties["security-severity"])).toBeLessThan(7);
    const g08 = run.tool.driver.rules.find((r: any) => r.id === "G-08");
    expect(g08.properties.tags).toContain("reliability");
    expect(g08.properties["security-severity"]).toBeUndefined();
    const named = runInProcess(["check", "--format", "sarif", "--sarif-category", "overlays/prod", join(BROKEN, "CR-09.yaml")]);
    expect(JSON.parse(named.out).runs[0].automationDetails).toEqual({ id: "overlays/prod/" });
    expect(runInProcess(["check", "--format", "sarif", "--sarif-category", "a b", join(BROKEN, "CR-09.yaml")]).code).toBe(2);
  });

  it("lists what was not judged as notifications", () => {
    const notes = log.runs[0].invocations[0].toolExecutionNotifications;
    expect(notes.map((n: any) => n.descriptor?.id)).toContain("CR-18");
  });

  it("relative paths stay relative URIs", () => {
    const r = runInProcess(["check", "--format", "sarif", "test/fixtures/check/compass-runner/broken/CR-09.yaml"]);
    const result = JSON.parse(r.out).runs[0].results[0];
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe("test/fixtures/check/compass-runner/broken/CR-09.yaml");
    expect(validate(JSON.parse(r.out))).toBe(true);
  });
});

describe("the GitHub Action's command over this repository's own tree", () => {
  const action = readFileSync(join(ROOT, "action.yml"), "utf8");
  // The Action runs `node dist/rigging.mjs check --format sarif -- PATHS` with paths defaulting to ".".
  const r = runCli(["check", "--format", "sarif", "--", "."]);

  it("is the command action.yml runs, with its default paths", () => {
    expect(action).toContain('args=(check --format "$' + '{FORMAT:-sarif}" --sarif-category "$' + '{CATEGORY:-rigging-check}")');
    expect(action).toContain(["node", '"$RIGGING"', '"$' + '{args[@]}"', "--", '"$' + '{paths[@]}"'].join(" "));
    expect(action).toMatch(/paths:\n\s+description: [^\n]*\n\s+default: "\."/);
  });

  it("exits 0 or 1, never 2, and its SARIF validates against SARIF 2.1.0", () => {
    expect([0, 1], r.err).toContain(r.code);
    const log = JSON.parse(r.out);
    const ok = validator()(log);
    expect(ok).toBe(true);
    const notes = log.runs[0].invocations[0].toolExecutionNotifications.map((n: { message: { text: string } }) => n.message.text);
    expect(notes.some((t: string) => /walked file\(s\) skipped: rigging values files/.test(t))).toBe(true);
    expect(log.runs[0].results.some((res: { ruleId: string }) => res.ruleId === "input")).toBe(true);
  });
});
