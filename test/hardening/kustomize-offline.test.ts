// A kustomization under `check` runs nothing, fetches nothing and reads
// nothing outside the checked tree: each hostile reference is an error at its
// line, kustomize is the only program started (strace), and its scratch
// directory goes on every exit, signals included.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckFinding } from "../../src/check/run.ts";
import { CLI, ROOT, runCli, tempDir } from "../support/cli.ts";

const hasKubectl = spawnSync("kubectl", ["version", "--client"]).status === 0;
const canTrace = spawnSync("strace", ["-o", "/dev/null", "true"]).status === 0;
const CR09 = readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "broken", "CR-09.yaml"), "utf8");

/** A repository (`.git`) with a base and a prod overlay whose kustomization is `overlay`; and a `git` that logs its calls. */
function repository(overlay: string): { repo: string; prod: string; bin: string; gitLog: string; marker: string } {
  const top = tempDir();
  const repo = join(top, "repo");
  const prod = join(repo, "overlays", "prod");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(repo, "base"), { recursive: true });
  mkdirSync(prod, { recursive: true });
  mkdirSync(join(top, "outside"));
  writeFileSync(join(top, "outside", "kustomization.yaml"), "resources: [secret.yaml]\n");
  writeFileSync(join(top, "outside", "secret.yaml"), "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n");
  writeFileSync(join(repo, "base", "runner.yaml"), CR09);
  writeFileSync(join(repo, "base", "kustomization.yaml"), "resources:\n  - runner.yaml\n");
  writeFileSync(join(prod, "kustomization.yaml"), overlay);
  const bin = join(top, "bin");
  mkdirSync(bin);
  const gitLog = join(top, "git.log");
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$@" >> ${gitLog}\nexit 1\n`);
  chmodSync(join(bin, "git"), 0o755);
  return { repo, prod, bin, gitLog, marker: join(top, "pwned") };
}

function findings(out: string): CheckFinding[] {
  return JSON.parse(out) as CheckFinding[];
}

describe.skipIf(!hasKubectl)("check of a hostile kustomization", () => {
  it("a --upload-pack ref, http, file:// and a path out of the tree are errors at their lines; nothing runs", () => {
    const base = repository("");
    const hostile = [
      "resources:",
      "  - ../../base",
      `  - "github.com/org/repo//x?ref=--upload-pack=touch\${IFS}${base.marker}"`,
      "  - https://example.invalid/runner.yaml",
      `  - file://${join(base.repo, "..", "outside")}`,
      "  - ../../../outside",
      "  - git@github.com:org/repo.git",
      "patches:",
      "  - path: /etc/passwd",
      "  - ../../../outside/secret.yaml",
      "",
    ].join("\n");
    writeFileSync(join(base.prod, "kustomization.yaml"), hostile);
    const r = runCli(["check", "--format", "json", base.prod], undefined, { PATH: `${base.bin}:${process.env.PATH}` });
    expect(r.code, r.err).toBe(1);
    const got = findings(r.out).map((f) => [f.file, f.line, f.severity, f.message.replace(/ \S+$/, "")]);
    const k = join(base.prod, "kustomization.yaml");
    expect(got).toEqual([
      [k, 3, "error", `"github.com/org/repo//x?ref=--upload-pack=touch\${IFS}${base.marker}" is a git repository address: nothing is`],
      [k, 4, "error", '"https://example.invalid/runner.yaml" is a URL: nothing is'],
      [k, 5, "error", `"file://${join(base.repo, "..", "outside")}" is a URL: nothing is`],
      [k, 6, "error", '"../../../outside" leaves the checked tree'],
      [k, 7, "error", '"git@github.com:org/repo.git" is a git address (user@host:path): nothing is'],
      [k, 9, "error", '"/etc/passwd" leaves the checked tree'],
      [k, 10, "error", '"../../../outside/secret.yaml" leaves the checked tree'],
    ]);
    expect(existsSync(base.gitLog), "git was run").toBe(false);
    expect(existsSync(base.marker)).toBe(false);
    expect(r.out).not.toContain("kind: Secret");
  });

  it("a FIFO named kustomization.yaml is refused without being opened", () => {
    const base = repository("resources: [../../base]\n");
    const dir = join(base.repo, "fifo");
    mkdirSync(dir);
    spawnSync("mkfifo", [join(dir, "kustomization.yaml")]);
    const r = spawnSync(process.execPath, [CLI, "check", "--format", "json", dir], { encoding: "utf8", timeout: 20_000 });
    expect(r.signal, "check hung on the FIFO").toBeNull();
    expect(r.status).toBe(1);
    expect(findings(r.stdout).map((f) => f.message)).toEqual(["kustomization.yaml is not a regular file (a FIFO, socket or device), not read"]);
  }, 30_000);

  it("an exec function among transformers and a helm chart are errors; kustomize does not run them", () => {
    const base = repository("resources: [../../base]\ntransformers: [fn.yaml]\nhelmCharts:\n  - name: x\n");
    const fn = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: ./evil}\n";
    writeFileSync(join(base.prod, "fn.yaml"), fn);
    const r = runCli(["check", "--format", "json", base.prod]);
    expect(r.code, r.err).toBe(1);
    expect(findings(r.out).map((f) => [f.line, f.message])).toEqual([
      [2, '"fn.yaml" configures an exec or container function: not run'],
      [3, "helmCharts runs helm: not built"],
    ]);
  });

  it.skipIf(!canTrace)("a clean overlay is built by kubectl alone, offline: strace sees no other program", () => {
    const base = repository("resources:\n  - ../../base\n");
    const log = join(base.repo, "..", "exec.log");
    const r = spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-o", log, process.execPath, CLI, "check", "--format", "json", base.prod], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${base.bin}:${process.env.PATH}` },
    });
    expect(r.status, r.stderr).toBe(1);
    expect(findings(r.stdout).map((f) => [f.ruleId, f.file])).toEqual([["CR-09", join(base.repo, "base", "runner.yaml")]]);
    const programs = readFileSync(log, "utf8")
      .split("\n")
      .map((line) => /^\d+ +execve\("([^"]+)".* = 0$/.exec(line)?.[1])
      .filter((p): p is string => p !== undefined);
    expect(programs.map((p) => p.slice(p.lastIndexOf("/") + 1))).toEqual(["node", "kubectl"]);
    expect(existsSync(base.gitLog)).toBe(false);
  });

  it("a kustomization named in the tree is built with an empty PATH and refusing proxies (git is never found)", () => {
    const base = repository("resources:\n  - ../../base\n");
    const fake = join(base.bin, "kubectl");
    const envLog = join(base.repo, "..", "env.log");
    writeFileSync(fake, `#!/bin/sh\n/usr/bin/env > ${envLog}\nexit 0\n`);
    chmodSync(fake, 0o755);
    runCli(["check", base.prod], undefined, { PATH: `${base.bin}:${process.env.PATH}` });
    const env = readFileSync(envLog, "utf8");
    expect(env).toMatch(/^PATH=$/m);
    expect(env).toMatch(/^HTTPS_PROXY=http:\/\/127\.0\.0\.1:9$/m);
  });
});

