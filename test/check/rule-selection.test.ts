// --include-rule / --exclude-rule and .rigging.yaml found upward: what is
// left out is still counted, errors among it, so nothing disappears unseen.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { CLI, ROOT, runInProcess, tempDir } from "../support/cli.ts";

const CR09 = join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml");
const G07 = join(ROOT, "test", "fixtures", "check", "compass-runner", "warn", "G-07.yaml");

function inDir(cwd: string, args: string[]) {
  const r = spawnSync(process.execPath, [CLI, "check", "--format", "json", ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, findings: r.status === 2 ? [] : (JSON.parse(r.stdout) as CheckFinding[]), err: r.stderr };
}

describe("choosing rules on the command line", () => {
  it("--exclude-rule leaves an error out of the report and the exit code, and counts it as excluded", () => {
    const r = runInProcess(["check", "--format", "json", "--exclude-rule", "CR-09", CR09]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([]);
    expect(r.err).toContain("excluded by rule selection: 1 finding(s), 1 of them error(s) (CR-09)");
  });

  it("--include-rule reports only the rules named", () => {
    const r = runInProcess(["check", "--format", "json", "--include-rule", "G-07", CR09, G07]);
    const findings = JSON.parse(r.out) as CheckFinding[];
    expect(findings.length).toBeGreaterThan(0);
    expect(new Set(findings.map((f) => f.ruleId))).toEqual(new Set(["G-07"]));
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/excluded by rule selection: \d+ finding\(s\), 1 of them error\(s\) \(CR-09/);
  });

  it("a selection never hides a file that cannot be parsed: a duplicate key stays an error under --include-rule schema", () => {
    const dir = tempDir();
    const file = join(dir, "twice.yaml");
    writeFileSync(file, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  replicas: 2\n");
    for (const selection of [
      ["--include-rule", "schema"],
      ["--exclude-rule", "input"],
    ]) {
      // Walked from a directory, the file is an input finding the selection keeps.
      const walked = runInProcess(["check", "--format", "json", ...selection, dir]);
      const findings = JSON.parse(walked.out) as CheckFinding[];
      expect(findings.map((f) => f.ruleId)).toEqual(["input"]);
      expect(findings[0].message).toContain("replicas repeats replicas");
      expect(walked.code).toBe(1);
      // Named, it is an input problem: nothing is checked.
      const named = runInProcess(["check", "--format", "json", ...selection, file]);
      expect(named.err).toContain("replicas repeats replicas");
      expect(named.code).toBe(2);
    }
  });

  it("an unknown ID is a usage error naming the closest rule", () => {
    const r = runInProcess(["check", "--exclude-rule", "CR-9", CR09]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--exclude-rule CR-9: no rule has this ID (did you mean CR-09?)");
  });
});

describe(".rigging.yaml", () => {
  it("is found upward from the working directory, and the command line adds to it", () => {
    const repo = tempDir();
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  exclude-rules: [CR-09]\n");
    const deep = join(repo, "a", "b");
    mkdirSync(deep, { recursive: true });
    const r = inDir(deep, [CR09]);
    expect(r.code).toBe(0);
    expect(r.findings).toEqual([]);
    expect(r.err).toContain("1 of them error(s) (CR-09)");
    const both = inDir(deep, ["--include-rule", "G-07", CR09, G07]);
    expect(new Set(both.findings.map((f) => f.ruleId))).toEqual(new Set(["G-07"]));
  });

  it("a misspelt setting or an unknown rule ID in it is a usage error naming the file", () => {
    const repo = tempDir();
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  exclude-rule: [CR-09]\n");
    const r = inDir(repo, [CR09]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("check.exclude-rule is not a setting (did you mean exclude-rules?)");
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  exclude-rules: [CR-99]\n");
    expect(inDir(repo, [CR09]).err).toContain(`--exclude-rule (or ${join(repo, ".rigging.yaml")}) CR-99: no rule has this ID`);
  });
});
