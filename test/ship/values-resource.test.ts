// One values file, as `rigging init` prints it, is also a KRM resource: the
// same file renders with `rigging render`, is kpt's --fn-config, a Kptfile
// pipeline's configPath and a kustomize generator's config, and each way
// gives the same objects. Run under the real kpt.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { CLI, ROOT, runInProcess, tempDir } from "../support/cli.ts";
import { run } from "./run.ts";
import { kinds } from "../../src/systems/registry.ts";

let work: string;
let env: Record<string, string>;
let values: string;

beforeAll(async () => {
  work = tempDir();
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "rigging"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "rigging"), 0o755);
  env = { PATH: `${bin}:${process.env.PATH}` };
  const init = await run(process.execPath, [CLI, "init", "CompassRunner"]);
  expect(init.code, init.err).toBe(0);
  values = init.out;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[], input?: string) => run(process.execPath, [CLI, ...args], { cwd: work, env, input });
const kpt = (args: string[]) => run("kpt", args, { cwd: work, env });
const objectsOf = (text: string) => parseAllDocuments(text).map((d) => d.toJS());
const filesOf = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((f) => withoutPlacement(parse(readFileSync(join(dir, f), "utf8"))));
/** What a KRM function adds to an object to place it in a package, and the checksum fn keeps of what it rendered. */
function withoutPlacement(object: Record<string, any>): Record<string, any> {
  const copy = structuredClone(object);
  for (const key of ["config.kubernetes.io/path", "config.kubernetes.io/index", "internal.config.kubernetes.io/path", "rigging.dev/rendered-sha256"])
    delete copy.metadata.annotations?.[key];
  if (copy.metadata.annotations && Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  return copy;
}

describe("rigging init's output is a KRM resource", () => {
  it("has the modeline on line 1, then apiVersion, kind and metadata.name", () => {
    const lines = values.split("\n");
    expect(lines[0]).toBe("# yaml-language-server: $schema=rigging.schema.json");
    const data = parse(values);
    expect(data).toMatchObject({ apiVersion: "rigging.dev/v1alpha1", kind: "CompassRunner", metadata: { name: "compass-runner" } });
    expect(values).not.toContain("npm run render");
  });

  it("renders three ways to the same objects: render, kpt fn eval --fn-config, kpt fn render with configPath", async () => {
    const file = join(work, "values.yaml");
    writeFileSync(file, values);
    const plain = await cli(["render", file]);
    expect(plain.code, plain.err).toBe(0);
    const expected = objectsOf(plain.out);
    expect(expected.length).toBeGreaterThan(5);

    const evalPkg = join(work, "eval");
    mkdirSync(evalPkg);
    const evaluated = await kpt(["fn", "eval", evalPkg, "--exec", "rigging fn", "--fn-config", file]);
    expect(evaluated.code, evaluated.err).toBe(0);
    expect(filesOf(join(evalPkg, "compass-runner"))).toEqual(expected);

    const renderPkg = join(work, "render");
    mkdirSync(renderPkg);
    writeFileSync(join(renderPkg, "values.yaml"), values);
    writeFileSync(
      join(renderPkg, "Kptfile"),
      stringify({
        apiVersion: "kpt.dev/v1",
        kind: "Kptfile",
        metadata: { name: "pkg" },
        pipeline: { mutators: [{ exec: "rigging fn", configPath: "values.yaml" }] },
      }),
    );
    const rendered = await kpt(["fn", "render", renderPkg, "--allow-exec"]);
    expect(rendered.code, rendered.err).toBe(0);
    expect(filesOf(join(renderPkg, "compass-runner"))).toEqual(expected);
  });

  it("is a kustomize generator config once its function annotation is uncommented: the function answers the ResourceList kustomize sends", async () => {
    // kubectl kustomize skips exec functions (docs/integrations/kustomize.md); what the
    // kustomize program sends its generator is a ResourceList whose functionConfig is the file.
    const config = values
      .replace(/^ {4}# (config\.kubernetes\.io\/function: \|)$/m, "    $1")
      .replace(/^ {4}# {3}(exec:)$/m, "      $1")
      .replace(/^ {4}# {5}(path: .*)$/m, "        $1");
    const data = parse(config);
    expect(parse(data.metadata.annotations["config.kubernetes.io/function"])).toEqual({ exec: { path: "./rigging-fn" } });
    const plain = await cli(["render", "-"], config);
    expect(plain.code, plain.err).toBe(0);
    const answer = await cli(["fn"], stringify({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: [], functionConfig: data }));
    expect(answer.code, answer.err).toBe(0);
    expect(parse(answer.out).items.map(withoutPlacement)).toEqual(objectsOf(plain.out));
  });

  it("kubectl kustomize skips the exec generator without a word, as docs/integrations/kustomize.md says (use kustomize)", async () => {
    const dir = join(work, "kubectl-kustomize");
    mkdirSync(dir);
    const config = values
      .replace(/^ {4}# (config\.kubernetes\.io\/function: \|)$/m, "    $1")
      .replace(/^ {4}# {3}(exec:)$/m, "      $1")
      .replace(/^ {4}# {5}(path: .*)$/m, "        $1");
    writeFileSync(join(dir, "runner.yaml"), config);
    writeFileSync(join(dir, "rigging-fn"), "#!/bin/sh\nexec rigging fn\n");
    chmodSync(join(dir, "rigging-fn"), 0o755);
    writeFileSync(join(dir, "kustomization.yaml"), "generators:\n  - runner.yaml\n");
    const r = await run("kubectl", ["kustomize", "--enable-alpha-plugins", dir], { cwd: dir, env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain("kind: DaemonSet");
  });

  it("refuses a file whose apiVersion is not rigging's, naming the expected one, under render and under kpt", async () => {
    const file = join(work, "other-group.yaml");
    writeFileSync(file, values.replace("apiVersion: rigging.dev/v1alpha1", "apiVersion: rigging/v1"));
    const r = await cli(["render", file]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/other-group\.yaml:\d+:\d+ apiVersion: "rigging\/v1" is not rigging's; expected apiVersion: rigging\.dev\/v1alpha1/);
    const pkg = join(work, "refused");
    mkdirSync(pkg);
    const k = await kpt(["fn", "eval", pkg, "--exec", "rigging fn", "--fn-config", file]);
    expect(k.code).toBe(1);
    expect(k.err).toContain("expected apiVersion: rigging.dev/v1alpha1");
    expect(readdirSync(pkg)).toEqual([]);
  });

  it("keeps rendering a file without apiVersion unchanged: the upstream values.example.json", async () => {
    const r = await cli(["render", join(ROOT, "values.example.json")]);
    expect(r.code, r.err).toBe(0);
    expect(objectsOf(r.out).map((o) => o.kind)).toContain("DaemonSet");
  });

  it("refuses metadata without apiVersion, at its line", async () => {
    const r = await cli(["render", "-"], "kind: RootpilotRunner\nmetadata:\n  name: x\n");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/<stdin>:3:3 metadata: a values file carries metadata only as a KRM resource; add apiVersion: rigging\.dev\/v1alpha1/);
  });
});

describe("the JSON Schema accepts both forms", () => {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(runInProcess(["schema"]).out));

  it.each(kinds())("init %s as printed, and without its apiVersion and metadata", (kind) => {
    const data = parse(runInProcess(["init", kind]).out);
    expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
    const { apiVersion: _a, metadata: _m, ...plain } = data;
    expect(validate(plain), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...data, apiVersion: "example.com/v1" })).toBe(false);
  });
});
