// `rigging check DIR` over a GitOps repository (test/fixtures/gitops): every
// kustomization root it walks into is built with the real kustomize, findings
// name the patch or base line that put the value there, a base reached by two
// overlays is reported once, and a broken kustomization is a finding at its file.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runCli, runInProcessAsync, tempDir } from "../support/cli.ts";

const hasKubectl = spawnSync("kubectl", ["version", "--client"]).status === 0;
const FIXTURE = join(ROOT, "test", "fixtures", "gitops");

const lineOf = (f: { file: string; line?: number }) => readFileSync(f.file, "utf8").split("\n")[(f.line ?? 1) - 1].trim();

async function check(args: string[]) {
  const r = await runInProcessAsync(["check", "--format", "json", ...args]);
  return { ...r, findings: r.code === 2 ? [] : (JSON.parse(r.out) as CheckFinding[]).filter((f) => (f.severity as string) !== "skipped") };
}

/** The fixture copied into a repository of its own (a .git marks the tree kustomize may read). */
function repository(): string {
  const dir = join(tempDir(), "gitops");
  cpSync(FIXTURE, dir, { recursive: true });
  mkdirSync(join(dir, ".git"));
  return dir;
}

describe.skipIf(!hasKubectl)("check DIR builds every kustomization root it walks into", () => {
  const dir = repository();
  const prod = join(dir, "rootpilot", "overlays", "prod", "probe.yaml");
  const base = join(dir, "rootpilot", "base", "rootpilot.yaml");
  let run: Awaited<ReturnType<typeof check>>;
  beforeAll(async () => {
    run = await check([dir]);
  });

  it("exits 1 for the prod overlay's patch, at the patch file's lines", () => {
    expect(run.code, run.err).toBe(1);
    const errors = run.findings.filter((f) => f.severity === "error");
    // A mapping's place is its first line: the probe's httpGet starts at `path:`.
    expect(errors.map((f) => [f.ruleId, f.file, lineOf(f), f.object.name])).toEqual([
      ["RP-02", prod, "path: /healthz", "rootpilot-runner-prod"],
      ["RP-03", prod, "terminationGracePeriodSeconds: 30", "rootpilot-runner-prod"],
    ]);
    expect(errors[0].input?.file).toBe(`${join(dir, "rootpilot", "overlays", "prod")} (kubectl kustomize)`);
  });

  it("reports the base's own warning once, though both overlays reach it", async () => {
    const g08 = run.findings.filter((f) => f.ruleId === "G-08");
    expect(g08.map((f) => [f.file, f.message])).toEqual([[base, "no CPU request"]]);
    // Each overlay is built: the staging one alone carries the same warning under its own name.
    const staging = await check([join(dir, "rootpilot", "overlays", "staging")]);
    expect(staging.findings.map((f) => [f.ruleId, f.file, f.object.name])).toEqual([["G-08", base, "rootpilot-runner-staging"]]);
    // Nothing is judged from the base alone: it is no root (both overlays name it).
    expect(run.findings.filter((f) => f.object.name === "rootpilot-runner")).toEqual([]);
  });

  it("still walks the plain manifests and the chart beside the kustomizations", async () => {
    const text = await runInProcessAsync(["check", dir]);
    expect(text.out).toContain(`skipped  ${join(dir, "plain", "nginx.yaml")}:1  unrecognised`);
    expect(text.err).toContain("1 Helm or Go templates");
    // Two overlays of four objects each, and the plain Deployment.
    expect(text.err).toMatch(/in 9 object\(s\) of \d+ file\(s\)/);
  });

  it("gives the same findings in SARIF, as the GitHub Action runs it", () => {
    const sarif = runCli(["check", "--format", "sarif", "--", dir]);
    expect(sarif.code).toBe(1);
    const results = JSON.parse(sarif.out).runs[0].results as {
      ruleId: string;
      level: string;
      locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
    }[];
    const located = results.map((r) => [r.ruleId, r.locations[0].physicalLocation.artifactLocation.uri, r.locations[0].physicalLocation.region.startLine]);
    expect(located).toEqual(run.findings.map((f) => [f.ruleId, expect.stringContaining(f.file.slice(dir.length)), f.line]));
  });
});

describe.skipIf(!hasKubectl)("a broken kustomization is a finding at its file; the rest of the tree is still checked", () => {
  const dir = join(tempDir(), "repo");
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  mkdirSync(join(dir, ".git"), { recursive: true });
  write("cycle/a/kustomization.yaml", "resources:\n  - ../b\n");
  write("cycle/b/kustomization.yaml", "resources:\n  - ../a\n");
  write("missing/kustomization.yaml", "resources:\n  - ../nowhere\n");
  write("refused/kustomization.yaml", "resources:\n  - svc.yaml\nnamePrefixx: a-\n");
  write("refused/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n");
  write("plain/runner.yaml", readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml"), "utf8"));
  write("helm/kustomization.yaml", "resources:\n  - runner.yaml\nhelmCharts:\n  - name: web\n    repo: https://charts.example.com\n");
  write("helm/runner.yaml", readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml"), "utf8"));

  it("names the cycle's reference, the missing base and kustomize's refusal, and judges the plain file", async () => {
    const r = await check([dir]);
    expect(r.code, r.err).toBe(1);
    const input = r.findings.filter((f) => f.ruleId === "input").map((f) => [f.file.slice(dir.length + 1), f.line, f.message]);
    expect(input).toEqual([
      [
        "cycle/b/kustomization.yaml",
        2,
        expect.stringMatching(/^"\.\.\/a" names a kustomization that names this one again .*: a cycle kustomize cannot build$/),
      ],
      ["missing/kustomization.yaml", 2, '"../nowhere" names no file or directory in the tree'],
      ["refused/kustomization.yaml", 1, expect.stringMatching(/refused: kubectl kustomize failed: .*namePrefixx/)],
    ]);
    // One rigging will not build (it runs helm) is no error of the repository: a note, and its files read one by one.
    const cr09 = r.findings.filter((f) => f.ruleId === "CR-09").map((f) => f.file);
    expect(cr09.sort()).toEqual([join(dir, "helm", "runner.yaml"), join(dir, "plain", "runner.yaml")]);
    expect(r.err).toContain(`${join(dir, "helm", "kustomization.yaml")}:3: helmCharts runs helm: not built; its files were read one by one (render the chart`);
  });
});
