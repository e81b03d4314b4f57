// `rigging check` on inputs of every shape: directories, stdin, JSON, List
// objects, mixed profiles, and hostile or broken input.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { ROOT, runCli, runInProcess } from "../support/cli.ts";
import { generatedFile } from "../support/corpus.ts";

const RUNNER = join(ROOT, "test", "fixtures", "check", "compass-runner");
const VALID = join(RUNNER, "valid.yaml");
const validText = readFileSync(VALID, "utf8");
const validObjects = () => parseAllDocuments(validText).map((d) => d.toJS());

function temp(): string {
  return mkdtempSync(join(tmpdir(), "rigging-check-"));
}

function json(args: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const r = runInProcess(["check", "--format", "json", ...args]);
  return { code: r.code, findings: r.code === 2 ? [] : JSON.parse(r.out), err: r.err };
}

describe("inputs", () => {
  it("reads a directory recursively, sorted, skipping other files, and survives a symlink loop", () => {
    const dir = temp();
    mkdirSync(join(dir, "b"));
    mkdirSync(join(dir, "a"));
    writeFileSync(join(dir, "b", "x.yaml"), readFileSync(join(RUNNER, "broken", "CR-09.yaml")));
    writeFileSync(join(dir, "a", "y.yml"), readFileSync(generatedFile("compass-runner", "G-05.yaml")));
    writeFileSync(join(dir, "a", "notes.txt"), "not a manifest: {");
    symlinkSync("..", join(dir, "a", "loop"));
    const { code, findings } = json([dir]);
    expect(code).toBe(1);
    // a/ before b/; each file's findings in its own file. Both sets share
    // names, so CR-01 sees two DaemonSets: the set is checked as a whole.
    const files = [...new Set(findings.map((f) => f.file))];
    expect(files).toEqual([join(dir, "a", "y.yml"), join(dir, "b", "x.yaml")]);
    expect(findings.filter((f) => f.ruleId === "G-05").map((f) => f.file)).toEqual([join(dir, "a", "y.yml")]);
    expect(findings.filter((f) => f.ruleId === "CR-09").map((f) => f.file)).toEqual([join(dir, "b", "x.yaml")]);
  });

  it("reads JSON, a v1 List with items, and points into the items", () => {
    const dir = temp();
    const objects = validObjects();
    const ds = objects.find((o) => o.kind === "DaemonSet");
    ds.spec.template.spec.hostUsers = true;
    const list = { apiVersion: "v1", kind: "List", items: objects };
    writeFileSync(join(dir, "list.json"), JSON.stringify(list, null, 2));
    writeFileSync(join(dir, "list.yaml"), stringify(list));
    for (const file of ["list.json", "list.yaml"]) {
      const text = readFileSync(join(dir, file), "utf8").split("\n");
      const { code, findings } = json([join(dir, file)]);
      expect(code).toBe(1);
      expect(findings.map((f) => f.ruleId)).toEqual(["CR-09"]);
      expect(text[findings[0].line! - 1]).toMatch(/"?hostUsers"?: true/);
    }
  });

  it("reports an object in its own file when the set spans several files", () => {
    const dir = temp();
    validObjects().forEach((o, i) => writeFileSync(join(dir, `${String(i).padStart(2, "0")}-${o.kind.toLowerCase()}.yaml`), stringify(o)));
    expect(json([dir]).findings).toEqual([]);
  });
});

