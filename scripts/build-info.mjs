// The constants the builds define: RIGGING_BUILD and RIGGING_EXAMPLES.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function buildInfo({ binary }) {
  return JSON.stringify({ binary });
}

export function buildExamples() {
  const examples = {};
  for (const name of readdirSync("examples").sort()) {
    if (/\.(ya?ml|json)$/.test(name)) examples[`examples/${name}`] = readFileSync(join("examples", name), "utf8");
  }
  return JSON.stringify(examples);
}
