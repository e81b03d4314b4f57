// The RIGGING_BUILD constant both builds define (see src/core/build.ts):
// every file of examples/ as it is at build time, so that `init` needs no
// file beside the command.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function buildInfo({ binary }) {
  const examples = {};
  for (const name of readdirSync("examples").sort()) {
    if (/\.(ya?ml|json)$/.test(name)) examples[`examples/${name}`] = readFileSync(join("examples", name), "utf8");
  }
  return JSON.stringify({ binary, examples });
}
