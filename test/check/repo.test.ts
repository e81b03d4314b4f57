// `rigging check DIR` at the root of a GitOps repository (test/fixtures/repo):
// charts, templates, kustomizations, jsonnet, values files and their schema,
// a package.json and the three systems' sets side by side.
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { ROOT, runInProcess, runInProcessAsync, tempDir } from "../support/cli.ts";

const FIXTURE = join(ROOT, "test", "fixtures", "repo");

/** The fixture, copied, with what a real checkout also holds: .git, node_modules, symlinks out of the tree and a loop. */
function repository(): string {
  const dir = join(tempDir(), "repo");
  cpSync(FIXTURE, dir, { recursive: true });
  mkdirSync(join(dir, ".git", "refs"), { recursive: true });
  writeFileSync(join(dir, ".git", "broken.yaml"), "apiVersion: v1\nkind: [\n");
  mkdirSync(join(dir, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "pkg", "bad.yaml"), "apiVersion: v1\nkind: [\n");
  symlinkSync("/", join(dir, "apps", "root"));
  symlinkSync("..", join(dir, "apps", "loop"));
  const outside = join(tempDir(), "outside.yaml");
  writeFileSync(outside, readFileSync(join(FIXTURE, "apps", "runner", "runner.yaml")));
  symlinkSync(outside, join(dir, "apps", "outside.yaml"));
  return dir;
}

async function check(args: string[]) {
  const r = await runInProcessAsync(["check", "--format", "json", ...args]);
  return { ...r, findings: r.code === 2 ? [] : (JSON.parse(r.out) as CheckFinding[]) };
}

const lineOf = (f: CheckFinding) => readFileSync(f.file, "utf8").split("\n")[f.line! - 1];

describe("check DIR walks a repository", () => {
  const dir = repository();
  let all: Awaited<ReturnType<typeof check>>;
  let run: Awaited<ReturnType<typeof check>>;
  beforeAll(async () => {
    all = await check([dir]);
    run = { ...all, findings: all.findings.filter((f) => (f.severity as string) !== "skipped") };
  });

  it("exits 1 for the seeded errors, never 2", async () => {
    expect(run.code).toBe(1);
  });

  it("reports each seeded finding at its source file and line, and nothing in a file that is not Kubernetes", async () => {
    const by = (id: string) => run.findings.filter((f) => f.ruleId === id);
    expect([...new Set(run.findings.map((f) => f.file))]).toEqual(
      ["apps/broken/configmap.yaml", "apps/legacy/legacy.yaml", "apps/rootpilot/rootpilot.yaml", "apps/runner/runner.yaml", "apps/server/server.yaml"].map(
        (f) => join(dir, f),
      ),
    );
    expect(by("CR-09").map((f) => [f.file, lineOf(f).trim()])).toEqual([[join(dir, "apps/runner/runner.yaml"), "hostUsers: true"]]);
    expect(by("CS-02").map((f) => f.file)).toEqual([join(dir, "apps/server/server.yaml")]);
    const cs02 = by("CS-02")[0];
    expect(readFileSync(cs02.file, "utf8").split("\n")[cs02.line! - 2]).toMatch(/^\s+securityContext:$/);
    expect(by("RP-02").map((f) => f.file)).toEqual([join(dir, "apps/rootpilot/rootpilot.yaml")]);
    const rp02 = by("RP-02")[0];
    expect(readFileSync(rp02.file, "utf8").split("\n")[rp02.line! - 2]).toMatch(/^\s+httpGet:$/);
  });

  it("reports the schema's errors (a removed apiVersion, a misspelt field) at their lines, and names the custom resource unchecked", async () => {
    const legacy = join(dir, "apps/legacy/legacy.yaml");
    const schema = run.findings.filter((f) => f.ruleId === "schema");
    expect(schema.map((f) => [f.file, f.severity, f.path, lineOf(f).trim()])).toEqual([
      [legacy, "error", "apiVersion", "apiVersion: extensions/v1beta1"],
      [legacy, "error", "spec.hostNetwrk", "hostNetwrk: true"],
    ]);
    expect(schema[0].message).toBe("extensions/v1beta1 Deployment is not served by Kubernetes 1.37; it serves Deployment as apps/v1");
    const unchecked = all.findings.filter((f) => (f.severity as string) === "skipped" && f.ruleId === "schema");
    expect(unchecked).toEqual([expect.objectContaining({ file: legacy, line: 29, object: expect.objectContaining({ kind: "Certificate" }) })]);
  });

  it("makes a YAML syntax error in a file with apiVersion and kind lines an error with its position", async () => {
    const input = run.findings.filter((f) => f.ruleId === "input");
    expect(input).toHaveLength(1);
    expect(input[0]).toMatchObject({ file: join(dir, "apps/broken/configmap.yaml"), severity: "error" });
    expect(input[0].line).toBeGreaterThanOrEqual(6);
    expect(input[0].message).toMatch(/not valid YAML/);
  });

  it("counts what it skipped, and why", async () => {
    expect(run.err).toContain("skipped 8 file(s): 4 not Kubernetes objects, 1 Helm or Go templates, 2 rigging values files, 1 schema files\n");
    expect(run.err).toMatch(/skipped 2 directories: .*\.git, .*node_modules/);
  });

  it("builds the overlay it walks into, not its base alone, and judges the patches only as parts of it", async () => {
    const kustomize = all.findings.filter((f) => f.file.includes(`${join(dir, "kustomize")}/`));
    expect(kustomize.map((f) => [f.ruleId, f.file, f.object.name])).toEqual([["unrecognised", join(dir, "kustomize/base/deployment.yaml"), "prod-web"]]);
    const overlay = join(dir, "kustomize", "overlays", "prod");
    const named = await check([join(overlay, "replicas.yaml")]);
    expect(named.code).toBe(1);
    expect(named.findings).toContainEqual(
      expect.objectContaining({ ruleId: "schema", path: "spec", message: expect.stringMatching(/missing required field "selector"/) }),
    );
  });

  it("does not follow a symlink out of the tree (a link to / among them), and reports a loop once", async () => {
    expect(run.err).toContain(`${join(dir, "apps", "root")}: a symbolic link out of ${dir}`);
    expect(run.err).toContain(`${join(dir, "apps", "outside.yaml")}: a symbolic link out of ${dir}`);
    expect(run.err.split(`${join(dir, "apps", "loop")}: a symbolic link loop`)).toHaveLength(2);
    expect(run.findings.filter((f) => f.file.includes("outside"))).toEqual([]);
  });

  it("narrows the walk with --exclude and --include", async () => {
    const excluded = await check(["--exclude", "apps/broken/**", "--exclude", "rootpilot.yaml", "--exclude", "kustomize", "--exclude", "apps/plain/**", dir]);
    expect(excluded.code).toBe(1);
    expect([...new Set(excluded.findings.map((f) => f.ruleId))].sort()).toEqual(["CR-09", "CS-02", "schema", "unrecognised"]);
    expect(excluded.err).toContain("1 left out by --exclude/--include");
    expect(excluded.err).toMatch(/skipped 5 directories: .*apps\/broken/);
    const included = await check(["--include", "apps/runner/*.yaml", dir]);
    expect(included.findings.map((f) => f.ruleId)).toEqual(["CR-09"]);
  });

  it("exits 0 on a tree with no Kubernetes object, saying so", async () => {
    const none = await check([join(dir, "charts")]);
    expect(none.code).toBe(0);
    expect(none.findings).toEqual([]);
    expect(none.err).toContain("no Kubernetes objects found");
  });
});

