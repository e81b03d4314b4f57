// `rigging check DIR` where DIR holds a kustomization: built with the real
// kustomize, findings named in the files kustomize read (origin annotations),
// and a note when no kustomize is on PATH.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runCli, tempDir } from "../support/cli.ts";

const hasKubectl = spawnSync("kubectl", ["version", "--client"]).status === 0;
const CR09 = readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml"), "utf8");

function overlay(): { base: string; overlay: string } {
  const dir = tempDir();
  // A repository: the tree its kustomizations may read.
  mkdirSync(join(dir, ".git"));
  const base = join(dir, "base");
  const top = join(dir, "overlays", "prod");
  mkdirSync(base, { recursive: true });
  mkdirSync(top, { recursive: true });
  writeFileSync(join(base, "runner.yaml"), CR09);
  writeFileSync(join(base, "kustomization.yaml"), "resources:\n  - runner.yaml\n");
  writeFileSync(join(top, "kustomization.yaml"), "resources:\n  - ../../base\n");
  return { base, overlay: top };
}

describe.skipIf(!hasKubectl)("check KUSTOMIZATION-DIR builds it", () => {
  it("names the base file kustomize read, at the field's line", () => {
    const { base, overlay: dir } = overlay();
    const r = runCli(["check", "--format", "json", dir]);
    expect(r.code, r.err).toBe(1);
    const findings = JSON.parse(r.out) as CheckFinding[];
    expect(findings.map((f) => f.ruleId)).toEqual(["CR-09"]);
    const [f] = findings;
    expect(f.file).toBe(join(base, "runner.yaml"));
    expect(readFileSync(f.file, "utf8").split("\n")[f.line! - 1].trim()).toBe("hostUsers: true");
    expect(f.input?.file).toBe(`${dir} (kubectl kustomize)`);
  });

  it("a kustomization kustomize refuses is an input problem naming the directory", () => {
    const { overlay: dir } = overlay();
    writeFileSync(join(dir, "kustomization.yaml"), "resources:\n  - ../../base\nnamePrefixx: a-\n");
    const r = runCli(["check", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${dir}: kubectl kustomize failed`);
  });

  it("a base that is not there is an error at its line, before kustomize runs", () => {
    const { overlay: dir } = overlay();
    writeFileSync(join(dir, "kustomization.yaml"), "resources:\n  - ../../missing\n");
    const r = runCli(["check", "--format", "json", dir]);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as CheckFinding[]).map((f) => [f.file, f.line, f.message])).toEqual([
      [join(dir, "kustomization.yaml"), 2, '"../../missing" names no file or directory in the tree'],
    ]);
  });

  it("without a repository around it, the tree is the kustomization's own directory", () => {
    const { base, overlay: dir } = overlay();
    rmSync(join(base, "..", ".git"), { recursive: true });
    const r = runCli(["check", "--format", "json", dir]);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as CheckFinding[]).map((f) => f.message)).toEqual([`"../../base" leaves the checked tree ${realpathSync(dir)}`]);
  });
});

describe("without kubectl or kustomize on PATH", () => {
  it("says the directory was not built and reads its files one by one", () => {
    const { base } = overlay();
    const r = runCli(["check", "--format", "json", base], undefined, { PATH: "/nonexistent" });
    expect(r.err).toContain(`${base}: a kustomization, not built (neither kubectl nor kustomize is on PATH)`);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as CheckFinding[]).map((f) => [f.ruleId, f.file])).toEqual([["CR-09", join(base, "runner.yaml")]]);
  });
});
