// What every preflight shares: options, one deadline, redacted output, and PEM
// from a file or a Secret or ConfigMap export.
import { UsageError } from "../core/errors.ts";
import { LibraryOutput } from "../preflight/capture.ts";
import {
  bounded,
  DEFAULT_TIMEOUT_SECONDS,
  Deadline,
  describeError,
  exitCode,
  formatResults,
  resultsNote,
  readSecretFile,
  redactor,
  TimeoutError,
  type CheckResult,
  type Outcome,
} from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { decode, exportKey, readExport, type ObjectExport } from "../preflight/exports.ts";
import { paint, type Io } from "./io.ts";

export const COMMON_HELP = `Every preflight:
      --format FMT     text (default) or json (an array of {id, check, outcome, message, fix});
                       -f FMT: deprecated
      --timeout SECS   one deadline for the whole run: connect, ask, close (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit codes: 0 every check passes (warnings allowed); 1 a check fails;
2 usage error, unreadable input, a server that cannot be reached or
answers wrongly, or the deadline passed; 3 internal error. With --format
json, stdout is a JSON array on exit 2 too: one entry, outcome "error".
No secret is ever printed, whatever a driver, library or server says.
D3, D5 and D6 are decisions, P9 a task, of the Compass Server-on-Kubernetes
design (rigging explain D3; docs/glossary.md).
`;

export const COMMON_OPTIONS = {
  format: { type: "string", short: "f" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Runs `work` under one deadline with all output redacted; with --format json a failure is still a JSON array naming the decision it proves. */
export async function runChecks(
  io: Io,
  subject: string | { what: string; decision: string },
  format: "text" | "json",
  timeout: number,
  work: (deadline: Deadline, secrets: string[], output: LibraryOutput) => Promise<CheckResult[]>,
): Promise<number> {
  const { what, decision } = typeof subject === "string" ? { what: subject, decision: "preflight" } : subject;
  const deadline = new Deadline(timeout);
  const secrets: string[] = [];
  const output = new LibraryOutput().start();
  let results: CheckResult[] | undefined;
  let failure: UsageError | undefined;
  let failedAt: "input" | "connection" = "connection";
  try {
    results = await work(deadline, secrets, output);
  } catch (error) {
    // A secret file or URL that is unfit is the input's fault; anything else, the server's or the network's.
    if (error instanceof UsageError && !(error instanceof TimeoutError)) failedAt = "input";
    failure = failed(error, what, redactor(secrets));
  } finally {
    output.stop();
    deadline.end();
  }
  const redact = (text: string) => printable(redactor(secrets)(text));
  // A library's own words are for debugging, and shown only then; a failure they explain says so itself.
  if (process.env.RIGGING_DEBUG) for (const message of output.messages()) io.err(`debug ${bounded(redact(message))}\n`);
  if (failure) {
    if (format === "json") io.out(errorEntry(decision, failedAt, failure.message));
    throw failure;
  }
  const redacted = results!.map((r) => ({ ...r, message: redact(r.message), ...(r.fix ? { fix: redact(r.fix) } : {}) }));
  io.out(redactor(secrets)(formatResults(redacted, format, (outcome) => label(outcome, io))));
  io.err(resultsNote(redacted, format));
  return exitCode(redacted);
}

/** The one line (exit 2) a failed run ends with, the secrets removed. */
export function failed(error: unknown, what: string, redact: (text: string) => string): UsageError {
  if (error instanceof UsageError && !(error instanceof TimeoutError)) return new UsageError(describeError(error, redact));
  return new UsageError(`cannot check ${what}: ${describeError(error, redact)}`);
}

/** The JSON a run that could not judge prints: one entry, outcome "error", the error line as its message. */
export function errorEntry(decision: string, check: "usage" | "input" | "connection", message: string): string {
  return formatResults([{ id: decision, check, outcome: "error", message }], "json", () => "");
}

/** The four-letter label of an outcome, coloured on a terminal. */
export function label(outcome: Outcome, io: Io): string {
  if (outcome === "pass") return paint(io, 32, "ok  ");
  if (outcome === "warn") return paint(io, 33, "warn");
  return outcome === "note" ? "note" : paint(io, 31, outcome === "error" ? "ERR " : "FAIL");
}

export function usageCheck(positionals: string[], expected: number, usage: string): void {
  if (positionals.length > expected) throw new UsageError(`unexpected argument ${printable(JSON.stringify(positionals[expected]))}; usage: ${usage}`);
}

/** PEM from a file or a Secret/ConfigMap export; a secret file's content joins the secrets. */
export async function readMaterial(file: string, key: string, deadline: Deadline, secrets: string[], secret: boolean): Promise<string> {
  const text = decode(await readSecretFile(file, deadline, 1024 * 1024), file);
  if (secret) secrets.push(text);
  if (text.includes("-----BEGIN ")) return text;
  let exported: ObjectExport;
  try {
    exported = await readExport(file, deadline);
  } catch {
    throw new UsageError(`${printable(file)}: holds neither PEM nor a Secret or ConfigMap export`);
  }
  const keys = [...exported.data.keys()];
  const value = exportKey(exported, keys.length === 1 ? keys[0] : key).toString("utf8");
  if (secret) secrets.push(value);
  return value;
}
