// Inputs that could make rigging wait forever, or spin while it waits:
// a FIFO behind a `*.yaml` symlink in an input directory (reading it blocks
// until someone writes), and a non-blocking stdin with no data yet.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, ROOT, tempDir } from "../support/cli.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples/rootpilot-eks.yaml"), "utf8");

let dir: string;
beforeAll(() => void (dir = tempDir()));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifo(path: string): string {
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  return path;
}

/** Runs the CLI with a deadline: a process that blocks on a FIFO is killed, and has no exit code. */
function runWithDeadline(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf8", timeout: 30_000, env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("a *.yaml symlink to something that is not a regular file", () => {
  it("render: a fleet skips it with a note and renders the rest", () => {
    const input = join(dir, "fleet");
    mkdirSync(input);
    writeFileSync(join(input, "good.yaml"), EXAMPLE);
    symlinkSync(fifo(join(dir, "pipe")), join(input, "pipe.yaml"));
    symlinkSync(dir, join(input, "dir.yaml"));
    const output = join(dir, "fleet-out");
    const result = runWithDeadline(["render", input, "-o", output]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(`skipped ${join(input, "pipe.yaml")}: a symbolic link to a FIFO, not a regular file`);
    expect(result.err).toContain(`skipped ${join(input, "dir.yaml")}: a symbolic link to a directory, not a regular file`);
    expect(result.err).toContain("rendered 1 of 1 values files");
    expect(readdirSync(output).filter((e) => !e.startsWith("."))).toEqual(["good"]); // and its hidden generation, .good.1
  });

  it("check: a directory's FIFO (through a symlink or not) is skipped with a note", () => {
    const input = join(dir, "manifests");
    mkdirSync(input);
    writeFileSync(join(input, "good.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    // The FIFO inside the tree (a hidden directory, which the walk does not enter): a link out of the tree is not followed at all.
    mkdirSync(join(input, ".pipes"));
    symlinkSync(fifo(join(input, ".pipes", "pipe2")), join(input, "linked.yaml"));
    fifo(join(input, "plain.yaml"));
    const result = runWithDeadline(["check", input]);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain(`skipped ${join(input, "linked.yaml")}: a FIFO, not a regular file`);
    expect(result.err).toContain(`skipped ${join(input, "plain.yaml")}: a FIFO, not a regular file`);
    expect(result.err).toContain("in 1 object(s) of 1 file(s)");
  });
});

/** The scheduler state of a process (R running, S sleeping, ...), from /proc. */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
}

/** The user and system CPU time of a process, in clock ticks (1/100 s), from /proc. */
function cpuTicksOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("render - on a non-blocking stdin", () => {
  it("sleeps while no data has come (never spins on EAGAIN), then renders what comes", async () => {
    // A FIFO as stdin, with a writer that says nothing yet. The child's
    // stdin is made blocking when it is spawned; then this process opens
    // the same pipe as a socket, which makes it non-blocking for both (the
    // flag belongs to the open pipe, shared): every read by the child
    // answers EAGAIN, as when a parent that shares its stdin reads it too.
    const path = fifo(join(dir, "stdin"));
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(path, constants.O_WRONLY);
    const child = spawn(process.execPath, [CLI, "render", "-", "-q"], { cwd: ROOT, stdio: [reader, "pipe", "pipe"] });
    const shared = new Socket({ fd: reader, readable: false, writable: false });
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.stderr!.on("data", (chunk) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      // Once started and waiting, a process that sleeps shows S; one that
      // spins on EAGAIN shows R (running, or runnable on a busy machine).
      let sleepingInARow = 0;
      for (let i = 0; i < 400 && sleepingInARow < 5; i++) {
        await pause(50);
        sleepingInARow = stateOf(child.pid!) === "S" ? sleepingInARow + 1 : 0;
      }
      expect(sleepingInARow, "the process never settled into sleeping while it waited").toBe(5);
      // Then a second of waiting costs it (almost) no CPU time. Its state is
      // not sampled: on a busy machine a sleeper is often runnable.
      const before = cpuTicksOf(child.pid!);
      await pause(1000);
      expect(cpuTicksOf(child.pid!) - before, "CPU time (1/100 s) spent in a second of waiting").toBeLessThanOrEqual(10);
    } finally {
      writeSync(writer, EXAMPLE);
      closeSync(writer);
      shared.destroy();
    }
    expect(await exited, err).toBe(0);
    expect(out).toContain("kind: Deployment");
  });
});
