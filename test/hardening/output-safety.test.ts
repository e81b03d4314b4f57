// `-o DIR`: writes only inside DIR, refuses a DIR that is a file, and
// leaves DIR as it was when the render or a write fails.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { directoryFiles, SAFE_FILE_NAME } from "../../src/emit/emit.ts";
import { MANIFEST, writeDirectory } from "../../src/emit/output-dir.ts";
import { UsageError } from "../../src/core/errors.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { runInProcess } from "../support/cli.ts";

const EXAMPLE = "examples/compass-runner.yaml";
let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "rigging-out-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every file under `dir`, relative, with its content. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = entry.isFile() ? readFileSync(path, "utf8") : "<dir>";
  }
  return out;
}

const configMap = (name: string): K8sObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x" } }) as K8sObject;

describe("-o DIR writes only inside DIR", () => {
  it("a render adds DIR and nothing else beside it; every file is a plain name inside DIR", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", EXAMPLE, "-o", out]).code).toBe(0);
    expect(readdirSync(root)).toEqual(["out"]); // no staging or backup left behind
    const names = readdirSync(out).filter((name) => name !== MANIFEST);
    // The manifest lists exactly the other files: rigging's, and nothing else.
    expect(JSON.parse(readFileSync(join(out, MANIFEST), "utf8")).files.sort()).toEqual(names.sort());
    for (const name of names) {
      expect(name).toMatch(SAFE_FILE_NAME);
      expect(realpathSync(join(out, name)).startsWith(`${realpathSync(out)}/`)).toBe(true);
      expect(statSync(join(out, name)).isFile()).toBe(true);
    }
  });

  it.each(["../evil.yaml", "/tmp/evil.yaml", "sub/evil.yaml", "..", ".", ".hidden.yaml", ""])("a file name %j is refused and nothing is written", (name) => {
    const out = join(root, "out");
    mkdirSync(out);
    writeFileSync(join(out, "old.yaml"), "old");
    const files = new Map([
      ["01-ok.yaml", "a: 1\n"],
      [name, "evil: true\n"],
    ]);
    expect(() => writeDirectory(out, files)).toThrow(UsageError);
    expect(tree(root)).toEqual({ out: "<dir>", "out/old.yaml": "old" });
  });

  it("objects whose names try to climb out cannot be written", () => {
    const out = join(root, "deep", "out");
    mkdirSync(join(root, "deep"));
    for (const name of ["../../escape", "a/../../b", "../x", "x/y"]) {
      const files = directoryFiles([configMap("ok"), configMap(name)]);
      const unsafe = [...files.keys()].filter((f) => !SAFE_FILE_NAME.test(f));
      expect(unsafe.length, name).toBeGreaterThan(0);
      expect(() => writeDirectory(out, files)).toThrow(/not a plain file name/);
    }
    expect(tree(root)).toEqual({ deep: "<dir>" });
  });

  it("refuses a DIR that is a file (exit 2) and leaves the file alone", () => {
    const out = join(root, "a-file");
    writeFileSync(out, "keep me");
    const result = runInProcess(["render", EXAMPLE, "-o", out]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("exists and is not a directory");
    expect(readFileSync(out, "utf8")).toBe("keep me");
  });
});

describe("-o DIR replaces its own files only when the whole render succeeds", () => {
  // Before, this test filled DIR with files rigging never wrote and expected
  // them gone: that was the data-loss bug. Old files are gone only when an
  // earlier rigging run wrote them (output-dir.test.ts refuses the others).
  it.each([[[]], [["--per-object"]]])("old files an earlier run wrote that the new render (%j) does not write are gone", (flags) => {
    const out = join(root, "out");
    writeDirectory(
      out,
      new Map([
        ["stale.yaml", "kind: Old\n"],
        ["01-namespace-compass-runner.yaml", "stale content\n"],
        ["manifests.yaml", "stale stream\n"],
      ]),
    );
    expect(runInProcess(["render", EXAMPLE, "-o", out, ...flags]).code).toBe(0);
    const files = readdirSync(out);
    expect(files).not.toContain("stale.yaml");
    if (flags.length === 0) {
      expect(files.sort()).toEqual([MANIFEST, "kustomization.yaml", "manifests.yaml"]);
      expect(readFileSync(join(out, "manifests.yaml"), "utf8")).toMatch(/^---\napiVersion: v1\nkind: Namespace/);
    } else {
      expect(files).not.toContain("manifests.yaml");
      expect(readFileSync(join(out, "01-namespace-compass-runner.yaml"), "utf8")).toMatch(/^apiVersion: v1\nkind: Namespace/);
    }
    const kustomization = readFileSync(join(out, "kustomization.yaml"), "utf8");
    for (const file of files.filter((f) => f !== "kustomization.yaml" && f !== MANIFEST)) expect(kustomization).toContain(`- ${file}`);
  });

  it("a failing render leaves the old DIR untouched", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", EXAMPLE, "-o", out]).code).toBe(0);
    const before = tree(out);
    const bad = join(root, "bad.yaml");
    writeFileSync(bad, readFileSync(EXAMPLE, "utf8").replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 60"));
    expect(runInProcess(["render", bad, "-o", out]).code).toBe(1);
    expect(tree(out)).toEqual(before);
    expect(readdirSync(root).sort()).toEqual(["bad.yaml", "out"]);
  });

  it("a write that fails half-way leaves the old DIR untouched and no staging behind", () => {
    const out = join(root, "out");
    mkdirSync(out);
    writeFileSync(join(out, "old.yaml"), "old\n");
    // The third file fails after two were staged.
    const files = new Map([
      ["a.yaml", "a\n"],
      ["b.yaml", "b\n"],
      ["c/../d.yaml", "d\n"],
    ]);
    expect(() => writeDirectory(out, files)).toThrow(UsageError);
    expect(tree(root)).toEqual({ out: "<dir>", "out/old.yaml": "old\n" });
  });
});
