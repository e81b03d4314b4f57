// Running rigging as a real process without blocking the test's own event
// loop: the live tests serve registries, token fronts, TLS endpoints and
// misbehaving databases from the test process itself, and a spawnSync
// would leave them unable to answer.
import { spawn } from "node:child_process";
import { run } from "../../src/cli/main.ts";
import { CLI, ROOT, type Result } from "./cli.ts";

export function runCliAsync(args: string[], env: Record<string, string> = {}, input?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? -1 : -1), out, err }));
    child.stdin.end(input ?? "");
  });
}

/**
 * Runs rigging in this process (the TypeScript sources) and waits for its
 * answer, with `env` set for the run: for the many cases that need no
 * process of their own. A test that proves the process ends uses runCliAsync.
 */
export async function runAsync(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let out = "";
  let err = "";
  try {
    const code = await run(args, { out: (t) => void (out += t), err: (t) => void (err += t), color: false, tty: false });
    return { code, out, err };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
