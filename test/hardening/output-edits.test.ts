// `render -o DIR` over an earlier output whose files were changed since
// rigging wrote them: the render is refused, nothing is written, and the
// changed files are named; `--force` overwrites them and names them on
// stderr. The manifest records what rigging wrote (a SHA-256 per file); an
// output from before that record is judged against the new render: a file
// that differs from it may be an edit, so it needs --force too.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MANIFEST } from "../../src/emit/output-dir.ts";
import { runInProcess } from "../support/cli.ts";
import { serverValues, tree } from "../support/output-tree.ts";

let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "rigging-oedit-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** What a render of `values` (with `flags`) writes into a fresh directory, by file name. */
function expected(values: string, flags: string[] = []): Record<string, string> {
  const out = join(mkdtempSync(join(root, "expected-")), "out");
  expect(runInProcess(["render", write(`expected-${Math.random()}.yaml`, values), "-o", out, "-q", ...flags]).code).toBe(0);
  return tree(out);
}

/** What a fleet writes into OUT/NAME for `values` (with `flags`): a render's files and its NOTES.md. */
function expectedMember(name: string, values: string, flags: string[] = []): Record<string, string> {
  const dir = mkdtempSync(join(root, "expected-"));
  write(`${dir.slice(root.length + 1)}/in/${name}.yaml`, values);
  expect(runInProcess(["render", join(dir, "in"), "-o", join(dir, "out"), ...flags]).code).toBe(0);
  return tree(join(dir, "out", name));
}

/** Appends a line to a rendered file, as a person editing it would. */
function edit(path: string): void {
  writeFileSync(path, `${readFileSync(path, "utf8")}# tuned by hand\n`);
}

const LAYOUTS: [string, string[], string][] = [
  ["manifests.yaml", [], "manifests.yaml"],
  ["--per-object", ["--per-object"], "06-deployment-a.yaml"],
];

describe("-o DIR over files changed since rigging wrote them", () => {
  it.each(LAYOUTS)("%s: refused with exit 2, the changed file named, nothing written", (_layout, flags, file) => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, "-q", ...flags]).code).toBe(0);
    edit(join(out, file));
    edit(join(out, "kustomization.yaml"));
    const b = write("b.yaml", serverValues("b"));
    const before = tree(root);
    for (const next of [[], ["--per-object"]]) {
      const r = runInProcess(["render", b, "-o", out, "-q", ...next]);
      expect(r.code, r.err).toBe(2);
      expect(r.out).toBe("");
      const both = [file, "kustomization.yaml"].sort().map((f) => f.replaceAll(".", "\\."));
      expect(r.err).toMatch(new RegExp(`out/: ${both.join(" and ")} were changed since rigging wrote them`));
      expect(r.err).toMatch(/--force/);
      expect(tree(root)).toEqual(before);
    }
  });

  it.each(LAYOUTS)("%s: --force overwrites the changed file and names it on stderr", (_layout, flags, file) => {
    const out = join(root, "out");
    const a = write("a.yaml", serverValues("a"));
    expect(runInProcess(["render", a, "-o", out, "-q", ...flags]).code).toBe(0);
    edit(join(out, file));
    const r = runInProcess(["render", a, "-o", out, "-q", "--force", ...flags]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("");
    expect(r.err).toMatch(new RegExp(`out/: overwrote ${file.replaceAll(".", "\\.")}, changed since rigging wrote it \\(--force\\)$`, "m"));
    expect(tree(out)).toEqual(expected(serverValues("a"), flags));
  });

  it("--force names a changed file the new render no longer writes as removed", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, "-q", "--per-object"]).code).toBe(0);
    edit(join(out, "06-deployment-a.yaml"));
    const r = runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out, "-q", "--force"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/out\/: removed 06-deployment-a\.yaml, changed since rigging wrote it \(--force\)$/m);
    expect(tree(out)).toEqual(expected(serverValues("b")));
  });

  it("an output nobody changed is replaced without --force, and --force says nothing when nothing was changed", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, "-q", "--per-object"]).code).toBe(0);
    const b = runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out, "-q"]);
    expect(b.code, b.err).toBe(0);
    expect(b.err).not.toMatch(/overwrote|changed since/);
    const again = runInProcess(["render", join(root, "a.yaml"), "-o", out, "-q", "--per-object", "--force"]);
    expect(again.code, again.err).toBe(0);
    expect(again.err).not.toMatch(/overwrote|changed since/);
    expect(tree(out)).toEqual(expected(serverValues("a"), ["--per-object"]));
  });

  it("a file rigging wrote and the user removed is written again without --force (nothing of theirs is lost)", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, "-q"]).code).toBe(0);
    unlinkSync(join(out, "manifests.yaml"));
    expect(runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out, "-q"]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("b")));
  });

  it("--force without -o is a usage error", () => {
    const r = runInProcess(["render", write("a.yaml", serverValues("a")), "--force"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--force .*-o DIR/);
  });
});

