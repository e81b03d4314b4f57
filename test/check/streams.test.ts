// `check` reads what other tools print: render's own output for every
// example, and `kubectl kustomize DIR` over a rendered directory.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../support/cli.ts";

const examples = readdirSync(join(ROOT, "examples")).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();



describe.each(examples)("render examples/%s | check -", (example) => {
  it("has zero findings", () => {
    const rendered = runCli(["render", "--quiet", join("examples", example)]);
    expect(rendered.code, rendered.err).toBe(0);
    const checked = runCli(["check", "-"], rendered.out);
    expect(checked.out).toBe("");
    expect(checked.err).not.toMatch(/not recognised/);
    expect(checked.code, checked.err).toBe(0);
  });
});

it("kubectl kustomize DIR | rigging check - exits 0", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "rigging-kustomize-")), "out");
  const rendered = runCli(["render", "--quiet", "-o", dir, "examples/compass-runner.yaml"]);
  expect(rendered.code, rendered.err).toBe(0);
  const built = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
  expect(built).toMatch(/kind: DaemonSet/);
  const checked = runCli(["check", "-"], built);
  expect(checked.out).toBe("");
  expect(checked.code, checked.err).toBe(0);
  // The same directory, read directly: kustomization.yaml configures a build
  // and is passed over without a word.
  const direct = runCli(["check", dir]);
  expect(direct.code, direct.err).toBe(0);
  expect(direct.err).not.toMatch(/not recognised/);
});
