// `npx tsx scripts/kubeconform-schemas.ts`: kubeconform's strict JSON schemas,
// made from the OpenAPI v2 that the test API server itself serves, so that
// `npm run bench` runs kubeconform offline on the same Kubernetes version as
// `rigging check`. Written once per API server version beside the test tools
// (bench/kubeconform.mjs names the folder); an existing folder is kept.
// The converter is openapi2jsonschema from PyPI, the tool kubeconform's README
// names for Kubernetes' own OpenAPI (its scripts/openapi2jsonschema.py reads
// CustomResourceDefinitions only), installed into a virtual environment there.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
// @ts-expect-error: the bench is plain JavaScript
import { KUBE_VERSION, SCHEMAS } from "../bench/kubeconform.mjs";
import { startControlPlane } from "../test/cluster/support/control-plane.ts";

// openapi2jsonschema 0.9.1 pins PyYAML below 6, which no longer builds on current Pythons; 6.0.2 reads the same.
const PACKAGES = ["openapi2jsonschema==0.9.1", "jsonref==0.2", "click==7.1.2", "colorama==0.4.6", "PyYAML==6.0.2"];
const VENV = join(dirname(SCHEMAS), "openapi2jsonschema@0.9.1");
// Stand-alone (no $ref left), one file per kind and version, additionalProperties false: kubeconform's -strict layout.
const FLAGS = ["--kubernetes", "--expanded", "--stand-alone", "--strict"];

function run(argv: string[], cwd?: string): string {
  const r = spawnSync(argv[0], argv.slice(1), { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status ?? r.signal}:\n${(r.stderr || r.stdout).slice(-4000)}`);
  return r.stdout;
}

/** The converter's command, its virtual environment made first when missing. */
function converter(): string[] {
  // Through python -m: a script's #! line would still name the folder the environment was made in.
  const command = [join(VENV, "bin", "python"), "-m", "openapi2jsonschema.command"];
  if (existsSync(command[0])) return command;
  const part = `${VENV}.part-${process.pid}`;
  mkdirSync(dirname(VENV), { recursive: true });
  try {
    run(["python3", "-m", "venv", part]);
    // --no-deps: the versions are all named above, PyYAML's overriding the pin.
    run([join(part, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", "--no-deps", ...PACKAGES]);
    renameSync(part, VENV);
  } finally {
    rmSync(part, { recursive: true, force: true });
  }
  return command;
}

/** The API server's OpenAPI v2, saved to a file; the control plane is stopped before this returns. */
async function openapiV2(file: string): Promise<void> {
  const cp = await startControlPlane();
  try {
    const reply = await cp.api("GET", "/openapi/v2");
    if (reply.status !== 200) throw new Error(`GET /openapi/v2: ${reply.status} ${reply.text.slice(0, 300)}`);
    writeFileSync(file, reply.text);
  } finally {
    await cp.stop();
  }
}

async function main(): Promise<void> {
  if (existsSync(SCHEMAS)) {
    console.log(SCHEMAS);
    return;
  }
  const started = Date.now();
  const command = converter();
  const work = mkdtempSync(join(tmpdir(), "rigging-kubeconform-schemas-"));
  const part = `${SCHEMAS}.part-${process.pid}`;
  try {
    const spec = join(work, "openapi-v2.json");
    await openapiV2(spec);
    // The converter resolves its references against the working folder joined with -o: a relative -o.
    run([...command, "-o", basename(part), ...FLAGS, spec], dirname(SCHEMAS));
    const written = readdirSync(part).length;
    renameSync(part, SCHEMAS);
    console.error(`kubeconform-schemas: ${written} files from kube-apiserver ${KUBE_VERSION} in ${Math.round((Date.now() - started) / 1000)} s`);
    console.log(SCHEMAS);
  } finally {
    rmSync(part, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
