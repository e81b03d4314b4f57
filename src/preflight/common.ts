// What every live check shares: one deadline, one result shape, output free of
// secrets and control characters, bounded secret files.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { designIdsNote } from "../rules/design-ids.ts";

/** A note says what was left alone and why; only a failure sets exit 1, and an error (exit 2, JSON only) says the checks could not run. */
export type Outcome = "pass" | "fail" | "warn" | "note" | "error";

/** One judged fact; a failed one says how to fix it. */
export interface CheckResult {
  /** The requirement (CS-12) or design decision (D10) it proves. */
  id: string;
  /** What was checked, in a few words. */
  check: string;
  outcome: Outcome;
  message: string;
  fix?: string;
}

export const DEFAULT_TIMEOUT_SECONDS = 10;
/** The most a secret file (a URL, a password) may hold. */
export const SECRET_FILE_BYTES = 64 * 1024;

/** The overall deadline ran out: exit 2, like any server that cannot be checked. */
export class TimeoutError extends UsageError {}

/** One deadline over a whole run; when it passes, pending steps fail and their sockets are destroyed. */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly ends: number;

  constructor(readonly seconds: number) {
    this.ends = Date.now() + seconds * 1000;
    this.timer = setTimeout(() => this.controller.abort(new TimeoutError(`no answer within ${seconds} s (--timeout ${seconds})`)), seconds * 1000);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left, at least 1 (for libraries that take a timeout of their own). */
  remainingMs(): number {
    return Math.max(1, this.ends - Date.now());
  }

  /** `work`, or the timeout error if the deadline passes first; `release` frees what `work` holds. */
  race<T>(work: Promise<T>, release: () => void = () => {}): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) {
      release();
      work.catch(() => {});
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        release();
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      work.then(
        (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
        (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
      );
    });
  }

  /** Waits `ms`, or less when the deadline passes first. */
  sleep(ms: number): Promise<void> {
    return this.race(new Promise((resolve) => setTimeout(resolve, Math.min(ms, this.remainingMs())).unref()));
  }

  end(): void {
    clearTimeout(this.timer);
  }
}

/** `--timeout SECONDS`: a positive number of seconds, at most an hour. */
export function parseTimeout(text: string | undefined, fallback = DEFAULT_TIMEOUT_SECONDS): number {
  if (text === undefined) return fallback;
  const seconds = /^\d{1,4}(\.\d{1,3})?$/.test(text) ? Number(text) : NaN;
  if (!(seconds > 0 && seconds <= 3600))
    throw new UsageError(`--timeout ${printable(text)}: expected seconds, more than 0 and at most 3600, such as --timeout 10`);
  return seconds;
}

export function parseFormat(text: string | undefined): "text" | "json" {
  if (text === undefined || text === "text" || text === "json") return text ?? "text";
  throw new UsageError(`--format ${printable(text)}: expected text or json`);
}

/** Removes every secret from `text` in any form a library might print it. */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
    try {
      forms.add(decodeURIComponent(secret));
    } catch {
      // not percent-encoded: the plain form is there already
    }
  }
  // Longest first, so that a secret inside another is not left half-hidden.
  const ordered = [...forms].filter(Boolean).sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((out, form) => (out.includes(form) ? out.split(form).join("***") : out), text);
}

/** The most of a server's or library's words a message quotes. */
export const QUOTED_CHARACTERS = 1000;

/** An error's message, one printable line with the secrets removed, cut (after the redactor) to a bound. */
export function describeError(error: unknown, redact: (text: string) => string): string {
  const e = error as { message?: unknown; code?: unknown; errors?: unknown[] };
  let message = typeof e?.message === "string" && e.message ? e.message : String(error);
  // Node reports a refused dual-stack dial as an AggregateError without a message.
  if (!e?.message && Array.isArray(e?.errors) && e.errors.length > 0) message = (e.errors as { message?: string }[]).map((x) => x.message).join("; ");
  return bounded(printable(redact(message)));
}

/** `text` up to QUOTED_CHARACTERS, saying how long it was when it is cut. */
export function bounded(text: string): string {
  return text.length <= QUOTED_CHARACTERS ? text : `${text.slice(0, QUOTED_CHARACTERS)}... (${text.length} characters in all)`;
}

/** The results as the user asked for them: text lines or a JSON array. */
export function formatResults(results: readonly CheckResult[], format: "text" | "json", label: (outcome: Outcome) => string): string {
  if (format === "json") return `${JSON.stringify(results, null, 2)}\n`;
  return results.map((r) => `${label(r.outcome)} ${r.id} ${r.check}: ${r.message}${r.fix ? ` (fix: ${r.fix})` : ""}\n`).join("");
}

/** For a text report, the line saying whose its decision IDs are (for stderr). */
export function resultsNote(results: readonly CheckResult[], format: "text" | "json"): string {
  const note = format === "text" ? designIdsNote(results.map((r) => `${r.id} ${r.message} ${r.fix ?? ""}`).join("\n")) : undefined;
  return note ? `${note}\n` : "";
}

/** 0 when nothing failed (warnings allowed), 1 otherwise. */
export function exitCode(results: readonly CheckResult[]): number {
  return results.some((r) => r.outcome === "fail") ? 1 : 0;
}

/** Reads a secret file bounded and without blocking on a FIFO. */
export async function readSecretFile(file: string, deadline: Deadline, limit = SECRET_FILE_BYTES): Promise<Buffer> {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UsageError(`${printable(file)}: cannot read: ${reason(error)}`);
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new UsageError(`${printable(file)}: is a directory, expected a file`);
    const buffer = Buffer.alloc(limit + 1);
    let total = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, total, buffer.length - total, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw new UsageError(`${printable(file)}: cannot read: ${reason(error)}`);
        await deadline.sleep(10);
        continue;
      }
      if (read === 0) break;
      total += read;
      if (total > limit) throw new UsageError(`${printable(file)}: holds more than ${limit / 1024} KiB; a secret file holds one short value`);
    }
    return buffer.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES"
      ? "permission denied"
      : code === "EISDIR"
        ? "is a directory, expected a file"
        : String(code ?? (error as Error).message);
}
