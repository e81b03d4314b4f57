// The checksum `rigging fn` puts on what it renders covers every field and
// annotation but those kpt and kustomize rewrite on the way (paths, indexes,
// ids): an annotation a person adds, config.kubernetes.io/* included, makes
// the item hand-edited, kept as it is; one kpt only re-indexed is unchanged.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { fnAnswer } from "../../src/cli/fn.ts";
import { ROOT, riggingOnPath, tempDir } from "../support/cli.ts";

const CONFIG = `apiVersion: rigging.dev/v1alpha1\nmetadata:\n  name: runner\n${readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8")}`;
const HAND_EDITS = {
  Namespace: { "config.kubernetes.io/depends-on": "/namespaces/default/ConfigMap/first" },
  ServiceAccount: { "config.kubernetes.io/local-config": "true" },
};

type Item = { kind: string; metadata: { name: string; annotations: Record<string, string> } } & Record<string, unknown>;

function fn(items: object[]): { code: number; items: Item[]; results: { severity: string; message: string }[]; err: string } {
  let out = "";
  let err = "";
  const input = stringify({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items, functionConfig: parse(CONFIG) });
  const code = fnAnswer(() => input, { out: (t) => void (out += t), err: (t) => void (err += t), color: false });
  return { code, err, ...parse(out) };
}

/** The items with `annotations` added to the first item of each kind named. */
function annotated(items: Item[], annotations: Record<string, Record<string, string>>): Item[] {
  const copy = structuredClone(items);
  for (const [kind, added] of Object.entries(annotations)) Object.assign(copy.find((i) => i.kind === kind)!.metadata.annotations, added);
  return copy;
}

describe("rigging fn: what the checksum protects", () => {
  let first: Item[];
  beforeAll(() => {
    const r = fn([]);
    expect(r.code, r.err).toBe(0);
    first = r.items;
  });

  it("a depends-on and a local-config annotation added by hand are kept, each item an error as a hand edit", () => {
    const edited = annotated(first, HAND_EDITS);
    const r = fn(edited);
    expect(r.code).toBe(1);
    for (const kind of Object.keys(HAND_EDITS)) expect(r.items).toContainEqual(edited.find((i) => i.kind === kind));
    const errors = r.results.filter((x) => x.severity === "error").map((x) => x.message);
    expect(errors).toEqual([
      expect.stringMatching(/^Namespace compass-runner is already in the package .*, changed since rigging rendered it/),
      expect.stringMatching(/^ServiceAccount compass-runner is already in the package .*, changed since rigging rendered it/),
    ]);
  });

  it("an item kpt or kustomize only re-indexed, re-pathed or gave an id is unchanged: replaced, no error", () => {
    const moved = structuredClone(first).map((item, index) => {
      const annotations = item.metadata.annotations;
      const moved = { index: String(index + 1), path: `runner/all-${index % 2}.yaml`, id: String(index) };
      for (const prefix of ["config.kubernetes.io", "internal.config.kubernetes.io"]) {
        annotations[`${prefix}/index`] = moved.index;
        annotations[`${prefix}/path`] = moved.path;
      }
      annotations["config.k8s.io/id"] = moved.id;
      annotations["internal.config.kubernetes.io/id"] = moved.id;
      annotations["internal.config.kubernetes.io/annotations-migration-resource-id"] = moved.id;
      annotations["internal.config.kubernetes.io/seqindent"] = "compact";
      annotations["kustomize.config.k8s.io/id"] = stringify({ kind: item.kind, name: item.metadata.name });
      return item;
    });
    const r = fn(moved);
    expect(r.code, r.err).toBe(0);
    expect(r.items).toEqual(first);
  });
});

const kptFound = spawnSync("kpt", ["version"]).status === 0;

describe.skipIf(!kptFound)("rigging fn under the real kpt", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    work = tempDir();
    env = { ...process.env, PATH: riggingOnPath(work) };
    writeFileSync(join(work, "values.yaml"), CONFIG);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const evaluate = (pkg: string) =>
    spawnSync("kpt", ["fn", "eval", pkg, "--exec", "rigging fn", "--fn-config", join(work, "values.yaml")], { cwd: work, env, encoding: "utf8" });
  /** Each file of the package by its path in it, with its text. */
  const files = (pkg: string) =>
    Object.fromEntries(
      readdirSync(pkg, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => [join(entry.parentPath, entry.name).slice(pkg.length + 1), readFileSync(join(entry.parentPath, entry.name), "utf8")]),
    );

  it("kpt fn eval: a depends-on added by hand to a rendered file survives the next run, which fails naming it", () => {
    const pkg = join(work, "edited");
    mkdirSync(pkg);
    expect(evaluate(pkg).status).toBe(0);
    const file = join(pkg, "runner", readdirSync(join(pkg, "runner")).find((f) => f.includes("-namespace-"))!);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^ {2}annotations:\n/m);
    writeFileSync(file, text.replace(/^( {2}annotations:\n)/m, "$1    config.kubernetes.io/depends-on: /namespaces/default/ConfigMap/first\n"));
    const before = files(pkg);
    const again = evaluate(pkg);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/Namespace compass-runner is already in the package .*changed since rigging rendered it/);
    expect(again.stderr).not.toContain("already exists");
    expect(files(pkg)).toEqual(before);
  });

  it("kpt fn eval: two rendered files joined into one (kpt re-indexes the second) are unchanged, rendered back into their files", () => {
    const pkg = join(work, "joined");
    mkdirSync(pkg);
    expect(evaluate(pkg).status).toBe(0);
    const dir = join(pkg, "runner");
    const rendered = files(pkg);
    const [a, b] = readdirSync(dir).sort();
    writeFileSync(join(dir, "00-joined.yaml"), `${readFileSync(join(dir, a), "utf8")}---\n${readFileSync(join(dir, b), "utf8")}`);
    rmSync(join(dir, a));
    rmSync(join(dir, b));
    const again = evaluate(pkg);
    expect(again.status, again.stderr).toBe(0);
    expect(files(pkg)).toEqual(rendered);
  });
});