/** A `kubectl` that sleeps while a file `slow` exists beside it, so a signal can land mid-build. */
function slowKubectl(): { bin: string; slow: string; tmp: string; prod: string } {
  const base = repository("resources:\n  - ../../base\n");
  const slow = join(base.bin, "slow");
  writeFileSync(join(base.bin, "kubectl"), `#!/bin/sh\n[ -e ${slow} ] && /bin/sleep 3\nexit 0\n`);
  chmodSync(join(base.bin, "kubectl"), 0o755);
  writeFileSync(slow, "");
  const tmp = join(base.repo, "..", "tmp");
  mkdirSync(tmp);
  return { bin: base.bin, slow, tmp, prod: base.prod };
}

async function killMidBuild(signal: NodeJS.Signals, s: ReturnType<typeof slowKubectl>): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [CLI, "check", s.prod], {
    env: { ...process.env, PATH: `${s.bin}:${process.env.PATH}`, TMPDIR: s.tmp },
    stdio: "ignore",
  });
  const ended = new Promise<NodeJS.Signals | null>((done) => child.on("exit", (_code, sig) => done(sig)));
  for (let i = 0; i < 200 && readdirSync(s.tmp).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  expect(readdirSync(s.tmp)).toHaveLength(1);
  child.kill(signal);
  return ended;
}

describe("scratch directories of a kustomization build", () => {
  it("SIGTERM mid-build: the scratch directory is removed and the process ends by the signal", async () => {
    const s = slowKubectl();
    expect(await killMidBuild("SIGTERM", s)).toBe("SIGTERM");
    expect(readdirSync(s.tmp)).toEqual([]);
  }, 30_000);

  it("SIGKILL mid-build: the next check removes what the killed one left, and nothing else", async () => {
    const s = slowKubectl();
    expect(await killMidBuild("SIGKILL", s)).toBe("SIGKILL");
    const [left] = readdirSync(s.tmp);
    expect(left).toMatch(/^rigging-kustomize-\d+-/);
    mkdirSync(join(s.tmp, "rigging-kustomize-1-mine"));
    writeFileSync(join(s.tmp, "rigging-kustomize-1-mine", "notes.txt"), "not rigging's");
    rmSync(s.slow);
    runCli(["check", s.prod], undefined, { PATH: `${s.bin}:${process.env.PATH}`, TMPDIR: s.tmp });
    expect(readdirSync(s.tmp)).toEqual(["rigging-kustomize-1-mine"]);
  }, 30_000);
});
