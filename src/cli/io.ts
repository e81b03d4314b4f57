// Output streams for the commands: stdout carries only data, stderr
// everything meant for people. Colour only on a TTY and never with NO_COLOR.
import { writeSync } from "node:fs";

export interface Io {
  out(text: string): void;
  err(text: string): void;
  color: boolean;
  /** stderr is a terminal (progress lines are shown only then). */
  tty?: boolean;
}

export function processIo(): Io {
  const out = writer(1, () => process.stdout);
  const err = writer(2, () => process.stderr);
  return {
    out,
    err,
    // Read on first use: process.stderr loads Node's stream modules, which a render that succeeds never needs.
    get color() {
      return Boolean(process.stderr.isTTY) && !("NO_COLOR" in process.env) && process.env.TERM !== "dumb";
    },
    get tty() {
      return Boolean(process.stderr.isTTY);
    },
  };
}

/** Whether this may be a worker thread, without loading node:worker_threads. */
export function mayBeWorkerThread(): boolean {
  return Boolean((process.chdir as { disabled?: boolean }).disabled);
}

/** Writes stdout/stderr synchronously as Node's streams do on Linux, without loading those streams; on EAGAIN it falls back to the stream, keeping order. */
function writer(fd: 1 | 2, stream: () => NodeJS.WriteStream): (text: string) => void {
  let open = true;
  let direct = !mayBeWorkerThread();
  let watched = false;
  const closed = () => void (open = false);
  const throughStream = (chunk: string | Uint8Array) => {
    if (!watched) {
      watched = true;
      watchForClosedReader(stream(), closed);
    }
    stream().write(chunk);
  };
  return (text) => {
    if (!open) return;
    if (!direct) return throughStream(text);
    const bytes = Buffer.from(text);
    let done = 0;
    try {
      while (done < bytes.length) done += writeSync(fd, bytes, done);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return writeFailed(error as NodeJS.ErrnoException, fd, closed);
      // The rest goes through the stream; what was written stays written.
      direct = false;
      throughStream(bytes.subarray(done));
    }
  };
}

/** The exit code for a write that failed at once, set as the process ends. */
function writeFailed(error: NodeJS.ErrnoException, fd: 1 | 2, closed: () => void): void {
  closed();
  if (error.code === "EPIPE") return;
  process.once("exit", () => {
    process.exitCode = 3;
  });
  if (fd === 1 && !process.stderr.destroyed) process.stderr.write(`error cannot write the output: ${error.message}\n`);
}

/** A reader that went away (`| head`) makes writes fail with EPIPE; stop writing quietly and keep the command's exit code. */
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
