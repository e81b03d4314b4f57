// Runs the CLI in-process with captured output streams.
import { run } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export function runCaptured(args: string[]): Captured {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), color: false };
  const code = run(args, io);
  return { code, out, err };
}
