// `rigging render` alone: the entry of the Bun build behind `bun run
// render.ts`, so Bun loads a smaller bundle without the other commands.
import { exitWith, report, runCommand } from "./command.ts";
import { processIo } from "./io.ts";
import { RENDER_HELP, renderCommand } from "./render.ts";
import { InternalError } from "../core/errors.ts";

/** Runs ["render", ...ARGS] (render.ts's argv) and sets the exit code. */
export function main(argv: string[]): void {
  const io = processIo();
  const [name, ...rest] = argv;
  exitWith(
    name === "render"
      ? runCommand(name, { run: renderCommand, help: RENDER_HELP }, rest, io)
      : report(new InternalError(`this build runs only render, not ${name}`), io),
  );
}
