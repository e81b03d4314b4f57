// `rigging render DIR` to stdout (the Argo CD plugin's path) judges the
// stream whole, as `rigging check` judges it: a Compass Runner and a Compass
// Server from separate files are compared (CR-03, CR-04), and each file's
// notes are printed on stderr. A fleet (-o) judges its members the same
// way before writing any, and writes neither side of a disagreement.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PARALLEL_THRESHOLD } from "../../src/core/threads.ts";
import { CLI, runCli, runInProcess, tempFile } from "../support/cli.ts";

const RUNNER = readFileSync("examples/compass-runner.yaml", "utf8");
const SERVER = readFileSync("examples/compass-server.yaml", "utf8");
/** A Server whose runner-clusters entry allows tokens shorter than the Runner's. */
const SHORT = SERVER.replace("    maxTokenLifetime: 86400\n", "    maxTokenLifetime: 1800\n");
const ROOTPILOT = readFileSync("examples/rootpilot-eks.yaml", "utf8");

/** The entries of a fleet's output a person sees. */
const visible = (dir: string) =>
  readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .sort();

/** A pair member's entries in OUT: its name and its hidden generations. */
const pairEntries = (dir: string) =>
  readdirSync(dir)
    .filter((name) => /^\.?(runner|server)(\.|$)/.test(name))
    .sort();

const dirTexts = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory, removed after the tests. */
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function split(server = SERVER, runner = RUNNER): string {
  const dir = temp("rigging-pairs-");
  writeFileSync(join(dir, "runner.yaml"), runner);
  writeFileSync(join(dir, "server.yaml"), server);
  return dir;
}

