// `check` reads what other tools print: render's own output for every
// example, and `kubectl kustomize DIR` over a rendered directory.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { ROOT, runCli, tempFile } from "../support/cli.ts";

const examples = readdirSync(join(ROOT, "examples"))
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();

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
  // The same directory, named directly: built with kubectl kustomize, as above.
  const direct = runCli(["check", dir]);
  expect(direct.code, direct.err).toBe(0);
  expect(direct.err).not.toMatch(/not recognised/);
});

describe("several installations of one profile in one stream", () => {
  // A second Runner: its own name, namespace and node, rendered by rigging.
  const east = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8")
    .replace(/^name: compass-runner$/m, "name: east")
    .replace(/^namespace: compass-runner$/m, "namespace: east")
    .replace(/^ {2}namespace: compass-runner$/m, "  namespace: east")
    .replace("kvm-node-1", "kvm-node-2");
  const render = (file: string) => {
    const r = runCli(["render", "--quiet", file]);
    expect(r.code, r.err).toBe(0);
    return r.out;
  };
  const both = () => render(join(ROOT, "examples/compass-runner.yaml")) + render(tempFile(east, "east.yaml"));

  it("are judged one installation at a time (by app.kubernetes.io/instance): two Runners are not one set with two DaemonSets", () => {
    const checked = runCli(["check", "-"], both());
    expect(checked.out).toBe("");
    expect(checked.code, checked.err).toBe(0);
  });

  it("so what one installation lacks is reported against it alone", () => {
    const objects = parseAllDocuments(both()).map((d) => d.toJS());
    const broken = objects.filter((o) => !(o.kind === "NetworkPolicy" && o.metadata.namespace === "east"));
    const checked = runCli(["check", "-"], broken.map((o) => `---\n${stringify(o)}`).join(""));
    expect(checked.code).toBe(1);
    const findings = checked.out.split("\n\nfix:\n")[0].trim().split("\n");
    expect(findings).toEqual([expect.stringMatching(/^error {4}<stdin>:\d+ {2}CR-01 {2}DaemonSet\/east\/east {2}- {2}the Runner set has no NetworkPolicy$/)]);
  });

  it("stay one set when an object lacks the instance label, as hand-written manifests may", () => {
    const objects = parseAllDocuments(both()).map((d) => d.toJS());
    delete objects.find((o) => o.kind === "ServiceAccount").metadata.labels["app.kubernetes.io/instance"];
    const checked = runCli(["check", "-"], objects.map((o) => `---\n${stringify(o)}`).join(""));
    expect(checked.out).toMatch(/CR-01 {2}DaemonSet\/\S+ {2}- {2}more than one Runner DaemonSet/);
  });
});
