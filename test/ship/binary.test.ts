// The standalone executable (npm run build:binary): built once, from a copy
// of the sources that is deleted before it runs, then copied alone, under
// another name, into an empty directory. Everything it prints is compared
// byte for byte with the Node build of the same tree (dist/, which npm test
// builds before the tests start).
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, ROOT, tempDir } from "../support/cli.ts";
import { run, type RunOptions } from "./run.ts";
import { kinds } from "../../src/systems/registry.ts";

const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((f) => f.endsWith(".yaml"))
  .sort();
/** A line added to one example in the copy the executable is built from, and nowhere else. */
const MARKER = "# built-in marker: this line exists only in the tree the executable was built from\n";

let work: string;
let binary: string;

const bin = (args: string[], options: RunOptions = {}) => run(binary, args, { cwd: work, ...options });
const node = (args: string[], options: RunOptions = {}) => run(process.execPath, [CLI, ...args], { cwd: work, ...options });

beforeAll(async () => {
  work = tempDir();
  // The tree the executable is built from, deleted before it runs: nothing
  // it does may read a file from where its sources were.
  const tree = join(work, "tree");
  mkdirSync(tree);
  // scripts/kube-specs/node_modules (the schemas' clients) is not a source of the build.
  const sources = (path: string) => !path.includes(`${sep}node_modules`);
  for (const entry of ["src", "scripts", "examples", "kube-schemas", "package.json", "tsconfig.json"])
    cpSync(join(ROOT, entry), join(tree, entry), { recursive: true, filter: sources });
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  writeFileSync(join(tree, "examples", "compass-runner.yaml"), readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8") + MARKER);
  const built = await run(process.execPath, ["scripts/build-binary.mjs", "--outfile", join(work, "built")], { cwd: tree });
  expect(built.code, built.err).toBe(0);
  rmSync(tree, { recursive: true, force: true });
  // Copied alone into an empty directory, under a name of its own.
  mkdirSync(join(work, "alone"));
  binary = join(work, "alone", "kube-rigger");
  copyFileSync(join(work, "built"), binary);
  rmSync(join(work, "built"));
  chmodSync(binary, 0o755);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the standalone executable", () => {
  it("runs under any file name, from an empty directory", async () => {
    const r = await bin(["--version"], { cwd: join(work, "alone") });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe((await node(["--version"])).out);
  });

  it.each(EXAMPLES)("render %s: the same bytes on stdout and stderr as the Node build, and the same exit code", async (example) => {
    const file = join(ROOT, "examples", example);
    const [a, b] = await Promise.all([bin(["render", file]), node(["render", file])]);
    expect(a.code, a.err).toBe(0);
    expect(a.out.length).toBeGreaterThan(1000);
    expect(a).toEqual(b);
  });

  it("render -o DIR writes the same files as the Node build", async () => {
    const file = join(ROOT, "examples", "compass.yaml");
    expect((await bin(["render", file, "-o", join(work, "by-binary")])).code).toBe(0);
    expect((await node(["render", file, "-o", join(work, "by-node")])).code).toBe(0);
    expect(tree(join(work, "by-binary"))).toEqual(tree(join(work, "by-node")));
  });

  it("refuses invalid values the way the Node build does", async () => {
    const bad = join(work, "bad.yaml");
    writeFileSync(
      bad,
      readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8").replace(/^tokenExpirationSeconds: .*$/m, "tokenExpirationSeconds: 60"),
    );
    const a = await bin(["render", bad]);
    expect(a.code).toBe(1);
    expect(a.err).toContain("CR-03");
    expect(a).toEqual(await node(["render", bad]));
  });

  it.each(kinds())("init %s: the examples of the tree it was built from are built in, and what it prints renders", async (kind) => {
    const a = await bin(["init", kind], { cwd: join(work, "alone") });
    expect(a.code, a.err).toBe(0);
    expect(a.out.startsWith("# yaml-language-server: $schema=")).toBe(true);
    // The copy's CompassRunner example had the marker line; the repository's has not.
    if (kind === "CompassRunner") expect(a.out.endsWith(MARKER)).toBe(true);
    else expect(a.out).toBe((await node(["init", kind])).out);
    const file = join(work, `init-${kind}.yaml`);
    writeFileSync(file, a.out);
    const rendered = await bin(["render", file]);
    expect(rendered.code, rendered.err).toBe(0);
  });

  it("schema, explain and check print what the Node build prints", async () => {
    for (const args of [["schema"], ["schema", "RootpilotRunner"], ["explain"], ["explain", "CR-09"]]) {
      const [a, b] = await Promise.all([bin(args), node(args)]);
      expect(a.code, `${args.join(" ")}: ${a.err}`).toBe(0);
      expect(a).toEqual(b);
    }
    const manifests = join(work, "manifests.yaml");
    writeFileSync(
      manifests,
      (await node(["render", join(ROOT, "examples", "compass-runner.yaml")])).out.replace(/^(\s+)hostUsers: false$/m, "$1hostUsers: true"),
    );
    for (const format of ["text", "json", "sarif"]) {
      const [a, b] = await Promise.all([bin(["check", manifests, "--format", format]), node(["check", manifests, "--format", format])]);
      expect(a.code).toBe(1);
      expect(a.out).toContain("CR-09");
      expect(a).toEqual(b);
    }
  });

  it("check carries the Kubernetes schemas: --kube-version judges as the Node build does", async () => {
    const manifests = join(work, "manifests.yaml");
    writeFileSync(manifests, (await node(["render", join(ROOT, "examples", "compass-runner.yaml")])).out);
    for (const args of [["--kube-version", "1.29"], ["--kube-version", "1.1"], []]) {
      const [a, b] = await Promise.all([bin(["check", manifests, "--format", "json", ...args]), node(["check", manifests, "--format", "json", ...args])]);
      expect(a).toEqual(b);
    }
    const old = await bin(["check", manifests, "--kube-version", "1.29"]);
    expect(old.code).toBe(1);
    expect(old.out).toMatch(/schema .*ValidatingAdmissionPolicy is not served by Kubernetes 1\.29/);
  });

  it("preflight answers as the Node build does (no database URL: exit 2)", async () => {
    const env = { COMPASS_DATABASE_URL: "" };
    const a = await bin(["preflight", "postgres"], { env });
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/is not set/);
    expect(a).toEqual(await node(["preflight", "postgres"], { env }));
  });

  it("renders a fleet of 220 files on worker threads inside the executable, and writes what the Node build writes", async () => {
    const fleet = join(work, "fleet");
    mkdirSync(fleet);
    const example = readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
    for (let i = 0; i < 220; i++) writeFileSync(join(fleet, `site-${i}.yaml`), example.replace(/^name: compass-runner$/m, `name: site-${i}`));
    const out = join(work, "fleet-out");
    // RIGGING_THREADS=2 asks for two threads even where there is one core.
    const a = await bin(["render", fleet, "-o", out], { env: { RIGGING_THREADS: "2" } });
    expect(a.code, a.err).toBe(0);
    // What the process reports: how many threads rendered files.
    expect(a.err).toMatch(/^rendered 220 of 220 values files into .*fleet-out on 2 threads$/m);
    expect(readdirSync(out).filter((name) => !name.startsWith("."))).toHaveLength(220);
    // Whichever thread wrote a file, it holds what the Node build writes (a sample of 20).
    const sample = Array.from({ length: 20 }, (_, i) => join(fleet, `site-${i * 11}.yaml`));
    const byNode = join(work, "fleet-node");
    expect((await node(["render", ...sample, "-o", byNode])).code).toBe(0);
    const written = tree(out);
    const expected = Object.entries(tree(byNode));
    expect(expected.length).toBe(sample.length * 4); // manifests.yaml, kustomization.yaml, NOTES.md and .rigging-output each
    for (const [path, text] of expected) expect(written[path], path).toBe(text);
  });
});

/** Every file under `dir`, by relative path. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return files;
}
