// The GitOps and CI integrations: `render DIR` to stdout (Argo CD's
// generate), the Argo CD plugin file's own commands, `check - --passthrough`
// (Helm's post-renderer contract), the GitHub action's check step, and the
// editor schema (`schema` without KIND, `init`'s modeline).
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLI, ROOT, runInProcess, tempDir } from "../support/cli.ts";
import { run } from "./run.ts";
import { kinds } from "../../src/systems/registry.ts";

const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((f) => f.endsWith(".yaml"))
  .sort();
const cli = (args: string[], input?: string, env?: Record<string, string>) => run(process.execPath, [CLI, ...args], { input, cwd: work, env });

let work: string;
let bin: string;
beforeAll(() => {
  work = tempDir();
  bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rigging"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "rigging"), 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Examples of three systems, which can be applied side by side. */
const APPS = ["compass-runner.yaml", "compass-server.yaml", "rootpilot-gke.yaml"];

/** A directory holding copies of those examples; `edit` changes one. */
function valuesDir(name: string, edit?: (file: string, text: string) => string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const example of APPS) writeFileSync(join(dir, example), (edit ?? ((_f, t) => t))(example, readFileSync(join(ROOT, "examples", example), "utf8")));
  return dir;
}

describe("render DIR without -o (Argo CD's generate)", () => {
  it("prints one stream: every values file's objects, in file order, exactly as each renders alone", async () => {
    const dir = valuesDir("apps");
    const r = await cli(["render", dir]);
    expect(r.code, r.err).toBe(0);
    const singles = await Promise.all([...APPS].sort().map((f) => cli(["render", join(dir, f)])));
    expect(singles.every((s) => s.code === 0)).toBe(true);
    expect(r.out).toBe(singles.map((s) => s.out).join(""));
    const json = await cli(["render", dir, "--format", "json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out).items).toHaveLength((r.out.match(/^---$/gm) ?? []).length);
  });

  it("prints nothing when one file does not render, and says which (exit 1)", async () => {
    const dir = valuesDir("apps-bad", (file, text) =>
      file === "compass-runner.yaml" ? text.replace(/^tokenExpirationSeconds: .*$/m, "tokenExpirationSeconds: 60") : text,
    );
    const r = await cli(["render", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/compass-runner\.yaml:\d+:\d+ tokenExpirationSeconds: 60 is below 600 \(CR-03/);
    expect(r.err).toContain("nothing was printed");
  });

  it("prints nothing when two files render the same object (exit 1)", async () => {
    const dir = join(work, "apps-twice");
    mkdirSync(dir);
    copyFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), join(dir, "a.yaml"));
    copyFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), join(dir, "b.yaml"));
    const r = await cli(["render", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/b\.yaml: renders Namespace\/rootpilot, which .*a\.yaml renders too/);
  });
});

describe("integrations/argocd/plugin.yaml", () => {
  const plugin = parse(readFileSync(join(ROOT, "integrations", "argocd", "plugin.yaml"), "utf8"));
  const sh = (command: string[], cwd: string) => run(command[0], command.slice(1), { cwd, env: { PATH: `${bin}:${process.env.PATH}` } });

  it("is a ConfigManagementPlugin v2 with discover and generate", () => {
    expect(plugin).toMatchObject({ apiVersion: "argoproj.io/v1alpha1", kind: "ConfigManagementPlugin", metadata: { name: "rigging" } });
    expect(plugin.spec.generate.command).toEqual(["rigging", "render", "."]);
    // Every values kind is discovered, and nothing else is named.
    const named = new Set(
      plugin.spec.discover.find.command
        .join(" ")
        .match(/\(([A-Za-z|]+)\)/g)
        .flatMap((g: string) => g.slice(1, -1).split("|")),
    );
    expect([...named].sort()).toEqual([...kinds()].sort());
  });

  it("discover finds a directory of values files (YAML or JSON) and no other", async () => {
    const yes = valuesDir("discover-yes");
    expect((await sh(plugin.spec.discover.find.command, yes)).out.trim()).not.toBe("");
    const json = join(work, "discover-json");
    mkdirSync(json);
    writeFileSync(join(json, "site.json"), JSON.stringify({ ...parse(readFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), "utf8")) }, null, 2));
    expect((await sh(plugin.spec.discover.find.command, json)).out.trim()).toBe("site.json");
    const no = join(work, "discover-no");
    mkdirSync(no);
    writeFileSync(join(no, "deploy.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n");
    const r = await sh(plugin.spec.discover.find.command, no);
    expect(r.code).toBe(0);
    expect(r.out).toBe("");
  });

  it("generate, run in the application's directory, prints the stream render DIR prints", async () => {
    const dir = valuesDir("generate");
    const generated = await sh(plugin.spec.generate.command, dir);
    expect(generated.code, generated.err).toBe(0);
    expect(generated.out).toBe((await cli(["render", dir])).out);
    expect(generated.out).toMatch(/^---\napiVersion: v1\nkind: Namespace\n/);
  });
});

describe("check - --passthrough (a Helm post-renderer)", () => {
  let manifests: string;
  beforeAll(async () => {
    manifests = `${(await cli(["render", join(ROOT, "examples", "compass-server.yaml")])).out}# a comment helm left\n`;
  });

  it("prints its input unchanged when there is no error finding; the report goes to stderr", async () => {
    const r = await cli(["check", "-", "--passthrough"], manifests);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(manifests);
    expect(r.err).toMatch(/0 error\(s\), \d+ warning\(s\) in \d+ object\(s\)/);
  });

  it("prints nothing and exits 1 with the findings on stderr when there is an error", async () => {
    const broken = manifests.replace(/runAsNonRoot: true/g, "runAsNonRoot: false");
    expect(broken).not.toBe(manifests);
    const r = await cli(["check", "-", "--passthrough"], broken);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/<stdin>:\d+ {2}[A-Z]+-\d+ .*runAsNonRoot/);
  });

  it("prints nothing for input that is not manifests (exit 2), and reads stdin only", async () => {
    const r = await cli(["check", "-", "--passthrough"], "kind: [");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    const file = await cli(["check", join(ROOT, "examples"), "--passthrough"]);
    expect(file.code).toBe(2);
    expect(file.err).toMatch(/--passthrough checks stdin only/);
  });
});