describe("render DIR judges a Server and a Runner from separate files together", () => {
  it("agreeing: the stream, and check of it finds no error", () => {
    const dir = split();
    const r = runInProcess(["render", dir]);
    expect(r.code, r.err).toBe(0);
    const checked = runInProcess(["check", "--format", "json", tempFile(r.out, "stream.yaml")]);
    expect(checked.code, checked.out).toBe(0);
  });

  it("a Server entry's maxTokenLifetime below the Runner's token lifetime: refused, both files named, nothing printed", () => {
    expect(SHORT).not.toBe(SERVER);
    const dir = split(SHORT);
    const r = runInProcess(["render", dir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    const [line] = r.err.split("\n").filter((l) => l.startsWith("error "));
    expect(line).toContain(`error ${join(dir, "runner.yaml")}: CR-03 DaemonSet/`);
    expect(line).toContain("maxTokenLifetime (local in ConfigMap compass/compass-server-runner-clusters: 1800s)");
    expect(line).toContain(`judged with ${join(dir, "server.yaml")} (CompassServer)`);
    expect(r.err).toContain(`${dir}: its installations, judged together as check judges the stream, are refused; nothing was printed`);
    // check of the files rendered one by one, as one input, refuses the same: render says what check would.
    const stream = ["runner.yaml", "server.yaml"].map((f) => runInProcess(["render", join(dir, f)]).out).join("---\n");
    const checked = runInProcess(["check", "--format", "json", tempFile(stream, "stream.yaml")]);
    expect(checked.code).toBe(1);
    expect(JSON.parse(checked.out).map((f: { ruleId: string }) => f.ruleId)).toContain("CR-03");
  });

  it("prints each file's notes on stderr under its name, and none with -q", () => {
    const dir = split();
    const r = runInProcess(["render", dir]);
    expect(r.err).toContain(`notes for ${join(dir, "runner.yaml")}:\n`);
    expect(r.err).toContain(`notes for ${join(dir, "server.yaml")}:\n`);
    expect(r.err).toMatch(/The Server's --runner-clusters file needs this entry/);
    const quiet = runInProcess(["render", "-q", dir]);
    expect(quiet.code).toBe(0);
    expect(quiet.err).not.toContain("notes for");
  });

  it("a fleet (-o) of the two: judged together before writing; the disagreement names both files and writes neither (exit 1)", () => {
    const dir = split(SHORT);
    const out = join(temp("rigging-pairs-out-"), "out");
    const r = runInProcess(["render", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("rendered 0 of 2 values files");
    const [line] = r.err.split("\n").filter((l) => l.startsWith("error "));
    expect(line).toContain(`error ${join(dir, "runner.yaml")}: CR-03 DaemonSet/`);
    expect(line).toContain(`judged with ${join(dir, "server.yaml")} (CompassServer)`);
    expect(r.err).toContain(`${join(dir, "runner.yaml")}: 1 error(s) judged together with ${join(dir, "server.yaml")}; not rendered\n`);
    expect(r.err).toContain(`error ${join(dir, "server.yaml")}: judged together with ${join(dir, "runner.yaml")}, whose error(s) name it; not rendered\n`);
    expect(readdirSync(out)).toEqual([]);
    // check of the two files rendered one by one, as one stream, finds the same: render said what check says.
    const stream = ["runner.yaml", "server.yaml"].map((f) => runInProcess(["render", join(dir, f)]).out).join("---\n");
    const checked = runInProcess(["check", "--format", "json", tempFile(stream, "both.yaml")]);
    expect(checked.code).toBe(1);
    expect(JSON.parse(checked.out).map((f: { ruleId: string }) => f.ruleId)).toContain("CR-03");
    // Agreeing, the fleet exits 0 and writes both.
    const agreeing = join(out, "..", "agreeing");
    expect(runInProcess(["render", split(), "-o", agreeing]).code).toBe(0);
    expect(visible(agreeing)).toEqual(["runner", "server"]);
  });
});

describe("a fleet of several kinds refuses a disagreeing pair before writing it", () => {
  it("writes the unrelated member, neither side of the pair; an earlier render of the pair stays as it was", () => {
    const dir = split();
    writeFileSync(join(dir, "rootpilot.yaml"), ROOTPILOT);
    const out = join(temp("rigging-pairs-out-"), "out");
    const first = runInProcess(["render", dir, "-o", join(out, "..", "first")]);
    expect(first.code, first.err).toBe(0);
    writeFileSync(join(dir, "server.yaml"), SHORT);
    // A first render into OUT: the pair's directories are never made.
    const r = runInProcess(["render", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("rendered 1 of 3 values files");
    expect(r.err).toContain(`${join(dir, "runner.yaml")}: 1 error(s) judged together with ${join(dir, "server.yaml")}; not rendered`);
    expect(r.err).toContain(`error ${join(dir, "server.yaml")}: judged together with ${join(dir, "runner.yaml")}, whose error(s) name it; not rendered`);
    expect(r.err).not.toContain(`${join(dir, "rootpilot.yaml")}: judged together`);
    expect(readdirSync(out).sort()).toEqual([".rootpilot.1", "rootpilot"]);
    // Over the earlier render of all three: the pair's files and generations are as they were, the third is written again.
    const earlier = join(out, "..", "first");
    const before = { runner: dirTexts(join(earlier, "runner")), server: dirTexts(join(earlier, "server")), entries: pairEntries(earlier) };
    const again = runInProcess(["render", dir, "-o", earlier]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("rendered 1 of 3 values files");
    expect({ runner: dirTexts(join(earlier, "runner")), server: dirTexts(join(earlier, "server")), entries: pairEntries(earlier) }).toEqual(before);
    expect(visible(earlier)).toEqual(["rootpilot", "runner", "server"]);
    // Mended, the pair is written over its earlier render.
    writeFileSync(join(dir, "server.yaml"), SERVER);
    expect(runInProcess(["render", dir, "-o", earlier]).code).toBe(0);
    expect(pairEntries(earlier)).not.toEqual(before.entries);
  });

  it("a member read from a FIFO is read once, when it is written: the fleet renders it beside a regular file of another kind", () => {
    const dir = split();
    const fifo = join(dir, "piped.yaml");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const writer = spawn("sh", ["-c", 'cat "$0" > "$1"', join(dir, "server.yaml"), fifo], { stdio: "ignore" });
    try {
      const out = join(dir, "out");
      const r = spawnSync(process.execPath, [CLI, "render", fifo, join(dir, "runner.yaml"), "-o", out], { encoding: "utf8", timeout: 30_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(visible(out)).toEqual(["piped", "runner"]);
    } finally {
      writer.kill();
    }
  });

  it("on worker threads as on one: the same lines, the same members written", () => {
    // Past 64 KiB, the Server's kind is read on a worker thread.
    const dir = split(`${SHORT}# ${"padding ".repeat(9000)}\n`);
    const count = PARALLEL_THRESHOLD;
    for (let i = 2; i < count; i++) writeFileSync(join(dir, `rp${i}.yaml`), ROOTPILOT.replace(/^name: rootpilot-runner$/m, `name: rp${i}`));
    const out = temp("rigging-pairs-out-");
    const one = runCli(["render", dir, "-o", join(out, "one")], undefined, { RIGGING_THREADS: "1" });
    const threads = runCli(["render", dir, "-o", join(out, "threads")], undefined, { RIGGING_THREADS: "3" });
    expect(one.code, one.err).toBe(1);
    expect(threads.code, threads.err).toBe(1);
    expect(one.err).toContain(`rendered ${count - 2} of ${count} values files into ${join(out, "one")}; 2 not rendered`);
    expect(one.err).toContain(`error ${join(dir, "server.yaml")}: judged together with ${join(dir, "runner.yaml")}, whose error(s) name it; not rendered`);
    const lines = (r: { err: string }) => r.err.split("\n").filter((l) => !l.startsWith("rendered "));
    expect(lines(threads)).toEqual(lines(one));
    expect(visible(join(out, "threads"))).toEqual(visible(join(out, "one")));
    expect(visible(join(out, "one"))).toHaveLength(count - 2);
    expect(visible(join(out, "one"))).not.toContain("runner");
    expect(visible(join(out, "one"))).not.toContain("server");
  });
});
