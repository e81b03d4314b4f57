// What every `rigging preflight` check shares on the command line: its
// common options and help, the run under one deadline whose output passes
// through the redactor of the secrets met on the way, and reading PEM from a
// file or from a Secret or ConfigMap export.
import { UsageError } from "../core/errors.ts";
import {
  DEFAULT_TIMEOUT_SECONDS,
  Deadline,
  describeError,
  exitCode,
  formatResults,
  printable,
  readSecretFile,
  redactor,
  TimeoutError,
  type CheckResult,
  type Outcome,
} from "../preflight/common.ts";
import { decode, exportKey, readExport, type ObjectExport } from "../preflight/exports.ts";
import { paint, type Io } from "./io.ts";

export const COMMON_HELP = `Every preflight:
  -f, --format FMT     text (default) or json (an array of {id, check, outcome, message, fix})
      --timeout SECS   one deadline for the whole run: connect, ask, close (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit codes: 0 every check passes (warnings allowed); 1 a check fails;
2 usage error, unreadable input, a server that cannot be reached or
answers wrongly, or the deadline passed; 3 internal error. No secret is
ever printed.
`;

export const COMMON_OPTIONS = {
  format: { type: "string", short: "f" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/**
 * Runs `work` under one deadline. Whatever it prints or throws passes
 * through the redactor of the secrets it collected on its way.
 */
export async function runChecks(
  io: Io,
  what: string,
  format: "text" | "json",
  timeout: number,
  work: (deadline: Deadline, secrets: string[]) => Promise<CheckResult[]>,
): Promise<number> {
  const deadline = new Deadline(timeout);
  const secrets: string[] = [];
  try {
    const redact = (text: string) => printable(redactor(secrets)(text));
    const results = (await work(deadline, secrets)).map((r) => ({ ...r, message: redact(r.message), ...(r.fix ? { fix: redact(r.fix) } : {}) }));
    io.out(redactor(secrets)(formatResults(results, format, (outcome) => label(outcome, io))));
    return exitCode(results);
  } catch (error) {
    const redact = redactor(secrets);
    if (error instanceof TimeoutError) throw new UsageError(`cannot check ${what}: ${describeError(error, redact)}`);
    if (error instanceof UsageError) throw new UsageError(describeError(error, redact));
    throw new UsageError(`cannot check ${what}: ${describeError(error, redact)}`);
  } finally {
    deadline.end();
  }
}

/** The four-letter label of an outcome, coloured on a terminal. */
export function label(outcome: Outcome, io: Io): string {
  return outcome === "pass" ? paint(io, 32, "ok  ") : outcome === "warn" ? paint(io, 33, "warn") : outcome === "note" ? "note" : paint(io, 31, "FAIL");
}

export function usageCheck(positionals: string[], expected: number, usage: string): void {
  if (positionals.length > expected) throw new UsageError(`unexpected argument ${JSON.stringify(printable(positionals[expected]))}; usage: ${usage}`);
}

/**
 * PEM from a file, or from a Secret or ConfigMap export (its `key`).
 * A secret file's content joins the secrets, whatever it holds.
 */
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
