// One command run as `rigging` runs it: the exit code, and the last defence
// that turns any error into one clear line instead of a stack trace.
import { bounded } from "../core/diagnostic.ts";
import { InternalError, internalErrorLine, UsageError, ValuesError } from "../core/errors.ts";
import { printable, printableLines } from "../core/printable.ts";
import { argumentError } from "./args.ts";
import { paint, type Io } from "./io.ts";

export type Command = (args: string[], io: Io) => number | Promise<number>;

/** Runs `command` (named `name`, with its help) on `args`; a long fleet answers later. */
export function runCommand(name: string, command: { run: Command; help: string }, args: string[], io: Io): number | Promise<number> {
  let code: number | Promise<number>;
  try {
    code = command.run(args, io);
  } catch (error) {
    return report(argumentError(error, name, command.help), io);
  }
  return typeof code === "number" ? code : code.catch((error) => report(error, io));
}

/** Sets the process's exit code when it is known. */
export function exitWith(code: number | Promise<number>): void {
  if (typeof code === "number") process.exitCode = code;
  else void code.then((c) => (process.exitCode = c));
}

/** Every error ends as lines for people and an exit code; a stack only with RIGGING_DEBUG. */
export function report(error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`${paint(io, 31, "error")} ${printable(bounded(error.message))}\n`);
    return 2;
  }
  if (error instanceof ValuesError) return 1;
  const message = error instanceof InternalError ? error.message : internalErrorLine((error as Error)?.message ?? String(error));
  io.err(`${paint(io, 31, "error")} ${printableLines(message)}\n`);
  if (process.env.RIGGING_DEBUG) io.err(`${(error as Error)?.stack ?? ""}\n`);
  return 3;
}
