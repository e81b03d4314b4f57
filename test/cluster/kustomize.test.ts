// Real kustomize runs rigging as an exec KRM function, from the generator and check recipes of docs/integrations/kustomize.md as written.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CLI, ROOT, riggingOnPath, tempDir } from "../support/cli.ts";
import { testTool } from "./support/control-plane.ts";
import { run, runShell } from "./support/run.ts";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> } };
type WithVolumes = { spec: { template: { spec: { volumes: { projected?: { sources: { serviceAccountToken?: { audience?: string } }[] } }[] } } } };

const DOC = readFileSync(join(ROOT, "docs", "integrations", "kustomize.md"), "utf8");
const CHECKSUM = "rigging.dev/rendered-sha256";

/** A one-line shell command of the doc, found by `pattern`. */
function docCommand(pattern: RegExp): string {
  const found = pattern.exec(DOC);
  if (!found) throw new Error(`docs/integrations/kustomize.md: no command matching ${pattern}`);
  return found[0];
}

/** The YAML blocks of the doc whose first line is `# NAME`, in order. */
function docFiles(name: string): string[] {
  const blocks = [...DOC.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const files = blocks.filter((b) => b.startsWith(`# ${name}\n`));
  if (files.length === 0) throw new Error(`docs/integrations/kustomize.md: no yaml block "# ${name}"`);
  return files;
}

const FN_SCRIPT = docCommand(/^printf .* > rigging-fn && chmod \+x rigging-fn$/m);
const RUNNER_YAML = docCommand(/^rigging init CompassRunner \| sed .* > runner\.yaml$/m);
const BUILD_FLAGS = docCommand(/^kustomize build .* \.$/m)
  .split(/\s+/)
  .slice(2, -1);
const [GENERATOR_KUSTOMIZATION, VALIDATOR_KUSTOMIZATION] = docFiles("kustomization.yaml");
const [CHECK_YAML] = docFiles("check.yaml");

let work: string;
let PATH: string;
let recipe: string;
let kustomize: string;
let rendered: Obj[];

/** Objects by kind, namespace and name. */
function byIdentity(objects: Obj[]): Map<string, Obj> {
  const map = new Map<string, Obj>();
  for (const o of objects) map.set(`${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`, o);
  expect(map.size).toBe(objects.length);
  return map;
}

function objectsOf(text: string): Obj[] {
  const docs = parseAllDocuments(text);
  for (const doc of docs) expect(doc.errors, String(doc.errors[0])).toEqual([]);
  return docs.map((d) => d.toJS() as Obj | null).filter((o): o is Obj => o !== null && typeof o === "object");
}

/** An object of the build without the checksum rigging fn puts on what it renders, which must be there. */
function withoutChecksum(o: Obj): Obj {
  const { [CHECKSUM]: checksum, ...annotations } = o.metadata.annotations ?? {};
  expect(checksum, `${o.kind}/${o.metadata.name}`).toMatch(/^[0-9a-f]{64}$/);
  const metadata = { ...o.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
  return { ...o, metadata };
}

/** Asserts the build printed exactly the objects `rigging render runner.yaml` prints. */
function expectRenderedObjects(out: string): void {
  const built = byIdentity(objectsOf(out).map(withoutChecksum));
  const expected = byIdentity(rendered);
  expect([...built.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [id, o] of expected) expect(built.get(id), id).toEqual(o);
}

/** A copy of the recipe's files with `files` added: a kustomization directory. */
function kustomizationDir(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  cpSync(recipe, dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const build = (dir: string) => run(kustomize, ["build", ...BUILD_FLAGS, "."], { cwd: dir, env: { PATH } });

/** A JSON 6902 patch that replaces the Runner DaemonSet's projected token audience, after testing the one rendered. */
function wrongAudiencePatch(audience: string): string {
  const daemonSet = rendered.find((o) => o.kind === "DaemonSet");
  if (!daemonSet) throw new Error("rigging render printed no DaemonSet");
  const volumes = (daemonSet as unknown as WithVolumes).spec.template.spec.volumes;
  for (const [i, volume] of volumes.entries())
    for (const [j, source] of (volume.projected?.sources ?? []).entries()) {
      const was = source.serviceAccountToken?.audience;
      if (!was) continue;
      const path = `/spec/template/spec/volumes/${i}/projected/sources/${j}/serviceAccountToken/audience`;
      const ops = [
        { op: "test", path, value: was },
        { op: "replace", path, value: audience },
      ];
      return `patches:\n  - target:\n      kind: DaemonSet\n      name: ${daemonSet.metadata.name}\n    patch: ${JSON.stringify(JSON.stringify(ops))}\n`;
    }
  throw new Error("the DaemonSet mounts no projected serviceAccountToken with an audience");
}

beforeAll(async () => {
  kustomize = testTool("kustomize");
  work = tempDir();
  PATH = riggingOnPath(work);
  recipe = join(work, "recipe");
  mkdirSync(recipe);
  for (const line of [FN_SCRIPT, RUNNER_YAML]) {
    const r = await runShell(line, { cwd: recipe, env: { PATH } });
    expect(r.code, `${line}\n${r.err}`).toBe(0);
  }
  const runner = parse(readFileSync(join(recipe, "runner.yaml"), "utf8"));
  expect(runner.metadata.annotations["config.kubernetes.io/function"]).toBe("exec:\n  path: ./rigging-fn\n");
  const r = await run(process.execPath, [CLI, "render", "runner.yaml"], { cwd: recipe });
  expect(r.code, r.err).toBe(0);
  rendered = objectsOf(r.out);
  expect(rendered.length).toBeGreaterThan(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("kustomize build --enable-alpha-plugins --enable-exec with rigging fn (docs/integrations/kustomize.md)", () => {
  it("as a generator: the build prints the objects rigging render prints for the same values", async () => {
    const dir = kustomizationDir("generator", { "kustomization.yaml": GENERATOR_KUSTOMIZATION });
    const r = await build(dir);
    expect(r.code, r.err).toBe(0);
    expectRenderedObjects(r.out);
  });

  it("as a check (transformers:): a clean build passes, with the rendered objects", async () => {
    const dir = kustomizationDir("check-clean", { "kustomization.yaml": VALIDATOR_KUSTOMIZATION, "check.yaml": CHECK_YAML });
    const r = await build(dir);
    expect(r.code, r.err).toBe(0);
    expectRenderedObjects(r.out);
  });

  it("as a check (transformers:): a Runner with a wrong token audience stops the build with rigging's CR-03 message", async () => {
    const kustomization = `${VALIDATOR_KUSTOMIZATION}${wrongAudiencePatch("not-the-runner")}`;
    const dir = kustomizationDir("check-faulty", { "kustomization.yaml": kustomization, "check.yaml": CHECK_YAML });
    const r = await build(dir);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/^error .*CR-03/m);
    expect(r.err).toMatch(/not-the-runner/);
  });
});
