// Output streams for the commands: stdout carries only data, stderr
// everything meant for people. Colour only on a TTY and never with NO_COLOR.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Io {
  out(text: string): void;
  err(text: string): void;
  color: boolean;
  /** stderr is a terminal (progress lines are shown only then). */
  tty?: boolean;
}

export function processIo(): Io {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    color: Boolean(process.stderr.isTTY) && !("NO_COLOR" in process.env) && process.env.TERM !== "dumb",
    tty: Boolean(process.stderr.isTTY),
  };
}

export function paint(io: Io, code: number, text: string): string {
  return io.color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** The package root (where examples/ lives), from src/ or from dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "examples"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the rigging package root (examples/ is missing)");
}
