// `check --schema-only` asks the Kubernetes schema alone: its findings and
// exit code are those a full run gives under `--include-rule schema`, on a
// broken tree and on a clean one, whichever the Kubernetes version.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runCli, runInProcess, tempDir } from "../support/cli.ts";

const FIXTURES = join(ROOT, "test", "fixtures", "check");
/** Every profile's broken manifests: a toleration operator and an annotation the schema refuses, among the rules' errors. */
const BROKEN = FIXTURES;
/** Warnings of the rules, nothing the schema refuses. */
const CLEAN = join(FIXTURES, "compass-runner", "warn");

function check(args: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const r = runInProcess(["check", "--format", "json", ...args]);
  return { code: r.code, findings: r.code === 2 ? [] : (JSON.parse(r.out) as CheckFinding[]), err: r.err };
}

/** The schema findings and exit code of a full run and of --schema-only, side by side. */
function both(args: string[]) {
  return { full: check(["--include-rule", "schema", ...args]), alone: check(["--schema-only", ...args]) };
}

describe("check --schema-only", () => {
  it("reports a full run's schema findings on broken manifests, and exits 1 as it does", () => {
    const { full, alone } = both([BROKEN]);
    expect(full.findings.length).toBeGreaterThan(0);
    expect(new Set(full.findings.map((f) => f.ruleId))).toEqual(new Set(["schema"]));
    expect(alone.findings).toEqual(full.findings);
    expect(alone.code).toBe(1);
    expect(full.code).toBe(1);
  });

  it("names the profile a full run names, a copy given twice included (the last copy is judged)", () => {
    // Kubernetes 1.24 serves none of the policies: every copy of each is a schema error, in each profile's directory.
    const { full, alone } = both(["--kube-version", "1.24", BROKEN]);
    expect(full.findings.length).toBeGreaterThan(100);
    expect(full.findings.some((f) => f.profile === undefined)).toBe(true);
    expect(full.findings.some((f) => f.profile !== undefined)).toBe(true);
    expect(alone.findings).toEqual(full.findings);
    expect(alone.code).toBe(full.code);
  });

  it("finds nothing where a full run's schema finds nothing, and none of the rules' warnings", () => {
    const { full, alone } = both([CLEAN]);
    expect(full.findings).toEqual([]);
    expect(alone.findings).toEqual([]);
    expect(alone.code).toBe(0);
    expect(full.code).toBe(0);
    const all = check([CLEAN]);
    expect(all.findings.filter((f) => f.severity === "warning").length).toBeGreaterThan(0);
  });

  it("runs no profile's rules and no normalising stage: only schema and input findings", () => {
    const { findings } = check(["--schema-only", BROKEN]);
    const everything = check([BROKEN]).findings;
    expect(new Set(everything.map((f) => f.ruleId)).size).toBeGreaterThan(10);
    expect(new Set(findings.map((f) => f.ruleId))).toEqual(new Set(["schema"]));
  });

  it("keeps a file that cannot be parsed an error, as a full run does", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "twice.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  replicas: 2\n");
    const { full, alone } = both([dir]);
    expect(alone.findings.map((f) => f.ruleId)).toEqual(["input"]);
    expect(alone.findings).toEqual(full.findings);
    expect(alone.code).toBe(1);
    expect(full.code).toBe(1);
  });

  it("reports the same on worker threads, each directory handed out alone, as on one thread", () => {
    // The fixtures' six directories, far under the threshold: RIGGING_THREADS asks for threads at any length.
    for (const args of [["--schema-only"], []]) {
      const run = (threads: string) =>
        runCli(["check", "--format", "json", "--kube-version", "1.24", ...args, BROKEN], undefined, { RIGGING_THREADS: threads });
      const [one, two] = [run("1"), run("2")];
      expect(one.code).toBe(1);
      expect(two.code).toBe(1);
      expect(JSON.parse(two.out).length).toBeGreaterThan(100);
      expect(two.out).toBe(one.out);
      expect(two.err).toBe(one.err);
    }
  });

  it("lists in JUnit only rule schema as a case, since no profile's rule ran", () => {
    const junit = (args: string[]) => runInProcess(["check", "--format", "junit", ...args]).out;
    const names = (xml: string) => [...xml.matchAll(/<testcase [^>]*name="([^"]*)"/g)].map((m) => m[1].split(/[: ]/)[0]);
    expect(names(junit(["--schema-only", CLEAN]))).toEqual(["schema"]);
    const broken = junit(["--schema-only", BROKEN]);
    expect(new Set(names(broken))).toEqual(new Set(["schema"]));
    expect(broken).toMatch(/<failure type="error"/);
    expect(names(junit([CLEAN])).filter((n) => /^CR-/.test(n)).length).toBeGreaterThan(5);
  });

  it("refuses --strict, which judges workloads by profile", () => {
    const r = runInProcess(["check", "--schema-only", "--strict", CLEAN]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--schema-only");
  });
});