describe("action.yml (GitHub composite action)", () => {
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8"));
  const steps: any[] = action.runs.steps;
  const check = steps.find((s) => s.id === "check");

  it("runs check --format sarif, uploads the report for code scanning, then fails on error findings", () => {
    expect(action.runs.using).toBe("composite");
    expect(check.run).toContain('check --format "$' + '{FORMAT:-sarif}"');
    expect(action.inputs.format.default).toBe("sarif");
    const upload = steps.find((s) => String(s.uses).startsWith("github/codeql-action/upload-sarif@"));
    expect(steps.indexOf(upload)).toBeGreaterThan(steps.indexOf(check));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, read literally
    expect(upload.with.sarif_file).toBe("${{ inputs.sarif-file }}");
    const fail = steps.at(-1);
    expect(fail.if).toContain("steps.check.outputs.exit-code == '1'");
    // Inputs reach the scripts through env only (no ${{ }} inside a script).
    for (const step of steps.filter((s) => s.run)) expect(step.run).not.toContain("${{");
  });

  it("its check step, run as the runner runs it, writes a SARIF report and the exit code", async () => {
    const repo = join(work, "repo");
    mkdirSync(join(repo, "deploy"), { recursive: true });
    const rendered = (await cli(["render", join(ROOT, "examples", "compass-runner.yaml")])).out;
    writeFileSync(join(repo, "deploy", "runner.yaml"), rendered.replace(/^(\s+)hostUsers: false$/m, "$1hostUsers: true"));
    const output = join(work, "github-output");
    writeFileSync(output, "");
    const env = { RIGGING: CLI, PATHS: "deploy", PROFILE: "", SARIF_FILE: "rigging.sarif", GITHUB_OUTPUT: output };
    const r = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", check.run], { cwd: repo, env });
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(output, "utf8")).toBe("exit-code=1\n");
    const sarif = JSON.parse(readFileSync(join(repo, "rigging.sarif"), "utf8"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].results.map((x: any) => x.ruleId)).toContain("CR-09");
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe("deploy/runner.yaml");

    writeFileSync(output, "");
    const missing = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", check.run], { cwd: repo, env: { ...env, PATHS: "nowhere" } });
    expect(missing.code).toBe(2);
    expect(readFileSync(output, "utf8")).toBe("exit-code=2\n");
  });

  it("installs the npm package its release carries, with no npm ci; without a release, builds its checkout", async () => {
    const install = steps.find((s) => s.id === "install");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, read literally
    expect(check.env.RIGGING).toBe("${{ steps.install.outputs.command }}");
    const dir = join(work, "install");
    mkdirSync(join(dir, "bin"), { recursive: true });
    const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: ROOT });
    expect(packed.code, packed.err).toBe(0);
    const tarball = join(dir, packed.out.trim().split("\n").at(-1)!);
    // gh as the runner has it: the release of v0.1.0 holds the tarball, no other ref has a release.
    const gh = `#!/bin/sh\n[ "$3" = v0.1.0 ] || exit 1\nwhile [ $# -gt 0 ]; do [ "$1" = --dir ] && cp "${tarball}" "$2"; shift; done\n`;
    writeFileSync(join(dir, "bin", "gh"), gh);
    chmodSync(join(dir, "bin", "gh"), 0o755);
    const step = async (ref: string, path: string) => {
      const output = join(dir, `output-${ref || "none"}`);
      writeFileSync(output, "");
      const env = { PATH: path, REF: ref, REPOSITORY: "owner/rigging", GH_TOKEN: "t", GITHUB_OUTPUT: output };
      const r = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", install.run], { cwd: dir, env });
      return {
        ...r,
        command: readFileSync(output, "utf8")
          .replace(/^command=/, "")
          .trim(),
      };
    };
    const released = await step("v0.1.0", `${join(dir, "bin")}:${process.env.PATH}`);
    expect(released.code, released.err).toBe(0);
    expect(released.command).toMatch(/\/lib\/node_modules\/rigging\/dist\/rigging\.mjs$/);
    expect((await run(process.execPath, [released.command, "--version"])).out).toMatch(/^rigging 0\.1\.0/);
    // No release for a branch: npm ci in the action's checkout (here a stub that says what it was asked).
    writeFileSync(join(dir, "bin", "npm"), `#!/bin/sh\necho "npm $*" > "${join(dir, "npm-args")}"\n`);
    chmodSync(join(dir, "bin", "npm"), 0o755);
    const branch = await step("main", `${join(dir, "bin")}:${process.env.PATH}`);
    expect(branch.code, branch.err).toBe(0);
    expect(readFileSync(join(dir, "npm-args"), "utf8")).toBe("npm ci --no-audit --no-fund\n");
    expect(branch.command).toBe(join(dir, "dist", "rigging.mjs"));
  });

  it("passes its inputs to check: kube-version, fail-on, include-rules, exclude-rules, format and category", async () => {
    const repo = join(work, "inputs");
    mkdirSync(join(repo, "deploy"), { recursive: true });
    const rendered = (await cli(["render", join(ROOT, "examples", "compass-runner.yaml")])).out;
    writeFileSync(join(repo, "deploy", "runner.yaml"), rendered);
    const output = join(work, "inputs-output");
    const step = async (inputs: Record<string, string>) => {
      writeFileSync(output, "");
      const env = { RIGGING: CLI, PATHS: "deploy", PROFILE: "", SARIF_FILE: "report", GITHUB_OUTPUT: output, ...inputs };
      const r = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", check.run], { cwd: repo, env });
      expect(r.code, r.err).toBe(0);
      return { exit: readFileSync(output, "utf8"), report: readFileSync(join(repo, "report"), "utf8") };
    };
    const clean = await step({});
    expect(clean.exit).toBe("exit-code=0\n");
    expect(JSON.parse(clean.report).runs[0].automationDetails.id).toMatch(/^rigging-check\//);
    const old = await step({ KUBE_VERSION: "v1.30.4", FORMAT: "json" });
    expect(old.exit).toBe("exit-code=1\n");
    expect(JSON.parse(old.report).map((f: any) => f.ruleId)).toContain("CR-09");
    expect((await step({ KUBE_VERSION: "1.30", EXCLUDE_RULES: "CR-09 schema" })).exit).toBe("exit-code=0\n");
    expect((await step({ KUBE_VERSION: "1.30", INCLUDE_RULES: "G-07" })).exit).toBe("exit-code=0\n");
    expect(JSON.parse((await step({ CATEGORY: "runners/eu" })).report).runs[0].automationDetails.id).toMatch(/^runners\/eu\//);
    const steps = action.runs.steps as { uses?: string; if?: string; with?: Record<string, string> }[];
    const upload = steps.find((x) => String(x.uses).startsWith("github/codeql-action/upload-sarif@"))!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, read literally
    expect(upload.with!.category).toBe("${{ inputs.category }}");
    expect(upload.if).toContain("inputs.format == 'sarif'");
    for (const input of ["paths", "kube-version", "fail-on", "include-rules", "exclude-rules", "format", "category"])
      expect(action.inputs).toHaveProperty(input);
  });
});

describe("editor schema", () => {
  const schema = JSON.parse(runInProcess(["schema"]).out);
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);

  it("schema without KIND accepts every example and applies the schema its kind names", () => {
    for (const example of EXAMPLES) {
      const values = parse(readFileSync(join(ROOT, "examples", example), "utf8"));
      expect(validate(values), `${example}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const runner = parse(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"));
    expect(validate({ ...runner, tokenExpirationSecond: 3600 })).toBe(false);
    expect(validate.errors!.some((e) => e.keyword === "additionalProperties" && e.params.additionalProperty === "tokenExpirationSecond")).toBe(true);
    // The Runner's keys are wrong for a Server: the kind decides.
    expect(validate({ ...runner, kind: "CompassServer" })).toBe(false);
    expect(validate({ ...runner, kind: "Nope" })).toBe(false);
    expect(validate({ name: "x" })).toBe(false);
  });

  it.each(kinds())("init %s starts with a modeline naming the schema file rigging schema writes", (kind) => {
    const r = runInProcess(["init", kind]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("# yaml-language-server: $schema=rigging.schema.json");
    expect(runInProcess(["init", "--help"]).out).toContain("rigging schema > rigging.schema.json");
  });
});
