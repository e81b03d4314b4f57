// Piped findings point at real files: the real `kubectl kustomize` with
// buildMetadata: [originAnnotations], the real `kpt fn source`, and a helm
// template stream with its `# Source:` comments (as helm prints them), and
// Helm 4's post-renderer filename annotation.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runCli, runInProcess, tempDir } from "../support/cli.ts";

const RP = join(ROOT, "test", "fixtures", "check", "rootpilot-runner");
const BAD_OTEL = "value: otel-collector.observability.svc:4318";

/** The 1-based line of the only line of `file` that contains `text`. */
function lineOf(file: string, text: string): number {
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) => (line.includes(text) ? [i + 1] : []));
  expect(lines).toHaveLength(1);
  return lines[0];
}

function checkStdin(input: string, ...args: string[]): { code: number; findings: CheckFinding[]; out: string; err: string } {
  const r = runCli(["check", "--format", "json", ...args, "-"], input);
  return { ...r, findings: r.code === 2 ? [] : JSON.parse(r.out) };
}

describe("kubectl kustomize with originAnnotations", () => {
  const dir = tempDir();
  mkdirSync(join(dir, "base"));
  mkdirSync(join(dir, "overlay"));
  copyFileSync(join(RP, "broken", "RP-10.yaml"), join(dir, "base", "runner.yaml"));
  writeFileSync(join(dir, "base", "kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - runner.yaml\n");
  writeFileSync(
    join(dir, "overlay", "kustomization.yaml"),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\nnamePrefix: eu-\nbuildMetadata: [originAnnotations]\n",
  );
  const built = execFileSync("kubectl", ["kustomize", join(dir, "overlay")], { encoding: "utf8" });

  it("the stream carries the origin annotations", () => {
    expect(built).toMatch(/config\.kubernetes\.io\/origin: \|\n\s+path: \.\.\/base\/runner\.yaml/);
  });

  it("findings name the base file and the line there, and where they were read", () => {
    const { code, findings } = checkStdin(built, "--source-root", join(dir, "overlay"));
    expect(code).toBe(1);
    const [f] = findings.filter((x) => x.ruleId === "RP-10");
    const base = join(dir, "base", "runner.yaml");
    expect(f.file).toBe(base);
    expect(f.line).toBe(lineOf(base, BAD_OTEL));
    expect(f.input?.file).toBe("<stdin>");
    expect(built.split("\n")[f.input!.line - 1]).toContain(BAD_OTEL);
  });

  it("text and SARIF name the same file and line", () => {
    const base = join(dir, "base", "runner.yaml");
    const text = runCli(["check", "--source-root", join(dir, "overlay"), "-"], built);
    expect(text.out).toContain(`${base}:${lineOf(base, BAD_OTEL)}  RP-10  Deployment/rootpilot/eu-runner-eu`);
    expect(text.out).toMatch(/\[read at <stdin>:\d+\]/);
    const sarif = JSON.parse(runCli(["check", "--format", "sarif", "--source-root", join(dir, "overlay"), "-"], built).out);
    const result = sarif.runs[0].results.find((r: any) => r.ruleId === "RP-10");
    expect(decodeURIComponent(result.locations[0].physicalLocation.artifactLocation.uri.replace(/^file:\/\//, ""))).toBe(base);
    expect(result.locations[0].physicalLocation.region.startLine).toBe(lineOf(base, BAD_OTEL));
  });

  it("relative to the current directory when run from it, as code scanning wants", () => {
    const rel = relative(ROOT, join(dir, "overlay"));
    const { findings } = checkStdin(built, "--source-root", rel);
    expect(findings.find((x) => x.ruleId === "RP-10")!.file).toBe(join(relative(ROOT, dir), "base", "runner.yaml"));
  });

  it("a value a patch changed is placed at its object in the base file, not at the base's (right) value", () => {
    const patched = tempDir();
    mkdirSync(join(patched, "base"));
    mkdirSync(join(patched, "overlay"));
    copyFileSync(join(RP, "valid.yaml"), join(patched, "base", "runner.yaml"));
    writeFileSync(join(patched, "base", "kustomization.yaml"), "resources:\n  - runner.yaml\n");
    writeFileSync(
      join(patched, "overlay", "kustomization.yaml"),
      "resources:\n  - ../base\nbuildMetadata: [originAnnotations]\npatches:\n  - target: {kind: Deployment}\n    patch: |\n      - op: replace\n        path: /spec/template/spec/terminationGracePeriodSeconds\n        value: 30\n",
    );
    const out = execFileSync("kubectl", ["kustomize", join(patched, "overlay")], { encoding: "utf8" });
    const [f] = checkStdin(out, "--source-root", join(patched, "overlay")).findings.filter((x) => x.ruleId === "RP-03");
    const base = join(patched, "base", "runner.yaml");
    expect(f.file).toBe(base);
    expect(f.line).toBe(lineOf(base, "kind: Deployment") - 1);
  });

  it("with transformerAnnotations too, a value a patch set is placed at the patch: a file, or an inline patch's entry", () => {
    const patched = tempDir();
    mkdirSync(join(patched, "base"));
    mkdirSync(join(patched, "overlay"));
    copyFileSync(join(RP, "valid.yaml"), join(patched, "base", "runner.yaml"));
    writeFileSync(join(patched, "base", "kustomization.yaml"), "resources:\n  - runner.yaml\n");
    const ops = "- op: add\n  path: /spec/template/spec/containers/0/ports\n  value:\n    - containerPort: 8080\n";
    writeFileSync(join(patched, "overlay", "ports.yaml"), ops);
    writeFileSync(
      join(patched, "overlay", "kustomization.yaml"),
      "resources:\n  - ../base\nbuildMetadata: [originAnnotations, transformerAnnotations]\npatches:\n  - target: {kind: Deployment}\n    path: ports.yaml\n  - target: {kind: Deployment}\n    patch: |\n      - op: replace\n        path: /spec/template/spec/terminationGracePeriodSeconds\n        value: 30\n",
    );
    const out = execFileSync("kubectl", ["kustomize", join(patched, "overlay")], { encoding: "utf8" });
    const findings = checkStdin(out, "--source-root", join(patched, "overlay")).findings;
    const [grace] = findings.filter((x) => x.ruleId === "RP-03");
    expect([grace.file, grace.line]).toEqual([join(patched, "overlay", "kustomization.yaml"), 8]);
    const [port] = findings.filter((x) => x.ruleId === "RP-02");
    expect(port.file).toBe(join(patched, "overlay", "ports.yaml"));
    expect(readFileSync(port.file, "utf8").split("\n")[port.line! - 1]).toContain("containerPort: 8080");
  });
});

describe("kpt fn source (config.kubernetes.io/path and index)", () => {
  it("names the file and the line in it", () => {
    const dir = tempDir();
    copyFileSync(join(RP, "broken", "RP-10.yaml"), join(dir, "runner.yaml"));
    writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: runner\n");
    const stream = execFileSync("kpt", ["fn", "source", dir], { encoding: "utf8" });
    expect(stream).toMatch(/kind: ResourceList/);
    const { findings } = checkStdin(stream, "--profile", "rootpilot-runner", "--source-root", dir);
    const [f] = findings.filter((x) => x.ruleId === "RP-10");
    expect(f.file).toBe(join(dir, "runner.yaml"));
    expect(f.line).toBe(lineOf(join(dir, "runner.yaml"), BAD_OTEL));
  });
});

describe("helm template's # Source: comments", () => {
  const body = readFileSync(join(RP, "broken", "RP-10.yaml"), "utf8").replace(/^#.*\n/gm, "");
  const documents = body.split(/^---\n/m);
  const names = ["namespace.yaml", "serviceaccount.yaml", "deployment.yaml", "networkpolicy.yaml"];
  const stream = documents.map((doc, i) => `---\n# Source: rootpilot/templates/${names[i]}\n${doc}`).join("");

  it("name the template file; its line is unknown when the template is not plain YAML", () => {
    const root = tempDir();
    mkdirSync(join(root, "rootpilot", "templates"), { recursive: true });
    writeFileSync(
      join(root, "rootpilot", "templates", "deployment.yaml"),
      "{{- if .Values.enabled }}\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n",
    );
    const { findings } = checkStdin(stream, "--source-root", root);
    const [f] = findings.filter((x) => x.ruleId === "RP-10");
    expect(f.file).toBe(join(root, "rootpilot", "templates", "deployment.yaml"));
    expect(f.line).toBeUndefined();
    expect(stream.split("\n")[f.input!.line - 1]).toContain(BAD_OTEL);
    const text = runCli(["check", "--source-root", root, "-"], stream).out;
    expect(text).toContain(`${join(root, "rootpilot", "templates", "deployment.yaml")}  RP-10  `);
    const sarif = JSON.parse(runCli(["check", "--format", "sarif", "--source-root", root, "-"], stream).out);
    expect(sarif.runs[0].results.find((r: any) => r.ruleId === "RP-10").locations[0].physicalLocation.region).toEqual({ startLine: 1 });
  });

  it("name the file relative to the current directory by default", () => {
    const { findings } = checkStdin(stream);
    expect(findings.find((x) => x.ruleId === "RP-10")!.file).toBe(join("rootpilot", "templates", "deployment.yaml"));
  });
});

describe("Helm 4's postrenderer.helm.sh/postrender-filename annotation (what its post-renderer reads)", () => {
  const docs = parseAllDocuments(readFileSync(join(RP, "broken", "RP-10.yaml"), "utf8"));
  for (const doc of docs) doc.setIn(["metadata", "annotations", "postrenderer.helm.sh/postrender-filename"], "rootpilot/templates/all.yaml");
  const stream = docs.map((doc) => doc.toString()).join("---\n");

  it("names the template file, and the line in it when the template is plain YAML", () => {
    const root = tempDir();
    mkdirSync(join(root, "rootpilot", "templates"), { recursive: true });
    const template = join(root, "rootpilot", "templates", "all.yaml");
    copyFileSync(join(RP, "broken", "RP-10.yaml"), template);
    const [f] = checkStdin(stream, "--source-root", root).findings.filter((x) => x.ruleId === "RP-10");
    expect([f.file, f.line]).toEqual([template, lineOf(template, BAD_OTEL)]);
    expect(stream.split("\n")[f.input!.line - 1]).toContain(BAD_OTEL);
  });
});

describe("without origins, the input file is named", () => {
  it("a plain file", () => {
    const file = join(RP, "broken", "RP-10.yaml");
    const [f] = JSON.parse(runInProcess(["check", "--format", "json", file]).out);
    expect([f.file, f.line, f.input]).toEqual([file, lineOf(file, BAD_OTEL), undefined]);
  });
});

describe("an annotation in a repository naming a file outside it", () => {
  it("is not followed: the finding stays in the file that holds the object", () => {
    const outside = join(tempDir(), "elsewhere.yaml");
    copyFileSync(join(RP, "broken", "RP-10.yaml"), outside);
    const repo = tempDir();
    mkdirSync(join(repo, ".git"));
    const text = readFileSync(join(RP, "broken", "RP-10.yaml"), "utf8").replace(
      /^(kind: Deployment\nmetadata:\n)/m,
      `$1  annotations:\n    config.kubernetes.io/path: ${JSON.stringify(outside)}\n`,
    );
    expect(text).toContain(outside);
    writeFileSync(join(repo, "runner.yaml"), text);
    const r = runCli(["check", "--format", "json", repo]);
    const [f] = (JSON.parse(r.out) as CheckFinding[]).filter((x) => x.ruleId === "RP-10");
    expect(f.file).not.toBe(outside);
    // Inside the tree, the same annotation is followed.
    copyFileSync(outside, join(repo, "elsewhere.yaml"));
    writeFileSync(join(repo, "runner.yaml"), text.replace(JSON.stringify(outside), JSON.stringify(join(repo, "elsewhere.yaml"))));
    const inside = (JSON.parse(runCli(["check", "--format", "json", join(repo, "runner.yaml")]).out) as CheckFinding[]).find((x) => x.ruleId === "RP-10")!;
    expect(inside.file).toBe(join(repo, "elsewhere.yaml"));
  });
});
