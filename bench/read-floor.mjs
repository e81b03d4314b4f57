// `node bench/read-floor.mjs OUT`: the least any `rigging check OUT` can cost:
// js-yaml's failsafe parse of every file check reads, and nothing else.
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
