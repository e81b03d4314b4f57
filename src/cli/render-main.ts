// `rigging render` alone, as src/cli/main.ts runs it: the entry of the Bun
// build that `bun run render.ts` runs (scripts/build.mjs). It holds none of
// the other commands, so Bun reads and loads a smaller bundle: main.js
// 451 -> 348 kB, its bytecode 1153 -> 858 kB; `bun run render.ts
// examples/compass-runner.yaml` 3350 -> 3230 page faults (/usr/bin/time %R),
// 117.4 -> 115.9 ms of wall time and 0.97x its CPU time (medians of 50
// alternated runs against the build of src/cli/main.ts, same directory).
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
