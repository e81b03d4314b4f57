// --include-rule / --exclude-rule and .rigging.yaml found upward: what is
// left out is still counted, errors among it, so nothing disappears unseen.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { CLI, ROOT, runInProcess, tempDir } from "../support/cli.ts";
import { generatedFile } from "../support/corpus.ts";

const CR09 = join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml");
const G07 = generatedFile("compass-runner", "G-07.yaml");

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
  /** A repository (its .git marks the root) with the two fixtures in a/b/, and its .rigging.yaml. */
  function repository(config: string): { repo: string; cr09: string; g07: string } {
    const repo = tempDir();
    mkdirSync(join(repo, ".git"));
    const deep = join(repo, "a", "b");
    mkdirSync(deep, { recursive: true });
    copyFileSync(CR09, join(deep, "CR-09.yaml"));
    copyFileSync(G07, join(deep, "G-07.yaml"));
    writeFileSync(join(repo, ".rigging.yaml"), config);
    return { repo, cr09: join(deep, "CR-09.yaml"), g07: join(deep, "G-07.yaml") };
  }

  it("is found upward from the checked path, wherever the command runs, and the command line adds to it", () => {
    const { cr09, g07 } = repository("check:\n  exclude-rules: [CR-09]\n");
    const r = inDir(tempDir(), [cr09]);
    expect(r.code).toBe(0);
    expect(r.findings).toEqual([]);
    expect(r.err).toContain("1 of them error(s) (CR-09)");
    const both = inDir(tempDir(), ["--include-rule", "G-07", cr09, g07]);
    expect(new Set(both.findings.map((f) => f.ruleId))).toEqual(new Set(["G-07"]));
  });

  it("stops at the repository's root: a .rigging.yaml above it is not read", () => {
    const { repo } = repository("check:\n  exclude-rules: [G-07]\n");
    const inner = join(repo, "inner");
    mkdirSync(join(inner, ".git"), { recursive: true });
    copyFileSync(CR09, join(inner, "CR-09.yaml"));
    expect(inDir(tempDir(), [join(inner, "CR-09.yaml")]).findings.map((f) => f.ruleId)).toContain("CR-09");
    // stdin has no path: the working directory's tree is searched.
    const piped = spawnSync(process.execPath, [CLI, "check", "--format", "json", "-"], { cwd: repo, input: readFileSync(G07), encoding: "utf8" });
    expect(piped.status).toBe(0);
    expect(JSON.parse(piped.stdout)).toEqual([]);
  });

  it("holds kube-version, fail-on, format and strict; each flag replaces its setting", () => {
    const { repo } = repository('check:\n  kube-version: "1.30"\n  fail-on: warning\n  format: json\n  strict: true\n');
    const valid = join(repo, "a", "valid.yaml");
    copyFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "valid.yaml"), valid);
    const r = spawnSync(process.execPath, [CLI, "check", valid], { cwd: tempDir(), encoding: "utf8" });
    expect(r.status).toBe(1);
    const findings = JSON.parse(r.stdout) as CheckFinding[];
    expect(findings.filter((f) => f.ruleId === "CR-09").map((f) => f.message)).toContainEqual(expect.stringMatching(/^Kubernetes 1\.30 \(--kube-version\)/));
    const flags = spawnSync(process.execPath, [CLI, "check", "--kube-version", "1.36", "--format", "text", "--fail-on", "error", valid], {
      cwd: tempDir(),
      encoding: "utf8",
    });
    expect(flags.status, flags.stdout).toBe(0);
    expect(flags.stdout).not.toContain("Kubernetes 1.30");
    // fail-on: warning fails a run of warnings alone; strict makes a workload no profile claims an error.
    const g07 = join(repo, "a", "b", "G-07.yaml");
    expect(spawnSync(process.execPath, [CLI, "check", "--kube-version", "1.36", g07], { encoding: "utf8" }).status).toBe(1);
    expect(spawnSync(process.execPath, [CLI, "check", "--kube-version", "1.36", "--fail-on", "error", g07], { encoding: "utf8" }).status).toBe(0);
    const nginx = join(repo, "a", "nginx.yaml");
    copyFileSync(join(ROOT, "test", "fixtures", "repo", "apps", "plain", "nginx.yaml"), nginx);
    const strict = JSON.parse(spawnSync(process.execPath, [CLI, "check", "--fail-on", "error", nginx], { encoding: "utf8" }).stdout) as CheckFinding[];
    expect(strict.map((f) => [f.ruleId, f.severity])).toEqual([["unrecognised", "error"]]);
  });

  it("a misspelt setting or an unknown rule ID in it is a usage error naming the file", () => {
    const { repo, cr09 } = repository("check:\n  exclude-rule: [CR-09]\n");
    const r = inDir(repo, [cr09]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("check.exclude-rule is not a setting (did you mean exclude-rules?)");
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  kube-versoin: 1.30\n");
    expect(inDir(repo, [cr09]).err).toContain("check.kube-versoin is not a setting (did you mean kube-version?)");
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  fail-on: never\n");
    expect(inDir(repo, [cr09]).err).toContain(`fail-on (in ${join(repo, ".rigging.yaml")}) never: expected error or warning`);
    writeFileSync(join(repo, ".rigging.yaml"), "check:\n  exclude-rules: [CR-99]\n");
    expect(inDir(repo, [cr09]).err).toContain(`--exclude-rule (or ${join(repo, ".rigging.yaml")}) CR-99: no rule has this ID`);
  });
});
