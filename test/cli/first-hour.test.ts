// What a user meets in the first hour: help about help, a misspelt kind,
// and SARIF messages of a finding about a whole object.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";

describe("the first hour", () => {
  it.each([["--help"], ["-h"]])("rigging help %s prints the overview (exit 0)", (flag) => {
    const r = runInProcess(["help", flag]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("rigging help [COMMAND]");
    expect(r.err).toBe("");
  });

  it("rigging init compassrunner offers the kind it is near", () => {
    const r = runInProcess(["init", "compassrunner"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown kind "compassrunner"');
    expect(r.err).toContain("(did you mean CompassRunner?)");
  });

  it("a SARIF message about a whole object names the object, without a '-' for the field", () => {
    const rendered = runInProcess(["render", join(ROOT, "examples", "compass-runner.yaml")]);
    expect(rendered.code, rendered.err).toBe(0);
    const withoutPolicy = rendered.out
      .split(/^---\n/m)
      .filter((doc) => doc !== "" && !/^kind: NetworkPolicy$/m.test(doc))
      .map((doc) => `---\n${doc}`)
      .join("");
    const r = runInProcess(["check", tempFile(withoutPolicy, "runner.yaml"), "--format", "sarif"]);
    expect(r.code).toBe(1);
    const texts: string[] = JSON.parse(r.out).runs[0].results.map((x: { message: { text: string } }) => x.message.text);
    const whole = texts.find((t) => t.includes("has no NetworkPolicy"));
    expect(whole).toMatch(/^DaemonSet\/compass-runner\/compass-runner: the Runner set has no NetworkPolicy/);
    expect(texts.filter((t) => / -: /.test(t))).toEqual([]);
  });

  it("the example's header says how to render it, and init's says how to render what it printed", () => {
    expect(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8")).toContain("npm run render -- examples/compass-runner.yaml");
    const init = runInProcess(["init", "CompassRunner"]).out;
    expect(init).not.toContain("npm run render");
    expect(init).toContain("# Render:  rigging render values.yaml");
  });
});
