// `rigging fn` as the real kpt runs it: every rendered object in a file of its
// own (kpt refuses two items at one path), rigging's own message with its
// field and file for a bad value, and each checklist line a result of its own.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checklistItems } from "../../src/cli/fn.ts";
import { ROOT, riggingOnPath, runInProcess, tempDir } from "../support/cli.ts";

const kptFound = spawnSync("kpt", ["version"]).status === 0;
const COMPASS = `apiVersion: rigging.dev/v1alpha1\nmetadata:\n  name: compass\n${readFileSync(join(ROOT, "examples", "compass.yaml"), "utf8")}`;
const ROOTPILOT = `apiVersion: rigging.dev/v1alpha1\nmetadata:\n  name: runner\n${readFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), "utf8")}`;

describe.skipIf(!kptFound)("rigging fn under the real kpt", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    work = tempDir();
    env = { ...process.env, PATH: riggingOnPath(work) };
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const evaluate = (pkg: string, ...args: string[]) => {
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n");
    return spawnSync("kpt", ["fn", "eval", pkg, "--truncate-output=false", ...args], { cwd: work, env, encoding: "utf8" });
  };

  it("renders both systems of a Compass file, each object in its own file", () => {
    writeFileSync(join(work, "compass.yaml"), COMPASS);
    const r = evaluate(join(work, "both"), "--exec", "rigging fn", "--fn-config", join(work, "compass.yaml"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("already exists");
    const rendered = parse(runInProcess(["render", "--format", "json", join(ROOT, "examples", "compass.yaml")]).out).items as unknown[];
    expect(readdirSync(join(work, "both", "compass"))).toHaveLength(rendered.length);
  });

  it("shows each checklist line as its own result, its heading before it", () => {
    const r = evaluate(join(work, "notes"), "--exec", "rigging fn", "--fn-config", join(work, "compass.yaml"));
    const results = r.stderr.split("\n").filter((line) => line.trimStart().startsWith("[info]"));
    const heading = results.findIndex((line) => line.includes("Before applying, on node"));
    expect(heading).toBeGreaterThan(-1);
    expect(results[heading + 1]).toMatch(/^\s+\[info\]: \[ \] a digest-pinned KVM device plugin advertises/);
    expect(results.length).toBeGreaterThan(20);
  });

  it("a bad value: rigging's message with its field, and with -f its file and line", () => {
    const bad = ROOTPILOT.replace("drainTimeoutMs: 120000", "drainTimeoutMs: -5");
    expect(bad).not.toBe(ROOTPILOT);
    writeFileSync(join(work, "bad.yaml"), bad);
    const line = bad.split("\n").findIndex((l) => l.startsWith("drainTimeoutMs:")) + 1;
    const config = evaluate(join(work, "bad-config"), "--exec", "rigging fn", "--fn-config", join(work, "bad.yaml"));
    expect(config.status).toBe(1);
    expect(config.stderr).toMatch(/\[error\] drainTimeoutMs: -5 is below 1000 \(RP-03: /);
    const named = evaluate(join(work, "bad-f"), "--exec", `rigging fn -f ${join(work, "bad.yaml")}`);
    expect(named.status).toBe(1);
    expect(named.stderr).toContain(
      `[error] drainTimeoutMs: -5 is below 1000 (RP-03: drainTimeoutMs is at least 1000 ms); set at ${join(work, "bad.yaml")}:${line}:`,
    );
  });
});

describe("checklistItems", () => {
  it("makes each heading and each [ ] item a result, continuation lines with their item", () => {
    const notes =
      "note: one line\nBefore applying, on node n (CR-18):\n  [ ] first\n  [ ] second\n      which goes on\nThe entry:\n  - name: local\n    issuer: x";
    expect(checklistItems(notes)).toEqual([
      "note: one line",
      "Before applying, on node n (CR-18):",
      "[ ] first",
      "[ ] second\n      which goes on",
      "The entry:\n  - name: local\n    issuer: x",
    ]);
  });
});
