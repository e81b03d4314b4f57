// Running processes from the ship tests without blocking the test worker
// (a long spawnSync starves vitest's own messages): a promise per process.
import { spawn } from "node:child_process";

export interface Run {
  code: number;
  out: string;
  err: string;
}

export interface RunOptions {
  cwd?: string;
  input?: string | Buffer;
  env?: Record<string, string | undefined>;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: "1", ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : -1), out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8") }),
    );
    child.stdin.on("error", () => {}); // a process that exits without reading its input
    child.stdin.end(options.input ?? "");
  });
}
