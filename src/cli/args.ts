// Errors of Node's argument parser, said again for the command at hand.
import { UsageError } from "../core/errors.ts";
import { closest } from "../values/values.ts";

/** Node's parse errors reworded for the command at hand, with the nearest option. */
export function argumentError(error: unknown, command: string, help: string): unknown {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS")) return error;
  const message = (error as Error).message;
  const seeHelp = `see rigging ${command} --help`;
  const option = /'([^']+)'/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const name = option.split("=")[0];
    const near = closest(name, [...new Set(help.match(/(?<![\w-])--?[A-Za-z][\w-]*/g) ?? [])]);
    return new UsageError(`unknown option ${name} for rigging ${command}${near ? ` (did you mean ${near}?)` : ""}; ${seeHelp}`);
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const flag = option.replace(/ <value>$/, "");
    if (/argument missing/.test(message)) return new UsageError(`option ${flag} needs a value; ${seeHelp}`);
    if (/does not take an argument/.test(message)) return new UsageError(`option ${flag} takes no value; ${seeHelp}`);
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return new UsageError(`rigging ${command} takes no argument ${JSON.stringify(option)}; ${seeHelp}`);
  return new UsageError(`${message.split(". ")[0]}; ${seeHelp}`);
}

/** `-f FMT` for --format, kept one release with a warning: -f names an input file, as in kubectl and rigging's other commands. */
export function deprecatedShortFormat(args: readonly string[], command: string, warn: (text: string) => void): void {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  if (options.some((arg) => arg === "-f" || (arg.startsWith("-f") && !arg.startsWith("--"))))
    warn(`warning: rigging ${command} -f is deprecated: write --format; -f will name an input file, as in rigging render, check, pin and fn\n`);
}
