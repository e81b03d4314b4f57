// `rigging diff OLD NEW`: the inputs it refuses, Secrets never shown, the same bytes under Node and Bun, and render -o's summary over an earlier output.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { BUN, ROOT, runCli, runInProcess, runProcess, tempDir, tempFile } from "../support/cli.ts";
import { COMPASS, RUNNER, RUNNER_CA, SERVER, diff, live, valuesWith } from "./diff-helpers.ts";

describe("diff: inputs and output", () => {
  it("names an object that appears twice on one side (exit 2)", () => {
    const text = readFileSync(live(RUNNER), "utf8");
    const doubled = tempFile(`${text}---\n${text}`, "twice.yaml");
    const r = diff(doubled, RUNNER);
    expect(r.err).toBe(`error ${doubled}: Namespace compass-runner appears twice; diff compares one object per kind, namespace and name\n`);
    expect(r.code).toBe(2);
  });

  it("two systems compared object by object, each judged as its own", () => {
    const r = diff(RUNNER, SERVER);
    expect(r.code).toBe(1);
    expect(r.out).toContain("- apps/DaemonSet compass-runner/compass-runner\n  consequence: the Runner stops on every node");
    expect(r.out).toContain("+ apps/Deployment compass/compass-server\n");
  });

  it("a Secret's values are never shown, in text or JSON: only which keys changed", () => {
    const secret = (data: Record<string, string>, stringData?: Record<string, string>) =>
      tempFile(
        stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "x" }, data, ...(stringData ? { stringData } : {}) }),
        "secret.yaml",
      );
    const before = secret({ password: "c2VjcmV0LW9uZQ==" });
    const after = secret({ password: "c2VjcmV0LXR3bw==", token: "dG9rZW4tdmFsdWU=" }, { url: "nats://u:hunter2@h" });
    const text = diff(before, after);
    expect(text.out).toBe(
      '~ Secret x/s\n    data.password: "(secret value)" -> "(secret value)"\n    data.token: (none) -> "(secret value)"\n    stringData: (none) -> "(secret value)"\nsummary: 1 changed, 0 added, 0 removed\n',
    );
    const json = diff(before, after, "--format", "json").out;
    for (const value of ["c2VjcmV0", "dG9rZW4", "hunter2"]) expect(json).not.toContain(value);
    expect(JSON.parse(json).changes[0].fields.map((f: { path: string }) => f.path)).toEqual(["data.password", "data.token", "stringData"]);
  });

  it("usage: two sides, one stdin at most, exit 2", () => {
    expect(diff(RUNNER).code).toBe(2);
    expect(diff("-", "-").err).toBe("error diff: only one side can be - (stdin)\n");
    expect(diff(RUNNER, "/nonexistent.yaml").code).toBe(2);
  });

  it("JSON and text are the same bytes under Node and Bun", () => {
    const state = live(COMPASS, "DaemonSet", "compass-runner", (d) => {
      d.spec.template.spec.terminationGracePeriodSeconds = 30;
    });
    for (const format of ["text", "json"]) {
      const node = runCli(["diff", state, COMPASS, "--format", format]);
      const bun = runProcess(BUN, [join(ROOT, "dist", "rigging.mjs"), "diff", state, COMPASS, "--format", format]);
      expect(node.code).toBe(1);
      expect(bun).toEqual(node);
    }
    const ca = valuesWith(COMPASS, RUNNER_CA);
    for (const format of ["text", "json"]) {
      const node = runCli(["diff", COMPASS, ca, "--format", format]);
      expect(node.out).toContain("TLS trust breaks until both sides follow");
      expect(runProcess(BUN, [join(ROOT, "dist", "rigging.mjs"), "diff", COMPASS, ca, "--format", format])).toEqual(node);
    }
    const json = JSON.parse(runCli(["diff", state, COMPASS, "--format", "json"]).out);
    expect(json.changes[0]).toMatchObject({
      object: "apps/DaemonSet compass-runner/compass-runner",
      change: "changed",
      fields: [{ path: "spec.template.spec.terminationGracePeriodSeconds", old: 30, new: 720 }],
    });
  });
});

describe("render -o over an earlier output: the same summary on stderr", () => {
  it("none for a first render; no change, then the consequences of a changed Runner", () => {
    const dir = join(tempDir(), "out");
    const first = runInProcess(["render", RUNNER, "-o", dir, "--quiet"]);
    expect(first.err).not.toContain("changes against the earlier output");
    expect(runInProcess(["render", RUNNER, "-o", dir, "--quiet"]).err).toContain("\nchanges against the earlier output: no change\n");
    const values = readFileSync(join(ROOT, RUNNER), "utf8");
    const changed = tempFile(values.replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 7200"), "compass-runner.yaml");
    expect(readFileSync(changed, "utf8")).not.toBe(values);
    const r = runInProcess(["render", changed, "-o", dir, "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.err.split("\n").at(-2)).toBe(
      "changes against the earlier output: 1 changed, 0 added, 0 removed: Runner restarts; enrollment breaks until both sides follow",
    );
  });
});
