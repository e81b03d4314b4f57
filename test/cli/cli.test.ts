// The command contract: exit codes, streams, determinism across runtimes,
// directory output that kubectl kustomize reads back, init and schema.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { BUN, CLI, ROOT, runCli, runInProcess, runProcess, tempDir, tempFile } from "../support/cli.ts";

const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .map((f) => `examples/${f}`);
const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS());

describe("render output is deterministic (G-02)", () => {
  it.each(EXAMPLES)("%s: two Node renders, and Bun, print identical bytes", (example) => {
    const first = runCli(["render", example]);
    const second = runCli(["render", example]);
    const bun = runProcess(BUN, [join(ROOT, "src/cli/main.ts"), "render", example]);
    expect(first.code).toBe(0);
    expect(first.out.length).toBeGreaterThan(1000);
    expect(second.out).toBe(first.out);
    expect(bun.code).toBe(0);
    expect(bun.out).toBe(first.out);
  });

  it("the seed's command `bun run render.ts values.example.json` renders the upstream tool's own example", () => {
    const seed = runProcess(BUN, ["run", "render.ts", "values.example.json"]);
    expect(seed.code).toBe(0);
    expect(readFileSync(join(ROOT, "values.example.json"), "utf8")).toBe(readFileSync(join(ROOT, "test/fixtures/upstream/values.example.json"), "utf8"));
    expect(seed.out).toBe(runCli(["render", "test/fixtures/upstream/values.example.json"]).out);
    expect(seed.out).toContain("kind: DaemonSet");
  });

  it("render.ts runs the Bun build only while it is newer than every source file", () => {
    // A stand-in tree: the real render.ts, a "build" and "sources" that say which ran.
    const root = tempDir();
    mkdirSync(join(root, "src", "cli"), { recursive: true });
    mkdirSync(join(root, "dist", "bun"), { recursive: true });
    writeFileSync(join(root, "render.ts"), readFileSync(join(ROOT, "render.ts")));
    writeFileSync(join(root, "src", "cli", "main.ts"), 'export function main(argv: string[]) { console.log("sources", ...argv); }\n');
    writeFileSync(join(root, "package-lock.json"), "{}\n");
    writeFileSync(join(root, "dist", "bun", "main.js"), 'exports.main = (argv) => console.log("build", ...argv);\n');
    writeFileSync(join(root, "dist", "bun", "main.js.jsc"), "");
    const past = new Date(Date.now() - 60_000);
    for (const path of ["src/cli/main.ts", "src/cli", "src", "package-lock.json"]) utimesSync(join(root, path), past, past);
    const which = (env: Record<string, string> = {}) => runProcess(BUN, ["run", join(root, "render.ts"), "v.yaml"], undefined, env).out.trim();

    expect(which()).toBe("build render v.yaml");
    expect(which({ RIGGING_FROM_SOURCES: "1" })).toBe("sources render v.yaml");
    writeFileSync(join(root, "src", "cli", "main.ts"), 'export function main(argv: string[]) { console.log("edited", ...argv); }\n');
    expect(which()).toBe("edited render v.yaml");
    utimesSync(join(root, "src", "cli", "main.ts"), past, past);
    utimesSync(join(root, "package-lock.json"), new Date(), new Date());
    expect(which()).toBe("edited render v.yaml");
    utimesSync(join(root, "package-lock.json"), past, past);
    rmSync(join(root, "dist", "bun", "main.js.jsc"));
    expect(which()).toBe("edited render v.yaml");
  });
});

