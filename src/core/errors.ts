// Exit codes: 1 for what was asked to render or check, 2 for how it was
// asked, 3 for our own bugs (anything else that escapes too).
import type { Diagnostic } from "./diagnostic.ts";

export class UsageError extends Error {
  readonly exitCode = 2;
}

export class ValuesError extends Error {
  readonly exitCode = 1;
  constructor(readonly diagnostics: Diagnostic[]) {
    super(`${diagnostics.length} problem(s) in the values`);
  }
}

/** Our own bug: the message says so, and how to report it. */
export class InternalError extends Error {
  readonly exitCode = 3;
  /** `detail` is one line; `lines` follow it (the findings of a failed self-check). */
  constructor(detail: string, lines: readonly string[] = []) {
    super([internalErrorLine(detail), ...lines].join("\n"));
  }
}

/** How an internal error is reported, wherever it is caught. */
export const HOW_TO_REPORT =
  "this is a bug in rigging: please report it with the command line, the input (secrets removed) and the output of the same command run with RIGGING_DEBUG=1";

export function internalErrorLine(detail: string): string {
  return `internal error: ${detail} (${HOW_TO_REPORT})`;
}