describe("an output from before rigging recorded what it wrote", () => {
  /** Rewrites the manifest as a rigging that recorded only file names wrote it. */
  function olderManifest(out: string): void {
    const { files } = JSON.parse(readFileSync(join(out, MANIFEST), "utf8"));
    const note = "The files rigging wrote in this directory.";
    writeFileSync(join(out, MANIFEST), `${JSON.stringify({ "rigging-output": 1, note, files }, null, 2)}\n`);
  }

  it.each([
    ["a manifest without checksums", olderManifest],
    ["no manifest at all (kustomization.yaml listing the other files)", (out: string) => unlinkSync(join(out, MANIFEST))],
  ])("%s: files the new render writes identically are replaced; files that differ need --force", (_kind, age) => {
    const out = join(root, "out");
    const a = write("a.yaml", serverValues("a"));
    expect(runInProcess(["render", a, "-o", out, "-q"]).code).toBe(0);
    age(out);
    // The same render again: nothing could be lost.
    const same = runInProcess(["render", a, "-o", out, "-q"]);
    expect(same.code, same.err).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("a")));

    age(out);
    const b = write("b.yaml", serverValues("b"));
    const before = tree(root);
    const refused = runInProcess(["render", b, "-o", out, "-q"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/out\/: manifests\.yaml differs from what this render writes, and .* records no checksum/);
    expect(refused.err).toMatch(/--force/);
    expect(tree(root)).toEqual(before);
    const forced = runInProcess(["render", b, "-o", out, "-q", "--force"]);
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toMatch(/overwrote manifests\.yaml/);
    expect(tree(out)).toEqual(expected(serverValues("b")));
  });
});

describe("a fleet over OUT/NAME files changed since rigging wrote them", () => {
  function fleet(run: string, flags: string[] = []) {
    const dir = join(root, "in");
    write("in/east.yaml", serverValues(`east-${run}`));
    write("in/west.yaml", serverValues(`west-${run}`));
    return runInProcess(["render", dir, "-o", join(root, "out"), ...flags]);
  }

  it.each(LAYOUTS)("%s: that member is not rendered (exit 1), its files named and kept; --force overwrites and names them", (_layout, flags) => {
    expect(fleet("1", flags).code).toBe(0);
    const file = flags.length === 0 ? "manifests.yaml" : "06-deployment-east-1.yaml";
    edit(join(root, "out", "east", file));
    const east = tree(join(root, "out", "east"));
    const r = fleet("2", flags);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`out/east/: ${file.replaceAll(".", "\\.")} was changed since rigging wrote it; .*--force`));
    expect(r.err).toMatch(/rendered 1 of 2 values files/);
    expect(tree(join(root, "out", "east"))).toEqual(east);
    expect(tree(join(root, "out", "west"))).toEqual(expectedMember("west", serverValues("west-2"), flags));

    const forced = fleet("2", [...flags, "--force"]);
    expect(forced.code, forced.err).toBe(0);
    const verb = flags.length === 0 ? "overwrote" : "removed";
    expect(forced.err).toMatch(new RegExp(`out/east/: ${verb} ${file.replaceAll(".", "\\.")}, changed since rigging wrote it \\(--force\\)`));
    expect(tree(join(root, "out", "east"))).toEqual(expectedMember("east", serverValues("east-2"), flags));
  });
});