describe("profiles", () => {
  const rootpilot = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "rp", namespace: "rp", labels: { "app.kubernetes.io/name": "rootpilot-runner" } },
    spec: {
      selector: { matchLabels: { app: "rp" } },
      template: { metadata: { labels: { app: "rp" } }, spec: { containers: [{ name: "runner", image: "example/rootpilot:latest" }] } },
    },
  };

  it("checks one file mixing profiles per profile", () => {
    const dir = temp();
    writeFileSync(join(dir, "mixed.yaml"), `${validText}\n---\n${stringify(rootpilot)}`);
    const { findings } = json([join(dir, "mixed.yaml")]);
    // Only general rules can fire on the Rootpilot object; no Runner rule does.
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.object.kind).toBe("Deployment");
      expect(f.ruleId).toMatch(/^(G|RP)-/);
    }
    expect(findings.map((f) => f.ruleId)).toContain("G-05");
  });

  it("recognises an unlabelled Runner by its shape, and the objects around it", () => {
    const dir = temp();
    const objects = validObjects().map((o) => {
      delete o.metadata.labels["app.kubernetes.io/name"];
      return o;
    });
    writeFileSync(join(dir, "unlabelled.yaml"), objects.map((o) => stringify(o)).join("---\n"));
    const { findings, err } = json([join(dir, "unlabelled.yaml")]);
    expect(err).not.toMatch(/not recognised/);
    // Every object was placed with the Runner: G-07 names each one.
    expect(findings.map((f) => f.ruleId)).toEqual(Array(objects.length).fill("G-07"));
  });

  it("says which objects no profile claims, and --profile checks them", () => {
    const dir = temp();
    const stray = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "stray", namespace: "elsewhere" }, data: { a: "b" } };
    writeFileSync(join(dir, "stray.yaml"), stringify(stray));
    const plain = runInProcess(["check", join(dir, "stray.yaml")]);
    expect(plain.code).toBe(0);
    expect(plain.err).toMatch(/stray\.yaml:1 ConfigMap\/elsewhere\/stray: not recognised as any profile.*skipped/);
    const forced = json(["--profile", "compass-runner", join(dir, "stray.yaml")]);
    expect(forced.code).toBe(1);
    expect(forced.findings.map((f) => f.ruleId)).toContain("G-07");
  });

  it("refuses an unknown profile and format", () => {
    expect(runInProcess(["check", "--profile", "nope", VALID]).code).toBe(2);
    expect(runInProcess(["check", "--format", "xml", VALID]).code).toBe(2);
    expect(runInProcess(["check"]).code).toBe(2);
  });
});

describe("bad input ends in a clear exit 2", () => {
  const write = (name: string, content: string | Buffer) => {
    const file = join(temp(), name);
    writeFileSync(file, content);
    return file;
  };

  it.each([
    ["a document without apiVersion and kind", "hello: world\n", /document 1 is not a Kubernetes object: no apiVersion and kind/],
    ["a values file", "kind: CompassRunner\nimage: x\n", /no apiVersion \(a values file\? rigging render reads those\)/],
    ["a scalar document", "just text\n", /not a Kubernetes object: expected a mapping/],
    ["invalid YAML", "a: [1, 2\n", /not valid YAML/],
    ["a duplicate key", "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: x}\n", /not valid YAML/],
    ["binary", Buffer.from([0x61, 0x00, 0x62]), /binary file/],
    ["metadata of the wrong type", "apiVersion: v1\nkind: ConfigMap\nmetadata: nope\n", /metadata is not a mapping/],
  ])("%s", (_what, content, message) => {
    const file = write("bad.yaml", content);
    const r = runInProcess(["check", file]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(message);
    expect(r.err).toContain(file);
  });

  it("a field of the wrong type is the schema's error; the rules it stops are named not judged", () => {
    const objects = validObjects();
    objects.find((o) => o.kind === "DaemonSet").spec.template.spec.containers[0].env = "COMPASS_SERVER_ADDR=https://x";
    const r = runInProcess(["check", write("wrong.yaml", objects.map((o) => stringify(o)).join("---\n"))]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^error .*wrong\.yaml:\d+ {2}schema {2}.*spec\.template\.spec\.containers\[0\]\.env {2}expected a list/m);
    expect(r.err).toMatch(
      /skipped CR-\d+\w* \(compass-runner\): not judged from manifests: the compass-runner objects hold a value the Kubernetes schema refuses/,
    );
    expect(r.err).not.toMatch(/could not read/);
    const junit = runInProcess(["check", "--format", "junit", write("wrong.yaml", objects.map((o) => stringify(o)).join("---\n"))]).out;
    expect(junit).toMatch(/name="CR-\d+\w*: [^"]*"><skipped message="not judged from manifests: the compass-runner objects hold/);
  });

  it("a missing file", () => {
    const r = runInProcess(["check", join(temp(), "missing.yaml")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/missing\.yaml: cannot read: no such file/);
  });

  it("a huge file is refused before it is parsed", () => {
    const file = write("huge.yaml", Buffer.alloc(LIMITS.fileBytes + 1, "a"));
    const r = runInProcess(["check", file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/over the 8 MiB \(\d+-byte\) limit/);
  });

  describe("a billion-laughs alias bomb", () => {
    const levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n${levels.join("\n")}\n`;

    it("ends with exit 2 at the alias limit (built CLI, from stdin)", () => {
      // Expansion would take minutes and gigabytes and run into the test timeout.
      const r = runCli(["check", "-"], bomb);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/<stdin>: .*alias/i);
    });
  });
});
