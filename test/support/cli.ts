// Running rigging in tests: in-process through `run` (fast, for most
// cases) and as a real process of the built bundle or of Bun. The bundle
// is rebuilt, when stale, once before the test files start
// (global-setup.ts); rebuilding it from parallel test files would race
// with the processes that run it.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "../../src/cli/main.ts";

export interface Result {
  code: number;
  out: string;
  err: string;
}

export function runInProcess(args: string[], options: { tty?: boolean } = {}): Result {
  let out = "";
  let err = "";
  const code = run(args, { out: (t) => void (out += t), err: (t) => void (err += t), color: false, tty: options.tty ?? false });
  // In-process runs use the TypeScript sources, which never go parallel.
  if (typeof code !== "number") throw new Error("run() answered asynchronously in-process");
  return { code, out, err };
}

/** `runInProcess` for a run that may answer asynchronously (it builds a kustomization). */
export async function runInProcessAsync(args: string[]): Promise<Result> {
  let out = "";
  let err = "";
  const code = await run(args, { out: (t) => void (out += t), err: (t) => void (err += t), color: false, tty: false });
  return { code, out, err };
}

export const ROOT = join(import.meta.dirname, "..", "..");
// The command package.json names in "bin" (dist/rigging.mjs runs it too).
export const CLI = join(ROOT, "dist", "rigging.cjs");
export const BUN = join(ROOT, "node_modules", ".bin", "bun");

export function runProcess(command: string, args: string[], input?: string | Buffer, env: Record<string, string> = {}): Result {
  const r = spawnSync(command, args, { cwd: ROOT, input, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

export function runCli(args: string[], input?: string | Buffer, env: Record<string, string> = {}): Result {
  return runProcess(process.execPath, [CLI, ...args], input, env);
}

/** Writes `text` to a fresh temporary file and returns its path. */
export function tempFile(text: string | Buffer, name = "values.yaml"): string {
  const path = join(mkdtempSync(join(tmpdir(), "rigging-test-")), name);
  writeFileSync(path, text);
  return path;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "rigging-test-"));
}

/** A PATH on which `rigging` (a script in `work/bin`) runs the built bundle, as the docs' commands name it. */
export function riggingOnPath(work: string): string {
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rigging"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "rigging"), 0o755);
  return `${bin}:${process.env.PATH}`;
}
