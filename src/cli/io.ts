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
  const open = { stdout: true, stderr: true };
  watchForClosedReader(process.stdout, () => (open.stdout = false));
  watchForClosedReader(process.stderr, () => (open.stderr = false));
  return {
    out: (text) => void (open.stdout && process.stdout.write(text)),
    err: (text) => void (open.stderr && process.stderr.write(text)),
    color: Boolean(process.stderr.isTTY) && !("NO_COLOR" in process.env) && process.env.TERM !== "dumb",
    tty: Boolean(process.stderr.isTTY),
  };
}

/**
 * A reader that went away (`rigging render v.yaml | head -c 10`) makes
 * the next write fail with EPIPE, which Node reports as an unhandled
 * 'error' event with a stack. There is no one left to tell: the stream is
 * written no more, and the command ends with its own exit code.
 */
function watchForClosedReader(stream: NodeJS.WriteStream, closed: () => void): void {
  if (stream.listenerCount("error") > 0) return; // watched already (run called twice in a process)
  stream.on("error", (error: NodeJS.ErrnoException) => {
    closed();
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
    // Anything else (a full disk under `> file`) is worth a line on stderr, if it still works.
    process.exitCode = 3;
    if (stream !== process.stderr && !process.stderr.destroyed) process.stderr.write(`error cannot write the output: ${error.message}\n`);
  });
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
