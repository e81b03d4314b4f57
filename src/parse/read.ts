// Reading an input as bounded UTF-8 text: the size limit holds before any byte is parsed.
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import { FILE_LIMIT, LIMITS } from "./limits.ts";

/** Reads a file (or stdin for `-`) as UTF-8 text, refusing what is not text; a leading byte-order mark is dropped unless `keepBom`. */
export function readText(file: string, { keepBom = false }: { keepBom?: boolean } = {}): string {
  const name = file === "-" ? "<stdin>" : file;
  let bytes: Buffer;
  try {
    bytes = readBounded(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES"
          ? "permission denied"
          : code === "ELOOP"
            ? "a symbolic link loop"
            : code === "EISDIR"
              ? "is a directory, expected a file"
              : code === "ENOTDIR"
                ? "a part of the path is not a directory"
                : code === "ENAMETOOLONG"
                  ? "the path is too long"
                  : String((error as Error).message);
    throw new UsageError(`${name}: cannot read: ${reason}`);
  }
  if (bytes.includes(0)) throw new UsageError(`${name}: is a binary file, expected YAML or JSON text`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: keepBom }).decode(bytes);
  } catch {
    throw new UsageError(`${name}: is not valid UTF-8 text, expected YAML or JSON`);
  }
}

/** Reads at most the file limit plus one byte whatever the file is; one shared buffer, and fstat only once it is full. */
const POOL = Buffer.allocUnsafe(256 * 1024);

function readBounded(file: string): Buffer {
  const name = file === "-" ? "<stdin>" : file;
  const fd = file === "-" ? 0 : open(file);
  try {
    let buffer: Buffer = POOL;
    let total = 0;
    let idle = 0;
    for (;;) {
      if (total === buffer.length) {
        if (buffer === POOL && fd !== 0) {
          const { size } = fstatSync(fd);
          if (size > LIMITS.fileBytes) throw new UsageError(`${file}: ${size} bytes is over ${FILE_LIMIT}`);
        }
        buffer = grown(buffer, total);
      }
      let read: number;
      try {
        read = readSync(fd, buffer, total, buffer.length - total, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") {
          // A non-blocking stdin with no data yet: wait for it without spinning.
          idle = Math.min(idle * 2 || 1, 50);
          sleep(idle);
          continue;
        }
        if (code === "EOF") break;
        if (code === "EISDIR" && fd !== 0) throw new UsageError(`${file}: is a directory, expected a file`);
        throw error;
      }
      if (read === 0) break;
      idle = 0;
      total += read;
      if (total > LIMITS.fileBytes) throw new UsageError(`${name}: over ${FILE_LIMIT}`);
    }
    return buffer.subarray(0, total);
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

/** Opens a file; on failure says why (a directory, over the limit, or the open's error). */
function open(file: string): number {
  try {
    return openSync(file, "r");
  } catch (error) {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new UsageError(`${file}: is a directory, expected a file`);
    if (stat.size > LIMITS.fileBytes) throw new UsageError(`${file}: ${stat.size} bytes is over ${FILE_LIMIT}`);
    throw error;
  }
}

/** A larger buffer holding the `total` bytes read so far: four times as large, at most the limit plus one byte. */
function grown(buffer: Buffer, total: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.min(buffer.length * 4, LIMITS.fileBytes + 1));
  buffer.copy(larger, 0, 0, total);
  return larger;
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` milliseconds, using no CPU meanwhile. */
function sleep(ms: number): void {
  Atomics.wait(SLEEPER, 0, 0, ms);
}
