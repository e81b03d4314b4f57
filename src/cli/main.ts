// The `rigging` command: dispatch to each command, run with the exit codes
// and error handling of src/cli/command.ts.
import { BUILD } from "../core/build.ts";
import { UsageError } from "../core/errors.ts";
import { closest } from "../values/values.ts";
import { CHECK_HELP, checkCommand, RULES_HELP, rulesCommand } from "./check.ts";
import { DIFF_HELP, diffCommand } from "./diff.ts";
import { type Command, exitWith, report, runCommand } from "./command.ts";
import { type CommandName, usageLines } from "./commands.ts";
import { COMPLETION_HELP, completionCommand } from "./completion.ts";
import { EXPLAIN_HELP, explainCommand } from "./explain.ts";
import { FN_HELP, fnCommand } from "./fn.ts";
import { isThreadWorker, runThreadWorker, threadJob } from "../core/threads.ts";
import { INIT_HELP, initCommand } from "./init.ts";
import { PIN_HELP, pinCommand } from "./pin.ts";
import { PREFLIGHT_HELP, preflightCommand } from "./preflight.ts";
import { mayBeWorkerThread, processIo, type Io } from "./io.ts";
import { RENDER_HELP, renderCommand } from "./render.ts";
import { SCHEMA_HELP, schemaCommand } from "./schema.ts";
import { VERSION } from "./version.ts";
import { kinds } from "../systems/registry.ts";

export { VERSION };

const HELP = `rigging ${VERSION}: hardened Kubernetes manifests for the Compass Runner,
the Compass Server and the Rootpilot runner, from one small values file.

Usage:
${usageLines().join("\n")}
  rigging help [COMMAND] | --help | -V, --version

Kinds: ${kinds().join(", ")}
Run 'rigging help COMMAND' or 'rigging COMMAND --help' for a command's options.
Exit codes: 0 success; 1 invalid values or findings; 2 usage error; 3 internal error.
`;

/** A command loaded only when run or asked for help, so its code stays out of main.cjs. */
const late = (command: () => { run: Command; help: string }): CommandEntry => ({
  run: (args, io) => command().run(args, io),
  get help() {
    return command().help;
  },
  load: command,
});

/** A command; `load` loads the file of a late one (a worker thread does, for the job that file declares). */
interface CommandEntry {
  run: Command;
  help: string;
  load?: () => unknown;
}

// Typed by the list help and completion are written from: a command missing there, or here, does not compile.
const COMMANDS: Record<CommandName, CommandEntry> = {
  render: { run: renderCommand, help: RENDER_HELP },
  check: late(() => ({ run: checkCommand, help: CHECK_HELP })),
  explain: late(() => ({ run: explainCommand, help: EXPLAIN_HELP })),
  rules: late(() => ({ run: rulesCommand, help: RULES_HELP })),
  schema: late(() => ({ run: schemaCommand, help: SCHEMA_HELP })),
  init: late(() => ({ run: initCommand, help: INIT_HELP })),
  preflight: late(() => ({ run: preflightCommand, help: PREFLIGHT_HELP })),
  pin: late(() => ({ run: pinCommand, help: PIN_HELP })),
  diff: late(() => ({ run: diffCommand, help: DIFF_HELP })),
  fn: late(() => ({ run: fnCommand, help: FN_HELP })),
  completion: late(() => ({ run: completionCommand, help: COMPLETION_HELP })),
};

/** Runs one command; a long fleet (to render or to check) runs on worker threads and answers later. */
export function run(argv: string[], io: Io = processIo()): number | Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) return io.out(HELP), 2;
    // `help --help` and `help -h` ask about help itself: the overview says it.
    if (name === "help" && rest.length > 0 && rest[0] !== "--help" && rest[0] !== "-h") return io.out(commandNamed(rest[0]).help), 0;
    if (name === "help" || name === "-h" || name === "--help") return io.out(HELP), 0;
    if (name === "--version" || name === "-V" || name === "version") return io.out(`rigging ${VERSION}\n`), 0;
    return runCommand(name, commandNamed(name), rest, io);
  } catch (error) {
    return report(error, io);
  }
}

function commandNamed(name: string): CommandEntry {
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name as CommandName];
  if (name.startsWith("-")) {
    const near = closest(name, ["--help", "--version"]);
    throw new UsageError(`unknown option ${name}${near ? ` (did you mean ${near}?)` : ""}; see rigging --help`);
  }
  const near = closest(name, Object.keys(COMMANDS));
  throw new UsageError(`unknown command ${JSON.stringify(name)}${near ? ` (did you mean ${near}?)` : ""}; expected one of ${Object.keys(COMMANDS).join(", ")}`);
}

/** The process entry: runs `argv` and sets the exit code when it is known. */
export function main(argv: string[]): void {
  exitWith(run(argv));
}

/** Runs this process: a worker thread's share of a long run, or the command its arguments name. */
export function start(): void {
  if (mayBeWorkerThread() && isThreadWorker()) {
    // A job is declared by its command's file, which loads on first use.
    const command = threadJob();
    if (Object.hasOwn(COMMANDS, command)) COMMANDS[command as CommandName].load?.();
    runThreadWorker();
  } else main(process.argv.slice(2));
}

// The launcher (dist/rigging.cjs) and render.ts call in; the standalone
// executable and the TypeScript sources (bun src/cli/main.ts) start here.
const entry = process.argv[1] ?? "";
if (BUILD ? BUILD.binary : /(rigging(\.mjs)?|main\.ts)$/.test(entry)) start();
