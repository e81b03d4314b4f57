// Runs the `rigging` command in this process with captured streams.
import { run } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function rigging(args: string[], options: { tty?: boolean } = {}): CliResult {
  let stdout = "";
  let stderr = "";
  const io: Io = { out: (t) => void (stdout += t), err: (t) => void (stderr += t), color: false, tty: options.tty ?? false };
  const code = run(args, io);
  return { code, stdout, stderr };
}
