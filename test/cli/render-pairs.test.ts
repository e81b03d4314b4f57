// `rigging render DIR` to stdout (the Argo CD plugin's path) judges the
// stream whole, as `rigging check` judges it: a Compass Runner and a Compass
// Server from separate files are compared (CR-03, CR-04), and each file's
// notes are printed on stderr.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess, tempFile } from "../support/cli.ts";

const RUNNER = readFileSync("examples/compass-runner.yaml", "utf8");
const SERVER = readFileSync("examples/compass-server.yaml", "utf8");

function split(server = SERVER, runner = RUNNER): string {
  const dir = mkdtempSync(join(tmpdir(), "rigging-pairs-"));
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
    const short = SERVER.replace("    maxTokenLifetime: 86400\n", "    maxTokenLifetime: 1800\n");
    expect(short).not.toBe(SERVER);
    const dir = split(short);
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

  it("a fleet (-o) of the two: written, then judged together; the disagreement is an error naming both files (exit 1)", () => {
    const dir = split(SERVER.replace("    maxTokenLifetime: 86400\n", "    maxTokenLifetime: 1800\n"));
    const out = join(mkdtempSync(join(tmpdir(), "rigging-pairs-out-")), "out");
    const r = runInProcess(["render", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("rendered 2 of 2 values files");
    const [line] = r.err.split("\n").filter((l) => l.startsWith("error "));
    expect(line).toContain(`error ${join(dir, "runner.yaml")}: CR-03 DaemonSet/`);
    expect(line).toContain(`judged with ${join(dir, "server.yaml")} (CompassServer)`);
    // check of the two members' manifests as one stream finds the same: render said what check says.
    const stream = ["runner", "server"].map((m) => readFileSync(join(out, m, "manifests.yaml"), "utf8")).join("---\n");
    const checked = runInProcess(["check", "--format", "json", tempFile(stream, "both.yaml")]);
    expect(checked.code).toBe(1);
    expect(JSON.parse(checked.out).map((f: { ruleId: string }) => f.ruleId)).toContain("CR-03");
    // Agreeing, the fleet exits 0.
    expect(runInProcess(["render", split(), "-o", join(out, "..", "agreeing")]).code).toBe(0);
  });
});
