// Streams that hold no object, objects without kind, kinds nobody knows,
// Lists of Lists and huge streams: a finding, a note or a clear exit 2,
// never a crash.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCli, runInProcess, tempFile } from "../support/cli.ts";

describe("an empty stream exits 2: no Kubernetes objects in INPUT", () => {
  it.each([
    ["nothing", ""],
    ["only comments", "# nothing here\n"],
    ["only document markers", "---\n---\n...\n"],
    ["an empty List", "apiVersion: v1\nkind: List\nitems: []\n"],
  ])("%s, from stdin", (_what, input) => {
    const r = runCli(["check", "-"], input);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain("no Kubernetes objects in <stdin>");
  });

  it("an empty file names the file", () => {
    const file = tempFile("", "empty.yaml");
    const r = runInProcess(["check", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`no Kubernetes objects in ${file}`);
  });

  it("a kustomization.yaml alone (configures a build, holds no object)", () => {
    const file = tempFile("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n", "kustomization.yaml");
    expect(runInProcess(["check", file]).code).toBe(2);
  });
});

describe("odd objects", () => {
  it("an object without kind is an exit 2 naming its place, as kubectl refuses it", () => {
    const r = runInProcess(["check", tempFile("apiVersion: v1\nmetadata: {name: x}\n", "nokind.yaml")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nokind\.yaml:1: document 1 is not a Kubernetes object: no kind/);
  });

  it("an unknown kind is noted as not recognised, and the run exits 0", () => {
    const r = runInProcess(["check", tempFile("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n", "widget.yaml")]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/widget\.yaml:1 Widget\/w: not recognised as any profile/);
  });

  it("a List inside a List is an exit 2, as kubectl does not open it", () => {
    const nested = {
      apiVersion: "v1",
      kind: "List",
      items: [{ apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inner" } }] }],
    };
    const r = runInProcess(["check", tempFile(stringify(nested), "nested.yaml")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/nested\.yaml:4: document 1, items\[0\] is a List inside a List; kubectl does not open nested lists/);
  });

  it("items that are not objects are reported by index", () => {
    const r = runInProcess([
      "check",
      tempFile("apiVersion: v1\nkind: List\nitems: [3, {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n", "items.yaml"),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/items\[0\] is not a Kubernetes object/);
  });
});

describe("a huge stream", () => {
  it("10,000 small objects of no profile are read and noted, not a crash", () => {
    // Namespace ns, not n: YAML 1.1 reads n as false, which the schema refuses (a string).
    const doc = (i: number) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}, namespace: ns}\ndata: {k: v}\n`;
    const text = Array.from({ length: 10_000 }, (_, i) => doc(i)).join("");
    const r = runCli(["check", "--format", "json", "-"], text);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([]);
    expect(r.err.match(/not recognised/g)).toHaveLength(10_000);
  });
});

describe("hostile annotations and comments are read in linear time", () => {
  it("a 4 MiB `# Source:` line of spaces, a 4 MiB origin annotation and a huge waiver end quickly and cleanly", () => {
    const pad = " ".repeat(4 * 1024 * 1024);
    const text = `---\n# Source: x${pad}y\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/origin: "path: ${"a".repeat(1024 * 1024)}"\n    rigging.dev/waive: "${"G-07 ".repeat(100_000)}: r"\n`;
    const r = runInProcess(["check", "--profile", "rootpilot-runner", "--format", "json", tempFile(text, "hostile.yaml")]);
    expect(r.code).toBe(1);
    const findings = JSON.parse(r.out);
    expect(findings.find((f: any) => f.ruleId === "waiver").message).toMatch(/over the limit of 4096/);
  });
});
