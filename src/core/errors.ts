// Three kinds of failure, three exit codes (the command contract):
// 1 for what the user asked to render or check, 2 for how they asked,
// 3 for our own bugs. Anything else that escapes is also reported as 3.
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

export class InternalError extends Error {
  readonly exitCode = 3;
}
