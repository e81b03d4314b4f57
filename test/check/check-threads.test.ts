// `check` of a long run (a fleet's output) is spread over worker threads by
// the built command: the report must be the one a single thread gives,
// findings in input order, whichever thread judged which installation. A
// worker that cannot do its share (its job not loaded, say) is named on
// stderr, which the comparison with one thread would show.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_THRESHOLD } from "../../src/check/run.ts";
import { ROOT } from "../support/cli.ts";
import { runCliAsync } from "../support/run-async.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");

let root: string;
const count = CHECK_THRESHOLD + 12;
const names = Array.from({ length: count }, (_, i) => `c${String(i).padStart(4, "0")}`);
const broken = [names[4], names[count - 3]];

// The runs are long: spawned without blocking, so that the test's worker answers its runner meanwhile.
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "rigging-check-threads-"));
  for (const name of names) {
    writeFileSync(join(root, `${name}.yaml`), EXAMPLE.replace(/^name: compass-runner$/m, `name: ${name}`));
  }
  const rendered = await runCliAsync(["render", root, "-o", join(root, "out")]);
  expect(rendered.code, rendered.err).toBe(0);
  // Two installations edited by hand: a fail-open policy (CR-06) and a pod in the host user namespace (CR-09).
  const edit = (name: string, from: RegExp, to: string) => {
    const file = join(root, "out", name, "manifests.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(from);
    writeFileSync(file, text.replace(from, to));
  };
  edit(broken[0], /^( +)failurePolicy: Fail$/m, "$1failurePolicy: Ignore");
  edit(broken[1], /^( +)hostUsers: false$/m, "$1hostUsers: true");
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("check of a long run on worker threads", () => {
  it("reports what one thread reports, in input order, and exits 1", async () => {
    const threaded = await runCliAsync(["check", join(root, "out"), "--format", "json"], { RIGGING_THREADS: "3" });
    const alone = await runCliAsync(["check", join(root, "out"), "--format", "json"], { RIGGING_THREADS: "1" });
    expect(threaded.code, threaded.err).toBe(1);
    expect(alone.code, alone.err).toBe(1);
    expect(threaded.out).toBe(alone.out);
    expect(threaded.err).toBe(alone.err);
    const findings = JSON.parse(threaded.out) as { file: string; ruleId: string; severity: string }[];
    const errors = findings.filter((f) => f.severity === "error");
    // Each broken installation is reported, under its own file, and no other installation is.
    const where = [...new Set(errors.map((f) => f.file.split("/").at(-2)))];
    expect(where).toEqual(broken);
    expect(errors.filter((f) => f.file.includes(`/${broken[0]}/`)).map((f) => f.ruleId)).toContain("CR-06");
    expect(errors.filter((f) => f.file.includes(`/${broken[1]}/`)).map((f) => f.ruleId)).toContain("CR-09");
    // Every installation's objects were read (13 each, in its manifests file) and counted once; each
    // kustomization, which only lists that file, is read as the file it names, not built.
    const text = await runCliAsync(["check", join(root, "out")], { RIGGING_THREADS: "3" });
    expect(text.err.trim().split("\n").at(-1)).toBe(`2 error(s), 0 warning(s) in ${count * 13} object(s) of ${count} file(s) (compass-runner)`);
    expect(text.err).not.toContain("kustomizations (not built)");
  }, 300_000);
});
