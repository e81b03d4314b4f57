// A repository's files bound the work rigging does on them and cannot reach
// past the repository: a glob cannot backtrack over file names, a FIFO in an
// earlier output is refused before anything reads it, a values file's base:
// stays in its tree, and a byte-order mark is a byte kept.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readText } from "../../src/parse/read.ts";
import { writeInPlace } from "../../src/pin/write.ts";
import { CLI, ROOT, runInProcess, tempDir } from "../support/cli.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples/rootpilot-eks.yaml"), "utf8");
const CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata: {k: v}\n";
const BOM = "\uFEFF";

let dir: string;
beforeAll(() => void (dir = tempDir()));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh directory under the test's own. */
function fresh(name: string): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function fifo(path: string): string {
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  return path;
}

/** The built command with a deadline: one that blocks (on a FIFO) or backtracks for seconds is killed, and has no exit code. */
function cli(args: string[], options: { cwd?: string; input?: string; deadline?: number } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    encoding: "utf8",
    timeout: options.deadline ?? 15_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("check's globs match in time linear in a name", () => {
  // With a backtracking RegExp this glob took 21 s on a name of 45 characters, and grows as its ninth power.
  const STARS = "*a*a*a*a*a*a*a*a*z";

  function repository(): string {
    const repo = fresh(`repo-${Math.random().toString(36).slice(2)}`);
    writeFileSync(join(repo, `${"a".repeat(64)}.yaml`), CONFIG_MAP);
    mkdirSync(join(repo, "a".repeat(64)));
    writeFileSync(join(repo, "a".repeat(64), "b.yaml"), CONFIG_MAP);
    return repo;
  }

  it("--exclude and --include on the command line", () => {
    const repo = repository();
    const result = cli(["check", repo, "--exclude", STARS, "--exclude", `${STARS}/**`, "--include", `{${STARS},*.yaml}`], { deadline: 10_000 });
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain("in 2 object(s) of 2 file(s)");
  });

  it("exclude: in a .rigging.yaml of the repository", () => {
    const repo = repository();
    writeFileSync(join(repo, ".rigging.yaml"), `check:\n  exclude: ["${STARS}", "${STARS}/**"]\n`);
    const result = cli(["check", "."], { cwd: repo, deadline: 10_000 });
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain("in 2 object(s) of 3 file(s)"); // .rigging.yaml is walked too
  });

  it("a glob the matcher does not take is a usage error saying what to write, naming its file and key", () => {
    const repo = repository();
    writeFileSync(join(repo, ".rigging.yaml"), 'check:\n  include: ["+(a|b)*.yaml"]\n');
    const result = cli(["check", "."], { cwd: repo });
    expect(result.code, result.err).toBe(2);
    expect(result.err).toMatch(/\.rigging\.yaml: check\.include "\+\(a\|b\)\*\.yaml": uses \+\(\.\.\.\), an extended glob; write the choices in braces/);
  });
});

describe("render -o refuses a FIFO in an earlier output before reading anything", () => {
  it("one output: exit 2 naming the FIFO, never a read that blocks", () => {
    const base = fresh("one");
    const values = join(base, "values.yaml");
    writeFileSync(values, EXAMPLE);
    const out = join(base, "out");
    expect(cli(["render", values, "-o", out, "-q"]).code).toBe(0);
    fifo(join(out, "extra.yaml"));
    const result = cli(["render", values, "-o", out, "-q"]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain("holds extra.yaml, which rigging did not write; choose an empty directory");
  });

  it("a FIFO in place of a file rigging wrote: refused the same way", () => {
    const base = fresh("replaced");
    const values = join(base, "values.yaml");
    writeFileSync(values, EXAMPLE);
    const out = join(base, "out");
    expect(cli(["render", values, "-o", out, "-q"]).code).toBe(0);
    rmSync(join(out, "manifests.yaml"));
    fifo(join(out, "manifests.yaml"));
    const result = cli(["render", values, "-o", out, "-q"]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain("holds manifests.yaml, which rigging did not write");
  });

  it("a fleet: the member is reported and not rendered, the others are", () => {
    const base = fresh("fleet");
    const input = fresh("fleet/in");
    writeFileSync(join(input, "one.yaml"), EXAMPLE);
    writeFileSync(join(input, "two.yaml"), EXAMPLE.replace("name: rootpilot-runner", "name: rootpilot-two"));
    const out = join(base, "out");
    expect(cli(["render", input, "-o", out]).code).toBe(0);
    fifo(join(out, "one", "extra.yaml"));
    const result = cli(["render", input, "-o", out]);
    expect(result.code, result.err).toBe(1);
    expect(result.err).toContain("holds extra.yaml, which rigging did not write");
    expect(result.err).toContain("rendered 1 of 2 values files");
  });
});

describe("a values file's base: stays in the values file's tree", () => {
  /** `tree/values.yaml` naming `base`, and `outside/base.yaml`, a values file that renders. */
  function layout(name: string, base: (root: string) => string) {
    const root = fresh(name);
    const tree = fresh(`${name}/tree`);
    fresh(`${name}/outside`);
    writeFileSync(join(root, "outside", "base.yaml"), EXAMPLE);
    const values = join(tree, "values.yaml");
    writeFileSync(values, `# names its base\nbase: ${base(root)}\n`);
    return { root, tree, values };
  }

  it.each([
    ["a relative path that climbs out", () => "../outside/base.yaml"],
    ["an absolute path", (root: string) => join(root, "outside", "base.yaml")],
  ])("%s: exit 2 naming the file and line, the path, and what to do", (_, base) => {
    const { values } = layout(`base-${base.length}-${Math.random().toString(36).slice(2)}`, base);
    const result = runInProcess(["render", values]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toMatch(/values\.yaml:2:7 base: \S+ is \S+outside\/base\.yaml, outside \S+tree, the directory of \S+values\.yaml/);
    expect(result.err).toContain("move the file under it, or pass --values-root DIR");
  });

  it("a symlink inside the tree to a file outside it: refused after symlinks", () => {
    const { tree, values } = layout("linked", () => "linked.yaml");
    symlinkSync(join(tree, "..", "outside", "base.yaml"), join(tree, "linked.yaml"));
    const result = runInProcess(["render", values]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toMatch(/base: linked\.yaml is \S+outside\/base\.yaml, outside/);
  });

  it("--values-root naming a wider tree allows it: render, a fleet, fn", () => {
    const { root, tree, values } = layout("allowed", () => "../outside/base.yaml");
    expect(runInProcess(["render", values, "--values-root", root]).code).toBe(0);
    expect(runInProcess(["render", tree, "-o", join(root, "out"), "--values-root", root]).code).toBe(0);
    expect(runInProcess(["render", tree, "-o", join(root, "out2")]).code).toBe(1);
    const list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n";
    expect(cli(["fn", "-f", values], { input: list }).code).toBe(2);
    const fn = cli(["fn", "-f", values, "--values-root", root], { input: list });
    expect(fn.code, fn.err).toBe(0);
    expect(fn.out).toContain("kind: Deployment");
  });

  it("a base that is a FIFO inside the tree: refused, never read", () => {
    const tree = fresh("fifo-base");
    fifo(join(tree, "pipe.yaml"));
    writeFileSync(join(tree, "values.yaml"), "base: pipe.yaml\n");
    const result = cli(["render", join(tree, "values.yaml")]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain("base: pipe.yaml is not a regular file");
  });
});

describe("a byte-order mark is kept where a file is rewritten or passed through", () => {
  it("pin's rewrite in place (pin and pin --update)", () => {
    const file = join(fresh("bom"), "values.yaml");
    writeFileSync(file, `${BOM}kind: RootpilotRunner\nimage: a:1\n`);
    const read = readText(file);
    writeInPlace(file, read, read.replace("a:1", "a:1@sha256:0000"));
    expect(readFileSync(file, "utf8")).toBe(`${BOM}kind: RootpilotRunner\nimage: a:1@sha256:0000\n`);
  });

  it("check - --passthrough", () => {
    const result = cli(["check", "-", "--passthrough"], { input: `${BOM}${CONFIG_MAP}` });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toBe(`${BOM}${CONFIG_MAP}`);
  });
});
