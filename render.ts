// The seed's own command, `bun run render.ts VALUES`: the same as
// `rigging render VALUES`.
import { main } from "./src/cli/main.ts";

main(["render", ...process.argv.slice(2)]);
