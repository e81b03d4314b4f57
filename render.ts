// The seed's own command, `bun run render.ts VALUES`: the same as
// `rigging render VALUES`.
import { run } from "./src/cli/main.ts";

process.exitCode = run(["render", ...process.argv.slice(2)]);
