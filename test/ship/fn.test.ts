// `rigging fn`, the KRM function: the protocol itself (a ResourceList in,
// one out), then under the real kpt: `kpt fn eval --exec` and `kpt fn
// render --allow-exec` with a Kptfile pipeline, checking the files kpt
// writes and its results file.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { CLI, ROOT, riggingOnPath, tempDir } from "../support/cli.ts";
import { fnAnswer } from "../../src/cli/fn.ts";
import { run, type Run } from "./run.ts";
import { kinds } from "../../src/systems/registry.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
/** kpt asks every function config for apiVersion and metadata.name; the rest is the values file. */
const ENVELOPE = 'apiVersion: rigging.dev/v1alpha1\nmetadata:\n  name: runner\n  annotations:\n    config.kubernetes.io/local-config: "true"\n';
const CONFIG = ENVELOPE + EXAMPLE;
/** The docs' pipeline: rigging renders the package's values.yaml, then checks the package. */
const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: runner
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    - exec: rigging fn
      configPath: values.yaml
  validators:
    - exec: rigging fn
`;

let work: string;
let pathWithRigging: string;

beforeAll(() => {
  work = tempDir();
  pathWithRigging = riggingOnPath(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The function in-process, on `input` as its stdin (the process reads the same through readText). */
async function fn(input: string): Promise<Run> {
  let out = "";
  let err = "";
  const code = fnAnswer(() => input, { out: (t) => void (out += t), err: (t) => void (err += t), color: false });
  return { code, out, err };
}
const kpt = (args: string[]) => run("kpt", args, { cwd: work, env: { PATH: pathWithRigging } });

function resourceList(items: object[], functionConfig?: object): string {
  return stringify({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items, ...(functionConfig ? { functionConfig } : {}) });
}

let renderedText: string | undefined;
async function rendered(): Promise<Record<string, any>[]> {
  if (renderedText === undefined) {
    const r = await run(process.execPath, [CLI, "render", join(ROOT, "examples", "compass-runner.yaml")]);
    expect(r.code, r.err).toBe(0);
    renderedText = r.out;
  }
  return parseAllDocuments(renderedText).map((d) => d.toJS());
}

/** The checksum fn puts on each object it renders, to tell it from an item changed since. */
const SUM = "rigging.dev/rendered-sha256";

const withoutFnAnnotations = (item: Record<string, any>) => {
  const copy = structuredClone(item);
  for (const key of ["config.kubernetes.io/path", "config.kubernetes.io/index", SUM]) delete copy.metadata.annotations?.[key];
  if (copy.metadata.annotations && Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
  return copy;
};

describe("rigging fn: the protocol", () => {
  it.each([
    ["YAML that does not parse", "kind: [", /not valid YAML/],
    ["a mapping that is not a ResourceList", "apiVersion: v1\nkind: ConfigMap\n", /is not a ResourceList/],
    ["a ResourceList of another apiVersion", "apiVersion: v1\nkind: ResourceList\nitems: []\n", /apiVersion "v1"; expected config\.kubernetes\.io\/v1/],
    ["items that are not a list", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: 3\n", /items is not a list of objects/],
    ["two documents", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n---\na: 1\n", /holds 2 YAML documents/],
  ])("%s: a ResourceList whose result is the error, exit 1", async (_what, input, message) => {
    const r = await fn(input);
    expect(r.code).toBe(1);
    const out = parse(r.out);
    expect(out).toMatchObject({ apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items: [] });
    expect(out.results).toHaveLength(1);
    expect(out.results[0].severity).toBe("error");
    expect(out.results[0].message).toMatch(message);
  });

  it("reads stdin as a process: binary input is answered with an error result, exit 1", async () => {
    const r = await run(process.execPath, [CLI, "fn"], { input: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1]), cwd: work });
    expect(r.code).toBe(1);
    expect(parse(r.out)).toEqual({
      apiVersion: "config.kubernetes.io/v1",
      kind: "ResourceList",
      items: [],
      results: [{ severity: "error", message: "<stdin>: is a binary file, expected YAML or JSON text" }],
    });
  });

  it("a functionConfig of an unknown kind is refused the same way, the items untouched", async () => {
    const item = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } };
    const r = await fn(resourceList([item], { apiVersion: "example.com/v1", kind: "Frobnicator", metadata: { name: "f" } }));
    expect(r.code).toBe(1);
    const out = parse(r.out);
    expect(out.items).toEqual([item]);
    expect(out.results).toEqual([
      { severity: "error", message: expect.stringMatching(new RegExp(`kind "Frobnicator" is not a values kind; expected one of ${kinds().join(", ")}`)) },
    ]);
  });

  it("with values as functionConfig: adds what render renders, each with config.kubernetes.io/path; keeps the other items", async () => {
    const other = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "other", annotations: { "config.kubernetes.io/path": "other.yaml" } },
      data: { a: "b" },
    };
    const r = await fn(resourceList([other], parse(CONFIG)));
    expect(r.code, r.err).toBe(0);
    const out = parse(r.out);
    const expected = await rendered();
    expect(out.items[0]).toEqual(other);
    const added = out.items.slice(1);
    expect(added.map(withoutFnAnnotations)).toEqual(expected);
    expect(added.map((i: any) => i.metadata.annotations["config.kubernetes.io/path"])).toEqual(
      expected.map((o, i) => `runner/${String(i + 1).padStart(2, "0")}-${o.kind.toLowerCase()}-${o.metadata.name}.yaml`),
    );
    expect(out.results.every((x: any) => x.severity === "info")).toBe(true);
  });

  it("run again on its own output, it gives the same items (what it rendered is replaced, not added twice)", async () => {
    const first = parse((await fn(resourceList([], parse(CONFIG)))).out);
    const second = await fn(resourceList(first.items, parse(CONFIG)));
    expect(second.code, second.err).toBe(0);
    expect(parse(second.out).items).toEqual(first.items);
  });

  it("keeps an item under NAME/ it did not render, whatever its labels: a NetworkPolicy copied from its own and renamed", async () => {
    const first = parse((await fn(resourceList([], parse(CONFIG)))).out);
    const policy = first.items.find((i: any) => i.kind === "NetworkPolicy");
    const copy = structuredClone(policy);
    copy.metadata.name = "compass-runner-extra";
    copy.metadata.annotations["config.kubernetes.io/path"] = "runner/99-networkpolicy-extra.yaml";
    const second = await fn(resourceList([...first.items, copy], parse(CONFIG)));
    expect(second.code, second.err).toBe(0);
    const items = parse(second.out).items;
    expect(items).toContainEqual(copy);
    expect(items).toHaveLength(first.items.length + 1);
  });

  it("an item it rendered and someone changed since is kept as it is, and the render that would replace it is an error naming it", async () => {
    const first = parse((await fn(resourceList([], parse(CONFIG)))).out);
    const edited = structuredClone(first.items);
    const ds = edited.find((i: any) => i.kind === "DaemonSet");
    ds.spec.template.spec.containers[0].resources.limits.memory = "2Gi";
    const r = await fn(resourceList(edited, parse(CONFIG)));
    expect(r.code).toBe(1);
    const out = parse(r.out);
    expect(out.items).toContainEqual(ds);
    const errors = out.results.filter((x: any) => x.severity === "error");
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          /^DaemonSet compass-runner is already in the package \(runner\/\d\d-daemonset-compass-runner\.yaml\), changed since rigging rendered it/,
        ),
      }),
    ]);
  });

  it("items an older rigging fn rendered (no checksum): replaced where this render gives the same object, kept otherwise", async () => {
    const first = parse((await fn(resourceList([], parse(CONFIG)))).out);
    const older = first.items.map((item: any) => {
      const copy = structuredClone(item);
      delete copy.metadata.annotations[SUM];
      return copy;
    });
    const same = await fn(resourceList(older, parse(CONFIG)));
    expect(same.code, same.err).toBe(0);
    expect(parse(same.out).items).toEqual(first.items);
    const ds = older.find((i: any) => i.kind === "DaemonSet");
    ds.spec.template.spec.containers[0].resources.limits.memory = "2Gi";
    const changed = await fn(resourceList(older, parse(CONFIG)));
    expect(changed.code).toBe(1);
    expect(parse(changed.out).items).toContainEqual(ds);
  });

  it("refuses to overwrite an item rigging did not render", async () => {
    const [namespace] = await rendered();
    const mine = { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace.metadata.name, annotations: { "config.kubernetes.io/path": "ns.yaml" } } };
    const r = await fn(resourceList([mine], parse(CONFIG)));
    expect(r.code).toBe(1);
    const out = parse(r.out);
    expect(out.results.find((x: any) => x.severity === "error").message).toMatch(
      /Namespace compass-runner is already in the package \(ns\.yaml\), and rigging did not render it there/,
    );
  });

  it("invalid values: one error result per problem, with the key path and the requirement; exit 1", async () => {
    const r = await fn(resourceList([], parse(CONFIG.replace(/^tokenExpirationSeconds: .*$/m, "tokenExpirationSeconds: 60"))));
    expect(r.code).toBe(1);
    const results = parse(r.out).results.filter((x: any) => x.severity === "error");
    expect(results).toEqual([
      { severity: "error", message: expect.stringMatching(/^60 is below 600 \(CR-03: /), field: { path: "tokenExpirationSeconds" }, tags: { rule: "CR-03" } },
    ]);
  });

  it("without functionConfig: checks the items and reports each finding with resourceRef, field and file; exit 1 on an error", async () => {
    const items: Record<string, any>[] = (await rendered()).map((o, i) => ({
      ...o,
      metadata: {
        ...o.metadata,
        annotations: { ...o.metadata.annotations, "config.kubernetes.io/path": `runner/${i}.yaml`, "config.kubernetes.io/index": "0" },
      },
    }));
    const clean = await fn(resourceList(items));
    expect(clean.code, clean.err).toBe(0);
    const cleanOut = parse(clean.out);
    expect(cleanOut.items).toEqual(items);
    expect(cleanOut.results.filter((x: any) => x.severity !== "info")).toEqual([]);

    const ds = items.findIndex((o) => o.kind === "DaemonSet");
    items[ds].spec.template.spec.hostUsers = true;
    const broken = await fn(resourceList(items));
    expect(broken.code).toBe(1);
    const out = parse(broken.out);
    expect(out.items).toEqual(items);
    const errors = out.results.filter((x: any) => x.severity === "error");
    expect(errors).toEqual([
      {
        severity: "error",
        message: expect.stringMatching(/hostUsers is not false \(CR-09: /),
        resourceRef: { apiVersion: "apps/v1", kind: "DaemonSet", name: items[ds].metadata.name, namespace: items[ds].metadata.namespace },
        field: { path: "spec.template.spec.hostUsers" },
        file: { path: `runner/${ds}.yaml`, index: 0 },
        tags: { rule: "CR-09" },
      },
    ]);
  });
});

describe("rigging fn under kpt", () => {
  function snapshot(dir: string): Record<string, string> {
    const files: Record<string, string> = {};
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
    }
    return files;
  }

  function freshPackage(name: string): string {
    const pkg = join(work, name);
    mkdirSync(pkg);
    writeFileSync(join(pkg, "other.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: default\ndata:\n  a: b\n");
    return pkg;
  }

  it("kpt fn eval --exec 'rigging fn' --fn-config values.yaml writes the rendered objects into the package", async () => {
    const pkg = freshPackage("eval");
    writeFileSync(join(work, "values.yaml"), CONFIG);
    const r = await kpt(["fn", "eval", pkg, "--exec", "rigging fn", "--fn-config", join(work, "values.yaml"), "--results-dir", join(work, "eval-results")]);
    expect(r.code, r.err).toBe(0);
    const expected = await rendered();
    const files = readdirSync(join(pkg, "runner")).sort();
    expect(files).toHaveLength(expected.length);
    const written = files.map((f) => parse(readFileSync(join(pkg, "runner", f), "utf8")));
    expect(written.map(withoutFnAnnotations)).toEqual(expected); // kpt keeps the path in the file name, not in the object
    expect(readFileSync(join(pkg, "other.yaml"), "utf8")).toContain("name: other");
    const results = parse(readFileSync(join(work, "eval-results", "results.yaml"), "utf8"));
    expect(results).toMatchObject({ kind: "FunctionResultList", exitCode: 0 });
  });

  it("kpt fn eval again keeps a file the user copied into NAME/ from a rendered one and renamed, and its own output as it was", async () => {
    const pkg = freshPackage("eval-kept");
    writeFileSync(join(work, "values-kept.yaml"), CONFIG);
    const evaluate = () => kpt(["fn", "eval", pkg, "--exec", "rigging fn", "--fn-config", join(work, "values-kept.yaml")]);
    const first = await evaluate();
    expect(first.code, first.err).toBe(0);
    const policy = readdirSync(join(pkg, "runner")).find((f) => f.includes("-networkpolicy-"))!;
    const text = readFileSync(join(pkg, "runner", policy), "utf8");
    expect(text).toMatch(/^ {2}name: compass-runner$/m);
    writeFileSync(join(pkg, "runner", "99-networkpolicy-extra.yaml"), text.replace(/^( {2})name: compass-runner$/m, "$1name: compass-runner-extra"));
    const before = snapshot(pkg);
    const again = await evaluate();
    expect(again.code, again.err).toBe(0);
    expect(snapshot(pkg)).toEqual(before);
  });

  // The DaemonSet is the Runner's 12th object: index 11 of manifests.yaml, or a file of its own.
  it.each([
    ["", [], { path: "runner/manifests.yaml", index: 11 }],
    [" --per-object", ["--per-object"], { path: "runner/12-daemonset-compass-runner.yaml" }],
  ])("kpt fn eval --exec 'rigging fn' without a config checks a package holding render -o%s: exit 1 on an error, nothing written, the finding in the results file", async (label, flags, file) => {
    const pkg = freshPackage(`check${label.replace(" ", "")}`);
    const written = await run(process.execPath, [CLI, "render", join(ROOT, "examples", "compass-runner.yaml"), "-o", join(pkg, "runner"), ...flags]);
    expect(written.code, written.err).toBe(0);
    const path = join(pkg, file.path);
    const text = readFileSync(path, "utf8");
    expect(text).toMatch(/^ {6}hostUsers: false$/m);
    writeFileSync(path, text.replace(/^( {6})hostUsers: false$/m, "$1hostUsers: true"));
    const before = snapshot(pkg);
    const results = join(work, `check-results${label.replace(" ", "")}`);
    const r = await kpt(["fn", "eval", pkg, "--exec", "rigging fn", "--results-dir", results]);
    expect(r.code).toBe(1);
    expect(snapshot(pkg)).toEqual(before);
    const list = parse(readFileSync(join(results, "results.yaml"), "utf8"));
    expect(list.exitCode).toBe(1);
    const errors = list.items[0].results.filter((x: any) => x.severity === "error");
    // (kpt leaves out an index of 0.)
    expect(errors).toEqual([expect.objectContaining({ field: { path: "spec.template.spec.hostUsers" }, file, tags: { rule: "CR-09" } })]);
  });

  it("kpt fn render --allow-exec runs rigging as a mutator and as a validator from the Kptfile pipeline", async () => {
    const pkg = freshPackage("render");
    writeFileSync(join(pkg, "values.yaml"), CONFIG);
    writeFileSync(join(pkg, "Kptfile"), KPTFILE);
    const r = await kpt(["fn", "render", pkg, "--allow-exec", "--results-dir", join(work, "render-results")]);
    expect(r.code, r.err).toBe(0);
    const expected = await rendered();
    const written = readdirSync(join(pkg, "runner"))
      .sort()
      .map((f) => parse(readFileSync(join(pkg, "runner", f), "utf8")));
    expect(written.map(withoutFnAnnotations)).toEqual(expected);
    const results = parse(readFileSync(join(work, "render-results", "results.yaml"), "utf8"));
    expect(results.exitCode).toBe(0);
    expect(results.items).toHaveLength(2); // the mutator, then the validator
    expect(results.items.flatMap((i: any) => i.results ?? []).filter((x: any) => x.severity === "error")).toEqual([]);

    // Again, on its own output: nothing changes.
    const before = snapshot(pkg);
    expect((await kpt(["fn", "render", pkg, "--allow-exec"])).code).toBe(0);
    expect(snapshot(pkg)).toEqual(before);
  });

  it("kpt fn render with invalid values: exit 1, nothing written, the error in the results file", async () => {
    const pkg = freshPackage("render-bad");
    writeFileSync(join(pkg, "values.yaml"), CONFIG.replace(/^tokenExpirationSeconds: .*$/m, "tokenExpirationSeconds: 60"));
    writeFileSync(join(pkg, "Kptfile"), KPTFILE);
    const before = snapshot(pkg);
    const r = await kpt(["fn", "render", pkg, "--allow-exec", "--results-dir", join(work, "bad-results")]);
    expect(r.code).toBe(1);
    expect(snapshot(pkg)).toEqual(before);
    expect(existsSync(join(pkg, "runner"))).toBe(false);
    const results = parse(readFileSync(join(work, "bad-results", "results.yaml"), "utf8"));
    expect(results.exitCode).toBe(1);
    expect(results.items[0].results).toEqual([
      expect.objectContaining({ severity: "error", field: { path: "tokenExpirationSeconds" }, file: { path: "values.yaml" }, tags: { rule: "CR-03" } }),
    ]);
  });
});