describe("render's streams and exit codes", () => {
  it("prints only manifests on stdout and the CR-18 checklist on stderr", () => {
    const r = runCli(["render", "examples/compass-runner.yaml"]);
    expect(docs(r.out).every((o) => typeof o.apiVersion === "string" && typeof o.kind === "string")).toBe(true);
    expect(r.err).toContain("CR-18");
    expect(r.err).toContain("/dev/kvm has mode 0666");
    expect(runCli(["render", "-q", "examples/compass-runner.yaml"]).err).toBe("");
  });

  it("reads a long values file from stdin and from a file alike (many reads)", () => {
    const padding = Array.from({ length: 4000 }, (_, i) => `# padding line ${i}, to take the text past several reads\n`).join("");
    const text = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8") + padding;
    expect(text.length).toBeGreaterThan(200_000);
    const expected = runCli(["render", "examples/compass-runner.yaml"]).out;
    expect(runCli(["render", "-"], text).out).toBe(expected);
    expect(runCli(["render", tempFile(text)]).out).toBe(expected);
  });

  it("reports a collection used as a key as an unknown key, with no runtime warning", () => {
    const r = runCli(["render", tempFile("kind: CompassRunner\n[a]: b\n")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('["[ a ]"]: unknown key (G-01');
    expect(r.err).not.toMatch(/Warning|node:/);
  });

  it("prints a v1 List with --format json", () => {
    const r = runCli(["render", "--format", "json", "examples/compass-runner.yaml"]);
    const list = JSON.parse(r.out);
    expect(list).toMatchObject({ apiVersion: "v1", kind: "List" });
    expect(list.items).toEqual(docs(runCli(["render", "examples/compass-runner.yaml"]).out));
  });

  it("exits 1 with every error on stderr and nothing on stdout for invalid values", () => {
    const text = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8")
      .replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 300")
      .replace("value: kvm-node-1", "value: kvm node");
    const r = runCli(["render", tempFile(text)]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/values\.yaml:\d+:\d+ tokenExpirationSeconds: 300 is below 600 \(CR-03: /);
    expect(r.err).toMatch(/nodeSelector\.value: "kvm node" is not a valid label value \(CR-12: /);
    expect(r.err).toContain("2 error(s); nothing was rendered");
  });

  const BAD: [string, () => string, RegExp][] = [
    ["malformed YAML", () => tempFile("kind: CompassRunner\nimage: [unclosed\n"), /values\.yaml:\d+:\d+ not valid YAML/],
    ["a wrong top-level kind", () => tempFile("kind: CompassRuner\n"), /kind: "CompassRuner" is not a values kind; .*did you mean CompassRunner/],
    ["no kind", () => tempFile("name: x\n"), /no top-level kind/],
    ["an empty file", () => tempFile(""), /is empty/],
    ["a directory without values files", () => tempDir(), /holds no values files/],
    ["a missing file", () => join(tempDir(), "missing.yaml"), /cannot read: no such file/],
    ["a binary file", () => tempFile(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3])), /binary file/],
    ["a YAML list at the top", () => tempFile("- a\n- b\n"), /expected a mapping/],
    ["two documents", () => tempFile("kind: CompassRunner\n---\nkind: CompassRunner\n"), /holds 2 YAML documents/],
    ["a duplicate key", () => tempFile("kind: CompassRunner\nkind: CompassRunner\n"), /not valid YAML: Map keys must be unique/],
  ];
  it.each(BAD)("exits 2 with one clear line for %s", (_what, make, message) => {
    const r = runCli(["render", make()]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it("exits 2 for an unreadable file", () => {
    const file = tempFile("kind: CompassRunner\n");
    chmodSync(file, 0);
    const r = runCli(["render", file]);
    // root reads anything; then the values are simply invalid (exit 1)
    expect([1, 2]).toContain(r.code);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it.each([
    [["render"], /render takes a values file/],
    [["render", "--bogus", "x.yaml"], /unknown option --bogus for rigging render; see rigging render --help/],
    [["render", "--format", "xml", "examples/compass-runner.yaml"], /--format xml: expected yaml or json/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ])("exits 2 for usage error %j", (args, message) => {
    const r = runInProcess(args as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it("has --help for every command and --version", () => {
    for (const command of ["render", "schema", "init"]) {
      const r = runInProcess([command, "--help"]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`^Usage: rigging ${command}`));
    }
    expect(runInProcess(["--version"]).out).toMatch(/^rigging \d+\.\d+\.\d+\n$/);
  });

  it("reads values from stdin with -", () => {
    const r = runCli(["render", "-"], readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8"));
    expect(r.code).toBe(0);
    expect(r.out).toBe(runCli(["render", "examples/compass-runner.yaml"]).out);
  });
});

describe("render -o DIR", () => {
  it.each(
    EXAMPLES,
  )("%s: manifests.yaml, the stdout of a render byte for byte, and a kustomization that kubectl kustomize turns back into the same objects", (example) => {
    const dir = join(tempDir(), "out");
    const r = runCli(["render", example, "-o", dir]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("");
    const stdout = runCli(["render", example]).out;
    expect(readdirSync(dir).sort()).toEqual([".rigging-output", "kustomization.yaml", "manifests.yaml"]);
    expect(readFileSync(join(dir, "manifests.yaml"), "utf8")).toBe(stdout);
    const kustomized = runProcess("kubectl", ["kustomize", dir]);
    expect(kustomized.err).toBe("");
    expect(docs(kustomized.out)).toEqual(docs(stdout));
  });

  it.each(EXAMPLES)("%s --per-object: one file per object and a kustomization that kubectl kustomize turns back into the same objects", (example) => {
    const dir = join(tempDir(), "out");
    const r = runCli(["render", example, "-o", dir, "--per-object"]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("");
    const stream = docs(runCli(["render", example]).out);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(stream.length + 2);
    expect(files).toContain("kustomization.yaml");
    expect(files).toContain(".rigging-output"); // the manifest of the files rigging wrote
    const kustomized = runProcess("kubectl", ["kustomize", dir]);
    expect(kustomized.err).toBe("");
    expect(docs(kustomized.out)).toEqual(stream);
  });

  it("changes nothing in DIR when the values are invalid", () => {
    const dir = join(tempDir(), "out");
    mkdirSync(dir);
    writeFileSync(join(dir, "keep.yaml"), "kept: true\n");
    const bad = tempFile(readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8").replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 1"));
    expect(runCli(["render", bad, "-o", dir]).code).toBe(1);
    expect(readdirSync(dir)).toEqual(["keep.yaml"]);
  });

  // Before, a stale.yaml rigging never wrote was deleted here: that was the
  // data-loss bug. rigging now replaces only its own earlier output.
  it("replaces its own earlier output, in either layout, and refuses a DIR holding a file it did not write", () => {
    const dir = join(tempDir(), "out");
    const renamed = tempFile(readFileSync(join(ROOT, "examples/compass-server.yaml"), "utf8").replace(/^name: compass-server$/m, "name: other"));
    expect(runCli(["render", renamed, "-o", dir, "--per-object"]).code).toBe(0);
    const earlier = readdirSync(dir).filter((f) => f.includes("other"));
    expect(earlier.length).toBeGreaterThan(0);
    expect(runCli(["render", "examples/compass-server.yaml", "-o", dir]).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([".rigging-output", "kustomization.yaml", "manifests.yaml"]);
    expect(runCli(["render", renamed, "-o", dir, "--per-object"]).code).toBe(0);
    expect(readdirSync(dir)).toEqual(expect.arrayContaining([...earlier, "kustomization.yaml"]));
    expect(readdirSync(dir)).not.toContain("manifests.yaml");
    writeFileSync(join(dir, "stale.yaml"), "stale: true\n");
    const refused = runCli(["render", "examples/compass-server.yaml", "-o", dir]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("holds stale.yaml, which rigging did not write");
    expect(readFileSync(join(dir, "stale.yaml"), "utf8")).toBe("stale: true\n");
  });

  it("refuses a DIR that is a file", () => {
    const file = tempFile("x");
    const r = runCli(["render", "examples/compass-runner.yaml", "-o", file]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/exists and is not a directory/);
  });
});

describe("init and schema", () => {
  it("init prints a commented example that renders as is", () => {
    const r = runInProcess(["init", "CompassRunner"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^# /);
    expect(runCli(["render", tempFile(r.out)]).code).toBe(0);
  });

  it("schema prints a JSON Schema that names the keys and the kind", () => {
    const r = runCli(["schema", "CompassRunner"]);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.out);
    expect(schema.$schema).toMatch(/json-schema/);
    expect(schema.properties.kind).toMatchObject({ type: "string", const: "CompassRunner" });
    expect(schema.required).toEqual(expect.arrayContaining(["image", "serverAddr", "nodeSelector", "admission", "sessionCapacity", "kvmResourceName"]));
    expect(schema.required).not.toContain("kind");
    expect(schema.additionalProperties).toBe(false);
  });

  it("refuses an unknown kind with exit 2", () => {
    expect(runInProcess(["schema", "Nope"]).code).toBe(2);
    expect(runInProcess(["init", "Nope"]).code).toBe(2);
  });
});

it("the bundle starts as a bin with a shebang", () => {
  expect(readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
});

describe("internal errors (exit 3)", () => {
  it("a rendered object that breaks the catalog is reported as a bug, never as the user's mistake", async () => {
    const { selfCheck } = await import("../../src/pipeline.ts");
    const { InternalError } = await import("../../src/core/errors.ts");
    const objects = docs(runCli(["render", "examples/compass-runner.yaml"]).out);
    const ds = objects.find((o) => o.kind === "DaemonSet");
    ds.spec.template.spec.hostUsers = true;
    expect(() => selfCheck(objects)).toThrow(InternalError);
    expect(() => selfCheck(objects)).toThrow(/internal error: .*a bug in rigging[\s\S]*CR-09 DaemonSet\/compass-runner\/compass-runner/);
  });

  it("an unexpected exception ends in one line and exit 3, without a stack", async () => {
    const { run } = await import("../../src/cli/main.ts");
    let err = "";
    const code = run(["render", "examples/compass-runner.yaml"], {
      out: () => {
        throw new Error("disk full");
      },
      err: (t) => void (err += t),
      color: false,
    });
    expect(code).toBe(3);
    expect(err).toBe(
      "error internal error: disk full (this is a bug in rigging: please report it with the command line, the input (secrets removed) and the output of the same command run with RIGGING_DEBUG=1)\n",
    );
  });
});

describe("every message a person can act on", () => {
  const COMMANDS = ["render", "check", "explain", "schema", "init", "preflight"];

  it.each([
    [
      ["render", "--outptu", "out", "examples/compass-runner.yaml"],
      "unknown option --outptu for rigging render (did you mean --output?); see rigging render --help",
    ],
    [["render", "--quite", "examples/compass-runner.yaml"], "unknown option --quite for rigging render (did you mean --quiet?)"],
    [["check", "--formt=json", "x.yaml"], "unknown option --formt for rigging check (did you mean --format?)"],
    [["check", "--profil", "compass-server", "x.yaml"], "unknown option --profil for rigging check (did you mean --profile?)"],
    [["schema", "--hlp"], "unknown option --hlp for rigging schema (did you mean --help?)"],
    [["explain", "--hepl"], "unknown option --hepl for rigging explain (did you mean --help?)"],
    [
      ["preflight", "postgres", "--url-fil", "x"],
      "unknown option --url-fil for rigging preflight postgres (did you mean --url-file?); see rigging preflight postgres --help",
    ],
    [["preflight", "tls", "--server-nam", "x"], "unknown option --server-nam for rigging preflight tls (did you mean --server-name?)"],
    [["preflight", "nats", "--usr", "x", "nats://127.0.0.1:4222"], "unknown option --usr for rigging preflight nats (did you mean --user?)"],
    [["preflight", "nats", "--user"], "option --user needs a value; see rigging preflight nats --help"],
    [["--verison"], "unknown option --verison (did you mean --version?)"],
    [["rendr", "x.yaml"], 'unknown command "rendr" (did you mean render?)'],
    [["help", "chek"], 'unknown command "chek" (did you mean check?)'],
    [["render", "examples/compass-runner.yaml", "-o"], "option -o, --output needs a value; see rigging render --help"],
    [["render", "--quiet=yes", "examples/compass-runner.yaml"], "option -q, --quiet takes no value"],
  ])("%j: exit 2 with %j", (args, message) => {
    const r = runInProcess(args);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(`error ${message}`);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).not.toMatch(/Unknown option|To specify a positional/);
  });

  it.each(COMMANDS)("rigging help %s prints that command's help", (command) => {
    const help = runInProcess(["help", command]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(new RegExp(`^Usage: rigging ${command}`));
    expect(help.out).toBe(runInProcess([command, "--help"]).out);
  });

  it.each(COMMANDS)("rigging %s --help lists its exit codes", (command) => {
    const { out } = runInProcess([command, "--help"]);
    expect(out).toMatch(/Exit codes: 0 [\s\S]*;\s2 /);
    expect(out).toMatch(/;\s3 internal error/);
  });

  it("-V is --version", () => {
    expect(runInProcess(["-V"])).toEqual(runInProcess(["--version"]));
    expect(runInProcess(["-V"]).out).toMatch(/^rigging \d+\.\d+\.\d+\n$/);
  });

  it("a value is printed once in its message", () => {
    const text = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8").replace(/^tokenExpirationSeconds: \d+$/m, "tokenExpirationSeconds: 172800");
    const r = runCli(["render", tempFile(text)]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/ tokenExpirationSeconds: 172800 is above /);
    expect(r.err).not.toContain("172800 172800");
  });

  it.each<[string, string[], string?]>([
    ["an unknown flag", ["render", "--nope"]],
    ["a flag without its value", ["check", "-f"]],
    ["a bad --format", ["check", "--format", "xml", "x.yaml"]],
    ["a bad --profile", ["check", "--profile", "x", "x.yaml"]],
    ["explain with two ids", ["explain", "CR-01", "CR-02"]],
    ["an unknown requirement", ["explain", "CR-999"]],
    ["init with an unknown kind", ["init", "Nope"]],
    ["check of a missing file", ["check", "/nonexistent/x.yaml"]],
    ["render of a path through a file", ["render", "examples/compass-runner.yaml/x.yaml"]],
    ["check of /dev/null", ["check", "/dev/null"]],
    ["render of /dev/null", ["render", "/dev/null"]],
  ])("a user error is never an internal error: %s", (_, args) => {
    const r = runCli(args);
    expect(r.code, r.err).toBe(2);
    expect(r.err).not.toMatch(/internal error|\n\s+at |ENOTDIR/);
  });
});
