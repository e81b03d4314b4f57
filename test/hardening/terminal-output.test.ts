// Output that is safe to print and to pipe: control characters that come
// from inputs (file names, keys, object names, values) are escaped in
// every text message; a reader that goes away ends rigging quietly; and
// input with no Kubernetes objects is not a clean check.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { printable } from "../../src/core/printable.ts";
import { CLI, ROOT, runCli, runInProcess, tempDir } from "../support/cli.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples/rootpilot-eks.yaml"), "utf8");

/** ESC (a CSI sequence that clears the screen), BEL, the C1 CSI, DEL, and a right-to-left override. */
const HOSTILE = "\u001b[2J\u0007\u009b31m\u007f\u202e";
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;
/** The same characters as YAML escapes, inside double quotes. */
const IN_YAML = "\\e[2J\\a\\x9b31m\\x7f\\u202e";

let dir: string;
beforeAll(() => void (dir = tempDir()));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("control characters from inputs are escaped in text output", () => {
  it("printable writes each as an escape and leaves other text alone", () => {
    expect(printable(`a${HOSTILE}b\n\t\r é 日本 \u{1f600}`)).toBe("a\\u001b[2J\\u0007\\u009b31m\\u007f\\u202eb\\n\\t\\r é 日本 \u{1f600}");
  });

  it("render: a file name and a key in a diagnostic", () => {
    const sub = join(dir, `values${HOSTILE}`);
    mkdirSync(sub);
    const file = join(sub, "v.yaml");
    writeFileSync(file, `${EXAMPLE.replace(/^replicas: 3\n/m, "")}\n"k${IN_YAML}": 1\nreplicas: "x${IN_YAML}"\n`);
    const result = runInProcess(["render", file]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e");
    expect(result.err).not.toMatch(RAW);
  });

  it("render: a usage error naming the file", () => {
    const result = runInProcess(["render", join(dir, `missing${HOSTILE}.yaml`)]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("missing\\u001b[2J");
    expect(result.err).not.toMatch(RAW);
  });

  it("check: object names, paths and messages in the text report, and the notes", () => {
    const manifest = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      `metadata: {name: "web${IN_YAML}", namespace: "ns${IN_YAML}", labels: {app.kubernetes.io/name: rootpilot-runner}}`,
      "spec:",
      "  template:",
      "    spec:",
      `      containers: [{name: "c${IN_YAML}", image: "rootpilot${IN_YAML}:latest"}]`,
      "---",
      "apiVersion: v1",
      "kind: ConfigMap",
      `metadata: {name: "other${IN_YAML}"}`,
      "",
    ].join("\n");
    const result = runCli(["check", "-"], manifest);
    expect(result.code).toBe(1);
    expect(result.out).toContain("Deployment/ns\\u001b[2J");
    expect(result.out).not.toMatch(RAW);
    expect(result.err).toContain("ConfigMap/other\\u001b[2J"); // the "not recognised" note
    expect(result.err).not.toMatch(RAW);
  });

  it("render: a fleet's file names", () => {
    const input = join(dir, "fleet");
    mkdirSync(input);
    writeFileSync(join(input, `bad${HOSTILE}.yaml`), EXAMPLE);
    const result = runInProcess(["render", input, "-o", join(dir, "out")]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("bad\\u001b[2J");
    expect(result.err).not.toMatch(RAW);
  });
});

describe("control characters from inputs are escaped in rigging fn's stderr and in the results kpt prints", () => {
  const resourceList = (items: object[], functionConfig?: object) =>
    stringify({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items, ...(functionConfig ? { functionConfig } : {}) });
  /** The text kpt prints of each result: message, field, object. */
  const shownByKpt = (out: string) =>
    (parse(out).results as { message: string; field?: object; resourceRef?: object }[]).map((r) => JSON.stringify([r.field, r.resourceRef]) + r.message);

  it("an item's config.kubernetes.io/path and name in the errors of a check", () => {
    const item = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: `web${HOSTILE}`,
        labels: { "app.kubernetes.io/name": "rootpilot-runner" },
        annotations: { "config.kubernetes.io/path": `dir${HOSTILE}/web.yaml` },
      },
      spec: { template: { spec: { containers: [{ name: "c", image: "rootpilot:latest" }] } } },
    };
    const result = runCli(["fn"], resourceList([item]));
    expect(result.code).toBe(1);
    expect(result.err).toContain("error dir\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e/web.yaml: ");
    expect(result.err).not.toMatch(RAW);
    for (const shown of shownByKpt(result.out)) expect(shown).not.toMatch(RAW);
  });

  it("a values error of the functionConfig, its key and value", () => {
    const values = { ...parse(EXAMPLE), apiVersion: "rigging.dev/v1alpha1", metadata: { name: "runner" }, replicas: `x${HOSTILE}`, [`k${HOSTILE}`]: 1 };
    const result = runCli(["fn"], resourceList([], values));
    expect(result.code).toBe(1);
    expect(result.err).toContain("\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e");
    expect(result.err).not.toMatch(RAW);
    expect(result.out).toContain("replicas");
    for (const shown of shownByKpt(result.out)) expect(shown).not.toMatch(RAW);
  });
});

describe("control characters from inputs are escaped in the other commands' text", () => {
  it("render DIR to one stream: the directory's name in a refusal", () => {
    const input = join(dir, `stream${HOSTILE}`);
    mkdirSync(input);
    writeFileSync(join(input, "bad.yaml"), EXAMPLE.replace(/^replicas: .*$/m, "replicas: x"));
    const result = runInProcess(["render", input]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("stream\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e/bad.yaml: 1 error(s); not rendered");
    expect(result.err).toContain("stream\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e: not every values file rendered");
    expect(result.err).not.toMatch(RAW);
  });

  it("preflight and pin escape with the one escaper, bidirectional controls included", () => {
    const result = runInProcess(["preflight", "tls", "--server-name", `a${HOSTILE}`]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--server-name "a\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e"');
    expect(result.err).not.toMatch(RAW);
  });

  it("a quoted argument is escaped once, not its escapes escaped again", () => {
    const result = runInProcess(["preflight", `p${HOSTILE}`]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('not "p\\u001b[2J\\u0007\\u009b31m\\u007f\\u202e"');
    expect(result.err).not.toMatch(RAW);
  });
});

describe("a reader that goes away", () => {
  it("ends the process quietly, with its own exit code and no stack", async () => {
    for (const args of [["render", "examples/rootpilot-eks.yaml", "-q"], ["explain"], ["schema", "CompassServer"]]) {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      // Close the reading end before the child writes anything: its first write fails with EPIPE.
      child.stdout.destroy();
      let err = "";
      child.stderr.on("data", (chunk) => (err += chunk));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(err, args.join(" ")).not.toMatch(/EPIPE|Unhandled| {4}at |internal error/);
      expect(code, `${args.join(" ")}: ${err}`).toBe(0);
    }
  });
});

describe("check with no Kubernetes objects", () => {
  it.each([
    ["an empty stream", ""],
    ["only comments", "# kubectl kustomize failed before printing anything\n"],
    ["only blank lines", "\n  \n\n"],
  ])("%s on stdin is a usage error (exit 2), not a clean check", (_, input) => {
    const result = runCli(["check", "-"], input);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain("error no Kubernetes objects in <stdin>");
  });

  it("names the files given", () => {
    const a = join(dir, "empty-a.yaml");
    const b = join(dir, "empty-b.yaml");
    writeFileSync(a, "");
    writeFileSync(b, "# nothing\n");
    const result = runInProcess(["check", a, b]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`no Kubernetes objects in ${a}, ${b}`);
  });
});