describe("unrecognised workloads are entries of every format", () => {
  const nginx = join(FIXTURE, "apps", "plain", "nginx.yaml");

  it("json: a skipped entry with its place; exit 0", async () => {
    const r = await check([nginx]);
    expect(r.code).toBe(0);
    expect(r.findings).toEqual([
      expect.objectContaining({
        file: nginx,
        line: 1,
        ruleId: "unrecognised",
        severity: "skipped",
        object: expect.objectContaining({ kind: "Deployment", name: "nginx" }),
      }),
    ]);
  });

  it("text: a skipped line on stdout", async () => {
    const r = runInProcess(["check", nginx]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`skipped  ${nginx}:1  unrecognised  Deployment/default/nginx  -  not recognised as any profile, not checked\n`);
  });

  it("sarif: a tool notification naming the rule; junit: a skipped test case", async () => {
    const sarif = JSON.parse(runInProcess(["check", "--format", "sarif", nginx]).out);
    const notes = sarif.runs[0].invocations[0].toolExecutionNotifications;
    expect(notes.filter((n: { descriptor?: { id: string } }) => n.descriptor?.id === "unrecognised")).toHaveLength(1);
    expect(runInProcess(["check", "--format", "junit", nginx]).out).toMatch(
      /<testcase classname="rigging\.inputs" name="unrecognised Deployment\/default\/nginx"[^>]*><skipped /,
    );
  });

  it("--strict makes it an error finding (exit 1)", async () => {
    const r = await check(["--strict", nginx]);
    expect(r.code).toBe(1);
    expect(r.findings).toEqual([expect.objectContaining({ file: nginx, line: 1, ruleId: "unrecognised", severity: "error" })]);
  });

  it("a Service no profile claims stays a note on stderr, not an entry", async () => {
    const dir = tempDir();
    const svc = join(dir, "svc.yaml");
    writeFileSync(svc, "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n");
    const r = await check(["--strict", svc]);
    expect(r.code).toBe(0);
    expect(r.findings).toEqual([]);
    expect(r.err).toMatch(/svc\.yaml:1 Service\/web: not recognised as any profile/);
  });
});

describe("files named on the command line stay strict", () => {
  it("a named file that is not Kubernetes is a usage error (exit 2)", async () => {
    for (const file of ["package.json", "charts/web/Chart.yaml", "clusters/runner-eu.yaml"]) expect((await check([join(FIXTURE, file)])).code).toBe(2);
  });

  it("a named Helm template is not valid YAML (exit 2)", async () => {
    expect((await check([join(FIXTURE, "charts/web/templates/deployment.yaml")])).code).toBe(2);
  });
});

describe("a walked document with both apiVersion and kind, one of them not a name", () => {
  it("is an object kubectl refuses (an input error naming the key), not a file skipped as another tool's YAML", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "typed.yaml"), "apiVersion: apps/v1\nkind: 12\nmetadata:\n  name: web\n");
    writeFileSync(join(dir, "other.yaml"), "name: web\nkind: settings\n");
    const r = await check([dir]);
    expect(r.findings.map((f) => [f.ruleId, f.file, f.message])).toEqual([
      ["input", join(dir, "typed.yaml"), "document 1 is not a Kubernetes object: kind is a number, not a string"],
    ]);
    expect(r.code).toBe(1);
  });
});
