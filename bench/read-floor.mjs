// `node bench/read-floor.mjs OUT`: the least any `rigging check OUT` can
// cost, as one process: every file that check reads of a fleet's output
// (each installation's manifests.yaml and kustomization.yaml) read and
// parsed by js-yaml, the parser check uses, with its failsafe schema (every
// scalar a string: no type resolution at all), and nothing else: no rule,
// no admission policy, no position, no report. bench/run.mjs times it next
// to `rigging check` of the same directory.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FAILSAFE_SCHEMA, loadAll } from "js-yaml";

const out = process.argv[2];
let documents = 0;
for (const name of readdirSync(out)) {
  if (name.startsWith(".")) continue;
  for (const file of ["manifests.yaml", "kustomization.yaml"]) {
    loadAll(readFileSync(join(out, name, file), "utf8"), () => documents++, { schema: FAILSAFE_SCHEMA });
  }
}
if (documents === 0) throw new Error(`no document read under ${out}`);
