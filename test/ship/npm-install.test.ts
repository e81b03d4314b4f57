// `npm pack`, then `npm install -g` of the tarball into a fresh prefix,
// offline: the package carries everything it needs (the bundle holds every
// runtime dependency), and the `rigging` it puts on PATH works from an
// empty directory. The pack uses the dist/ that npm test built (packing
// runs no build here: a rebuild would race with the other test files'
// processes that run dist/).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CLI, ROOT, tempDir } from "../support/cli.ts";
import { run } from "./run.ts";

let work: string;
let rigging: string;
let packed: { files: { path: string }[] };

beforeAll(async () => {
  work = tempDir();
  const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: ROOT });
  expect(pack.code, pack.err).toBe(0);
  [packed] = JSON.parse(pack.out);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"))!;
  const prefix = join(work, "prefix");
  // --offline: nothing may come from a registry.
  const install = await run("npm", ["install", "--global", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, join(work, tarball)], { cwd: work });
  expect(install.code, install.err).toBe(0);
  rigging = join(prefix, "bin", "rigging");
  mkdirSync(join(work, "empty"));
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const installed = (args: string[], input?: string) => run(rigging, args, { cwd: join(work, "empty"), input });

describe("npm pack and npm install -g", () => {
  it("packs the command, the examples and the docs, and no sources or tests", () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "package.json",
        "dist/rigging.cjs",
        "dist/rigging.mjs",
        "dist/lib/main.cjs",
        "dist/lib/main.cache",
        "dist/lib/pg.cjs",
        "dist/lib/cel.cjs",
        "dist/kube/index.json",
        "examples/compass-runner.yaml",
        "integrations/argocd/plugin.yaml",
        "docs/integrations/kpt.md",
      ]),
    );
    expect(paths.filter((p) => p.startsWith("dist/bun/"))).toEqual([]);
    expect(paths.filter((p) => /^(src|test|scripts|node_modules)\//.test(p))).toEqual([]);
  });

  it("puts a working rigging on PATH: --version, init, render, check", async () => {
    const version = await installed(["--version"]);
    expect(version.code, version.err).toBe(0);
    expect(version.out).toBe((await run(process.execPath, [CLI, "--version"])).out);

    const values = await installed(["init", "CompassServer"]);
    expect(values.code, values.err).toBe(0);
    const rendered = await installed(["render", "-"], values.out);
    expect(rendered.code, rendered.err).toBe(0);
    const objects = rendered.out
      .split(/^---$/m)
      .filter((d) => d.trim())
      .map((d) => parse(d));
    expect(objects.map((o) => o.kind)).toContain("Deployment");
    expect(rendered.out).toBe((await run(process.execPath, [CLI, "render", "-"], { input: values.out })).out);

    const checked = await installed(["check", "-"], rendered.out.replace(/runAsNonRoot: true/g, "runAsNonRoot: false"));
    expect(checked.code).toBe(1);
    // check's Kubernetes schemas are in the package.
    const typo = await installed(["check", "-"], rendered.out.replace(/runAsNonRoot: true/, "runAsNonRot: true"));
    expect(typo.out).toMatch(/schema .*unknown field "runAsNonRot"/);
  });
});
