// The `rigging` command: dispatch, exit codes and the last line of defence
// that turns any error into one clear line instead of a stack trace.
import { BUILD } from "../core/build.ts";
import { InternalError, UsageError, ValuesError } from "../core/errors.ts";
import { KINDS } from "../profiles/index.ts";
import { checkCommand } from "./check.ts";
import { completionCommand } from "./completion.ts";
import { explainCommand } from "./explain.ts";
import { fnCommand } from "./fn.ts";
import { isThreadWorker, runThreadWorker } from "../core/threads.ts";
import { initCommand } from "./init.ts";
import { pinCommand } from "./pin.ts";
import { preflightCommand } from "./preflight.ts";
import { paint, processIo, type Io } from "./io.ts";
import { renderCommand } from "./render.ts";
import { schemaCommand } from "./schema.ts";
import { VERSION } from "./version.ts";

export { VERSION };

const HELP = `rigging ${VERSION}: hardened Kubernetes manifests for the Compass Runner,
the Compass Server and the Rootpilot runner, from one small values file.

Usage:
  rigging render VALUES [-o DIR] [--format yaml|json]   render a values file
  rigging check FILE... [--format text|json|sarif]      check existing manifests (- for stdin)
  rigging explain [RULE-ID]                             why a rule exists and its fix; all rules
  rigging schema [KIND]                                 print a values JSON Schema (all kinds without KIND)
  rigging init KIND                                     print an example values file
  rigging preflight postgres|tls|nats                   check the database, certificate or NATS live
  rigging pin VALUES [--check]                          pin image tags to digests (D8-D10)
  rigging fn < resource-list.yaml                       a KRM function for kpt and kustomize
  rigging completion bash|zsh|fish                      print a shell completion script
  rigging help | --help | --version

Kinds: ${KINDS.join(", ")}
Run 'rigging COMMAND --help' for a command's options.
Exit codes: 0 success; 1 invalid values or findings; 2 usage error; 3 internal error.
`;

type Command = (args: string[], io: Io) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  render: renderCommand,
  check: checkCommand,
  explain: explainCommand,
  schema: schemaCommand,
  init: initCommand,
  preflight: preflightCommand,
  pin: pinCommand,
  fn: fnCommand,
  completion: completionCommand,
};

/** Runs one command; a long fleet (to render or to check) runs on worker threads and answers later. */
export function run(argv: string[], io: Io = processIo()): number | Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === "help" || name === "-h" || name === "--help") return io.out(HELP), name === undefined ? 2 : 0;
    if (name === "--version" || name === "version") return io.out(`rigging ${VERSION}\n`), 0;
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}; expected one of ${Object.keys(COMMANDS).join(", ")}`);
    const code = command(rest, io);
    return typeof code === "number" ? code : code.catch((error) => report(error, io));
  } catch (error) {
    return report(error, io);
  }
}

/** The process entry: runs `argv` and sets the exit code when it is known. */
export function main(argv: string[]): void {
  const code = run(argv);
  if (typeof code === "number") process.exitCode = code;
  else void code.then((c) => (process.exitCode = c));
}

function report(error: unknown, io: Io): number {
  if (error instanceof UsageError || (error as { code?: string })?.code?.startsWith?.("ERR_PARSE_ARGS")) {
    io.err(`${paint(io, 31, "error")} ${(error as Error).message}\n`);
    return 2;
  }
  if (error instanceof ValuesError) return 1;
  const message = error instanceof InternalError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (a bug in rigging; set RIGGING_DEBUG=1 for the stack)`;
  io.err(`${paint(io, 31, "error")} ${message}\n`);
  if (process.env.RIGGING_DEBUG) io.err(`${(error as Error)?.stack ?? ""}\n`);
  return 3;
}

// Run when this file is the entry point (a built bundle or executable,
// whatever its file is called; bun src/cli/main.ts), or do a long run's
// share in a worker thread.
const entry = process.argv[1] ?? "";
if (isThreadWorker()) runThreadWorker();
else if (BUILD || /(rigging(\.mjs)?|main\.ts)$/.test(entry)) main(process.argv.slice(2));
