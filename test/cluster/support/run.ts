// Running programs (kubectl, helm, kustomize) from the cluster tests without blocking the test worker: a promise per process, killed after a deadline.
import { spawn } from "node:child_process";

export interface Ran {
  code: number;
  out: string;
  err: string;
}

export interface RunOptions {
  cwd?: string;
  input?: string;
  env?: Record<string, string | undefined>;
  /** Kills the process (and answers code -1) after this many seconds. */
  seconds?: number;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: "1", ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const seconds = options.seconds ?? 300;
    const timer = setTimeout(() => {
      err.push(Buffer.from(`\n[killed after ${seconds} s]\n`));
      child.kill("SIGKILL");
    }, seconds * 1000);
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.on("error", () => {}); // a process that exits without reading its input
    child.stdin.end(options.input ?? "");
  });
}

/** Runs a shell command line as written in a doc, with `sh -c`. */
export const runShell = (line: string, options: RunOptions = {}): Promise<Ran> => run("sh", ["-c", line], options);
