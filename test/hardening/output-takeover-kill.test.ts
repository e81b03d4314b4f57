// Taking over an output of an older layout (no .rigging-output manifest,
// a kustomization.yaml listing the other files) survives a kill at every
// kind of step. strace runs the built command once to list the takeover's
// write, rename and unlink calls inside DIR, then again for each of them
// with a SIGKILL injected just before it (`-e inject=CALL:signal=KILL:when=N`);
// of a run of the same call on one object's file after another, only the
// first, second and last (the others leave the same state). After every
// kill the files the user wrote are as they were, and the next render (the
// same command) succeeds with exactly the new output.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANIFEST } from "../../src/emit/output-dir.ts";
import { CLI, runInProcess } from "../support/cli.ts";
import { serverValues, tree } from "../support/output-tree.ts";

const CALLS = ["write", "rename", "unlink"] as const;

/** Whether strace can trace a child here (installed by scripts/test-deps.mjs; ptrace may still be forbidden). */
const STRACE = (() => {
  const r = spawnSync("strace", ["-o", "/dev/null", "true"], { encoding: "utf8" });
  if (r.error) return { ok: false, why: "strace is not installed" };
  return r.status === 0 ? { ok: true, why: "" } : { ok: false, why: `strace cannot trace here: ${r.stderr.trim().split("\n")[0]}` };
})();

let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), "rigging-takeover-"))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Scenario {
  what: string;
  /** The older output: rendered from a.yaml with these flags, its manifest then removed. */
  older: string[];
  /** The takeover, and the render after each kill. */
  args: (work: string) => string[];
  /** What DIR holds after a successful takeover. */
  expected: () => Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  {
    what: "another layout and other values (--force: the older files record no checksum)",
    older: ["--per-object"],
    args: (work) => ["render", join(work, "b.yaml"), "-o", join(work, "out"), "-q", "--force"],
    expected: () => expectedTree("b", []),
  },
  {
    what: "the same layout and values (no --force needed)",
    older: ["--per-object"],
    args: (work) => ["render", join(work, "a.yaml"), "-o", join(work, "out"), "-q", "--per-object"],
    expected: () => expectedTree("a", ["--per-object"]),
  },
];

function expectedTree(name: string, flags: string[]): Record<string, string> {
  const dir = mkdtempSync(join(root, "expected-"));
  writeFileSync(join(dir, "v.yaml"), serverValues(name));
  expect(runInProcess(["render", join(dir, "v.yaml"), "-o", join(dir, "out"), "-q", ...flags]).code).toBe(0);
  return tree(join(dir, "out"));
}

/** A fresh working directory: the user's values and notes, and an older output in out/. */
function olderWork(scenario: Scenario, template: { dir?: string }): string {
  const work = mkdtempSync(join(root, "work-"));
  if (template.dir === undefined) {
    template.dir = mkdtempSync(join(root, "template-"));
    writeFileSync(join(template.dir, "a.yaml"), serverValues("a"));
    writeFileSync(join(template.dir, "b.yaml"), serverValues("b"));
    writeFileSync(join(template.dir, "notes.txt"), "mine\n");
    expect(runInProcess(["render", join(template.dir, "a.yaml"), "-o", join(template.dir, "out"), "-q", ...scenario.older]).code).toBe(0);
    unlinkSync(join(template.dir, "out", MANIFEST));
  }
  cpSync(template.dir, work, { recursive: true });
  return work;
}

/** The user's files of a working directory: everything but out/. */
const userFiles = (work: string) => Object.fromEntries(Object.entries(tree(work)).filter(([path]) => path !== "out" && !path.startsWith("out/")));

interface Exit {
  status: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** A process, without blocking the test worker (a long spawnSync starves vitest's own messages). */
function spawnAsync(command: string, args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => void (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stderr }));
  });
}

/** strace of the command (main thread only, as the sync file calls run there), its calls' lines in `log`. */
function strace(args: string[], calls: string, log: string, inject?: string): Promise<Exit> {
  const options = ["-y", "-o", log, "-e", `trace=${calls}`, ...(inject ? ["-e", `inject=${inject}`] : [])];
  return spawnAsync("strace", [...options, process.execPath, CLI, ...args]);
}

