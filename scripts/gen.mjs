// `npm run gen`: every generated file the repository commits, written by its
// generator, in order (sources first, the docs last). `npm test` checks them
// first (scripts/check-generated.mjs, the same list with --check).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiPins } from "./kube-openapi.mjs";

const ROOT = join(fileURLToPath(import.meta.url), "..", "..");
const TSX = ["--import", "tsx"];

/** The generators: what each writes, and the command that runs it (with --check, it compares instead). */
export const GENERATORS = [
  { name: "yaml-tags", writes: "src/parse/yaml-tags.ts", args: [...TSX, "scripts/gen-yaml-tags.ts"] },
  { name: "validators", writes: "src/systems/validators.ts, src/systems/*/generated-validator.ts", args: [...TSX, "scripts/gen-validators.ts"] },
  { name: "integrations", writes: "integrations/argocd/plugin.yaml, action.yml", args: [...TSX, "scripts/gen-integrations.ts"] },
  { name: "kube-schemas", writes: "kube-schemas/", args: ["scripts/gen-kube-schemas.mjs"], kube: true },
  { name: "docs", writes: "the generated tables and blocks of docs/", args: [...TSX, "scripts/gen-docs.ts"] },
];

const SPECS = "scripts/kube-specs";

/** What the kube-schemas generator reads that is missing here: the pinned clients, and the OpenAPI modules in Go's cache when `go` is there to read them. */
export function missingKubeInputs({ withGoModules }) {
  const missing = [];
  if (!existsSync(join(ROOT, SPECS, "node_modules"))) missing.push(`${SPECS}/node_modules`);
  if (!withGoModules) return missing;
  const cache = spawnSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" });
  if (cache.error || cache.status !== 0) return [...missing, "the go command"];
  for (const { tag } of openApiPins(join(ROOT, SPECS, "openapi.sum")).values()) {
    if (!existsSync(join(cache.stdout.trim(), "k8s.io", `kubernetes@${tag}`))) missing.push(`k8s.io/kubernetes@${tag} in Go's module cache`);
  }
  return missing;
}

/** Runs a generator with Node, from the repository's root. */
export function runGenerator(generator, extra = [], options = {}) {
  return spawnSync(process.execPath, [...generator.args, ...extra], { cwd: ROOT, stdio: "inherit", ...options });
}

/** GOPROXY=off keeps the go command to its module cache: `npm run gen` downloads nothing. */
const OFFLINE = { env: { ...process.env, GOPROXY: "off" } };

function main() {
  for (const generator of GENERATORS) {
    console.log(`gen: ${generator.name} (${generator.writes})`);
    if (generator.kube) {
      const missing = missingKubeInputs({ withGoModules: true });
      if (missing.length > 0) {
        console.log(`gen: kube-schemas skipped, its inputs are missing (${missing.join("; ")}): \`npm run schemas\` installs them and writes kube-schemas/`);
        continue;
      }
      // Regenerated only when stale: rewriting 14 unchanged files would make the next build think dist/ is stale.
      if (runGenerator(generator, ["--check"], { ...OFFLINE, stdio: ["ignore", "inherit", "ignore"] }).status === 0) continue;
    }
    const run = runGenerator(generator, [], OFFLINE);
    if (run.status !== 0) {
      console.error(`gen: ${generator.name} failed (exit ${run.status ?? run.signal})`);
      process.exit(1);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