/** Per call, the ordinals (1-based, as strace's `when` counts) of the calls that touch `out`, with their lines. */
function takeoverCalls(log: string, out: string): Map<string, { n: number; line: string }[]> {
  const counts = new Map<string, number>();
  const found = new Map<string, { n: number; line: string }[]>(CALLS.map((c) => [c, []]));
  for (const line of readFileSync(log, "utf8").split("\n")) {
    const call = /^(\w+)\(/.exec(line)?.[1];
    if (call === undefined || !found.has(call)) continue;
    const n = (counts.get(call) ?? 0) + 1;
    counts.set(call, n);
    if (line.includes(`${out}/`)) found.get(call)!.push({ n, line });
  }
  return found;
}

/** The step a line stands for, as a person reads it: `rename .rigging-output.new`. */
const stepOf = (call: string, line: string, out: string) => `${call} ${line.slice(line.indexOf(`${out}/`) + out.length + 1).split(/[>"]/)[0]}`;

/** A step with the object's file of the per-object layout (`06-deployment-a.yaml`, or its `.tmp`) left out. */
const kindOf = (step: string) => step.replace(/\d{2}-[a-z0-9.-]+?\.yaml/, "NN-OBJECT.yaml");

/**
 * The steps worth a kill: a run of the same step on object after object
 * leaves the same state but for which objects are done, so only the run's
 * first, second and last are kept (none, some and all but one done).
 */
function worthKilling<T extends { line: string }>(steps: T[], call: string, out: string): T[] {
  return steps.filter((step, i) => {
    const kind = kindOf(stepOf(call, step.line, out));
    const sameAs = (j: number) => j >= 0 && j < steps.length && kindOf(stepOf(call, steps[j].line, out)) === kind;
    return !sameAs(i - 1) || !sameAs(i - 2) || !sameAs(i + 1);
  });
}

describe.skipIf(!STRACE.ok)(
  `a takeover of an older layout, killed before each kind of write, rename and unlink in DIR${STRACE.ok ? "" : ` (not run: ${STRACE.why})`}`,
  () => {
    describe.each(SCENARIOS)("$what", (scenario) => {
      const template: { dir?: string } = {};
      let calls: Map<string, { n: number; line: string }[]>;
      let expected: Record<string, string>;
      let traced: string;

      beforeAll(async () => {
        expected = scenario.expected();
        const work = olderWork(scenario, template);
        const log = join(work, "..", `${work.split("/").pop()}.trace`);
        const r = await strace(scenario.args(work), CALLS.join(","), log);
        expect(r.status, r.stderr).toBe(0);
        expect(tree(join(work, "out"))).toEqual(expected);
        traced = join(work, "out");
        calls = takeoverCalls(log, traced);
      }, 60_000);

      it.each(CALLS)("before each %s: the user's files kept, the next render succeeds", async (call) => {
        const steps = calls.get(call)!;
        expect(steps.length, `no ${call} in DIR was traced`).toBeGreaterThan(0);
        const killedAt: string[] = [];
        for (const { n } of worthKilling(steps, call, traced)) {
          const work = olderWork(scenario, template);
          const out = join(work, "out");
          const before = userFiles(work);
          const log = join(work, "..", `${work.split("/").pop()}.kill`);
          const r = await strace(scenario.args(work), call, log, `${call}:signal=KILL:when=${n}`);
          expect(r.signal ?? r.status, r.stderr).toBe("SIGKILL");
          // The call the kill landed on is the one listed, in DIR.
          const last =
            readFileSync(log, "utf8")
              .trim()
              .split("\n")
              .filter((l) => l.startsWith(`${call}(`))
              .at(-1) ?? "";
          expect(last, `${call} #${n}`).toContain(`${out}/`);
          killedAt.push(stepOf(call, last, out));
          expect(userFiles(work)).toEqual(before);
          const again = await spawnAsync(process.execPath, [CLI, ...scenario.args(work)]);
          expect(again.status, `after a kill before ${stepOf(call, last, out)}: ${again.stderr}`).toBe(0);
          expect(tree(out)).toEqual(expected);
          expect(userFiles(work)).toEqual(before);
          rmSync(work, { recursive: true, force: true });
        }
        // The steps that make the manifest: created under its next name, then renamed into place.
        if (call === "write") expect(killedAt).toContain(`write ${MANIFEST}.new`);
        if (call === "rename") expect(killedAt).toContain(`rename ${MANIFEST}.new`);
        // An older object's file, removed when the layout changes.
        if (call === "unlink" && scenario.older.includes("--per-object") && !scenario.args("").includes("--per-object"))
          expect(killedAt).toContain("unlink 11-networkpolicy-a-nats.yaml");
      }, 240_000);
    });
  },
);
