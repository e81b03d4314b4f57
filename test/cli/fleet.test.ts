// `rigging render a.yaml b.yaml ... -o DIR` and `rigging render DIR -o OUT`:
// each values file renders into OUT/NAME/ (manifests.yaml and a
// kustomization.yaml, or one file per object with --per-object), a bad file
// is reported and skipped, and the single-file command is unchanged.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { fleetInputs, PROGRESS_THRESHOLD } from "../../src/cli/fleet.ts";
import { PARALLEL_THRESHOLD } from "../../src/core/threads.ts";
import { renderFile } from "../../src/pipeline.ts";
import { BUN, ROOT, runCli, runInProcess, runProcess } from "../support/cli.ts";

const EXAMPLE = readFileSync("examples/compass-runner.yaml", "utf8");
const variant = (name: string) => EXAMPLE.replace(/^name: compass-runner$/m, `name: ${name}`);
const EXAMPLE_JSON = parse(EXAMPLE);
const broken = EXAMPLE.replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 60");

let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "rigging-fleet-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The entries of a fleet's output a person sees: each NAME (a link to its hidden current generation). */
function visible(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .sort();
}

function dirTexts(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

/** The objects of a YAML stream, in order. */
const objectsOf = (text: string) => parseAllDocuments(text).map((d) => d.toJSON());

const hasKubectl = spawnSync("kubectl", ["version", "--client"]).status === 0;

/** The kustomization of the default layout, as the task states it (plus the order kustomize keeps). */
const STREAM_KUSTOMIZATION = {
  apiVersion: "kustomize.config.k8s.io/v1beta1",
  kind: "Kustomization",
  sortOptions: { order: "fifo" },
  resources: ["manifests.yaml"],
};

describe("render a fleet", () => {
  it("makes no notes, which it never prints: the same objects as a render that makes them", () => {
    const file = write("one.yaml", EXAMPLE);
    const withNotes = renderFile(file);
    const without = renderFile(file, { notes: false });
    expect(withNotes.notes.length).toBeGreaterThan(0);
    expect(without.notes).toEqual([]);
    expect(without.objects).toEqual(withNotes.objects);
  });

  it("renders each file into OUT/NAME/ exactly as a single render would: manifests.yaml is its stdout, byte for byte", () => {
    const a = write("in/alpha.yaml", variant("alpha"));
    const b = write("in/beta.yml", variant("beta"));
    const out = join(root, "out");
    const result = runInProcess(["render", a, b, "-o", out]);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toBe("");
    expect(visible(out)).toEqual(["alpha", "beta"]);
    for (const [name, file] of [
      ["alpha", a],
      ["beta", b],
    ]) {
      expect(readdirSync(join(out, name)).sort()).toEqual([".rigging-output", "NOTES.md", "kustomization.yaml", "manifests.yaml"]);
      const stdout = runInProcess(["render", file]);
      expect(stdout.code).toBe(0);
      expect(readFileSync(join(out, name, "manifests.yaml"), "utf8")).toBe(stdout.out);
      expect(parse(readFileSync(join(out, name, "kustomization.yaml"), "utf8"))).toEqual(STREAM_KUSTOMIZATION);
      const single = join(root, `single-${name}`);
      expect(runInProcess(["render", file, "-o", single, "-q"]).code).toBe(0);
      // The same files but the notes (and the list of what rigging wrote, which names them).
      const { "NOTES.md": notes, ".rigging-output": _owned, ...manifests } = dirTexts(join(out, name));
      const { ".rigging-output": _single, ...alone } = dirTexts(single);
      expect(manifests).toEqual(alone);
      // The notes render prints on stderr for one file, kept beside the member's manifests.
      expect(notes).toBe(`# ${name}\n\nWhat rigging render prints after rendering ${name}'s values file alone:\n\n\`\`\`text\n${stdout.err}\`\`\`\n`);
    }
    expect(readFileSync(join(out, "beta", "manifests.yaml"), "utf8")).toContain("\nkind: DaemonSet\nmetadata:\n  name: beta\n");
  });

  it("--per-object writes one file per object and a kustomization listing them, as a single render with --per-object does", () => {
    const a = write("in/alpha.yaml", variant("alpha"));
    const b = write("in/beta.yaml", variant("beta"));
    const out = join(root, "out");
    const result = runInProcess(["render", join(root, "in"), "-o", out, "--per-object"]);
    expect(result.code, result.err).toBe(0);
    for (const [name, file] of [
      ["alpha", a],
      ["beta", b],
    ]) {
      const files = readdirSync(join(out, name)).sort();
      const objects = objectsOf(runInProcess(["render", file]).out);
      // One file per object, named NN-kind-name.yaml in apply order, each holding that object.
      const perObject = files.filter((f) => /^\d\d-/.test(f));
      expect(perObject).toHaveLength(objects.length);
      expect(files).toEqual([".rigging-output", ...perObject, "NOTES.md", "kustomization.yaml"]);
      expect(perObject.map((f) => objectsOf(readFileSync(join(out, name, f), "utf8")))).toEqual(objects.map((o) => [o]));
      expect(perObject.map((f, i) => f.startsWith(`${String(i + 1).padStart(2, "0")}-${objects[i].kind.toLowerCase()}-`))).toEqual(perObject.map(() => true));
      expect(parse(readFileSync(join(out, name, "kustomization.yaml"), "utf8")).resources).toEqual(perObject);
      const single = join(root, `single-${name}`);
      expect(runInProcess(["render", file, "-o", single, "--per-object", "-q"]).code).toBe(0);
      const { "NOTES.md": _notes, ".rigging-output": _owned, ...manifests } = dirTexts(join(out, name));
      const { ".rigging-output": _single, ...alone } = dirTexts(single);
      expect(manifests).toEqual(alone);
    }
    expect(readFileSync(join(out, "beta", "12-daemonset-beta.yaml"), "utf8")).toContain("name: beta");
  });

  it.skipIf(!hasKubectl).each([[[]], [["--per-object"]]])(
    "kubectl kustomize OUT/NAME (render %j) builds the objects rigging render FILE prints, in order",
    (flags) => {
      const files = [write("in/a.yaml", variant("a")), write("in/b.yaml", variant("b"))];
      const out = join(root, "out");
      expect(runInProcess(["render", join(root, "in"), "-o", out, ...flags]).code).toBe(0);
      for (const [name, file] of [
        ["a", files[0]],
        ["b", files[1]],
      ]) {
        const built = spawnSync("kubectl", ["kustomize", join(out, name)], { encoding: "utf8" });
        expect(built.status, built.stderr).toBe(0);
        const stream = objectsOf(runInProcess(["render", file]).out);
        expect(stream.length).toBeGreaterThan(10);
        expect(objectsOf(built.stdout)).toEqual(stream);
      }
    },
  );

  it("switching layouts replaces the other layout's files in OUT/NAME and leaves no generation behind", () => {
    const file = write("in/a.yaml", variant("a"));
    const out = join(root, "out");
    const layouts: [string[], (files: string[]) => boolean][] = [
      [[], (files) => files.join() === ".rigging-output,NOTES.md,kustomization.yaml,manifests.yaml"],
      [["--per-object"], (files) => files.length === 16 && files.includes("12-daemonset-a.yaml") && !files.includes("manifests.yaml")],
      [[], (files) => files.join() === ".rigging-output,NOTES.md,kustomization.yaml,manifests.yaml"],
    ];
    for (const [flags, expected] of layouts) {
      expect(runInProcess(["render", file, write("in/z.yaml", variant("z")), "-o", out, ...flags]).code).toBe(0);
      expect(expected(readdirSync(join(out, "a")).sort()), `${flags}: ${readdirSync(join(out, "a"))}`).toBe(true);
      expect(readdirSync(out).filter((e) => e.startsWith(".")).length).toBe(2); // .a.<n> and .z.<n>, nothing else
    }
  });

  it("over an earlier fleet output: a line per member that changed or is new, in input order, none for the rest", () => {
    const out = join(root, "out");
    write("in/beta.yaml", variant("beta"));
    write("in/alpha.yaml", variant("alpha"));
    const first = runInProcess(["render", join(root, "in"), "-o", out]);
    expect(first.code, first.err).toBe(0);
    expect(first.err).toBe(`rendered 2 of 2 values files into ${out}\n`);
    write("in/beta.yaml", variant("beta").replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 7200"));
    write("in/gamma.yaml", variant("gamma"));
    const second = runInProcess(["render", join(root, "in"), "-o", out]);
    expect(second.code, second.err).toBe(0);
    expect(second.err.split("\n")).toEqual([
      `${join(out, "beta")}: changes against the earlier output: 1 changed, 0 added, 0 removed: Runner restarts; enrollment breaks until both sides follow`,
      `${join(out, "gamma")}: new, 13 objects`,
      `rendered 3 of 3 values files into ${out}`,
      "",
    ]);
    // The same objects again, and in the other layout: nothing changed, nothing said.
    for (const flags of [[], ["--per-object"]]) {
      const again = runInProcess(["render", join(root, "in"), "-o", out, ...flags]);
      expect(again.err).toBe(`rendered 3 of 3 values files into ${out}\n`);
    }
  });

  it("over an earlier fleet output: the same lines under Node and Bun", () => {
    const out = join(root, "out");
    const saved = join(root, "saved");
    write("in/alpha.yaml", variant("alpha"));
    write("in/beta.yaml", variant("beta"));
    expect(runCli(["render", join(root, "in"), "-o", out]).code).toBe(0);
    cpSync(out, saved, { recursive: true, verbatimSymlinks: true });
    write("in/alpha.yaml", variant("alpha").replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 7200"));
    write("in/gamma.yaml", variant("gamma"));
    const node = runCli(["render", join(root, "in"), "-o", out]);
    expect(node.code).toBe(0);
    expect(node.err).toContain(`${join(out, "alpha")}: changes against the earlier output: `);
    rmSync(out, { recursive: true });
    cpSync(saved, out, { recursive: true, verbatimSymlinks: true });
    expect(runProcess(BUN, [join(ROOT, "dist", "rigging.mjs"), "render", join(root, "in"), "-o", out])).toEqual(node);
  });

  it("a directory renders its values files, one level deep, sorted, skipping hidden files", () => {
    write("in/b.json", JSON.stringify({ ...EXAMPLE_JSON, name: "b" }));
    write("in/a.yaml", variant("a"));
    write("in/.hidden.yaml", variant("hidden"));
    write("in/notes.txt", "not values");
    write("in/nested/c.yaml", variant("c"));
    const out = join(root, "out");
    const result = runInProcess(["render", join(root, "in"), "-o", out]);
    expect(result.code, result.err).toBe(0);
    expect(visible(out)).toEqual(["a", "b"]);
    expect(result.err).toContain("rendered 2 of 2 values files");
  });

  it("names a directory's files and their outputs as path.join, basename and extname do", () => {
    const names = ["a.yaml", "B.YML", "c.d.json", "e..yaml", "f-1_2.Json", "g.yml", "9.yaml"];
    for (const name of names) write(`in/${name}`, "kind: CompassRunner\n");
    write("in/.h.yaml", "");
    write("in/notes.txt", "");
    const reference = (dir: string) =>
      readdirSync(dir)
        .filter((name) => /\.(ya?ml|json)$/i.test(name) && !name.startsWith("."))
        .sort()
        .map((name) => join(dir, name))
        .map((file) => ({ file, name: basename(file, extname(file)) }));
    const cwd = process.cwd();
    try {
      process.chdir(root);
      for (const dir of ["in", "in/", "./in", "in/../in", "in//", join(root, "in"), `${root}/./in/`]) {
        expect(fleetInputs([dir]), dir).toEqual(reference(dir));
      }
      process.chdir(join(root, "in"));
      for (const dir of [".", "./", "../in"]) expect(fleetInputs([dir]), dir).toEqual(reference(dir));
      // Files given one by one keep their own paths.
      expect(fleetInputs(["a.yaml", "./B.YML", "../in/c.d.json"])).toEqual(
        ["a.yaml", "./B.YML", "../in/c.d.json"].map((file) => ({ file, name: basename(file, extname(file)) })),
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it("a bad file is reported by name with its errors; the good ones are still written; exit 1", () => {
    write("in/a.yaml", variant("a"));
    const bad = write("in/b.yaml", broken);
    write("in/c.yaml", variant("c"));
    write("in/d.yaml", "kind: [");
    const out = join(root, "out");
    const result = runInProcess(["render", join(root, "in"), "-o", out]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(new RegExp(`${bad}:\\d+:\\d+ tokenExpirationSeconds: 60 is below 600 \\(CR-03`));
    expect(result.err).toContain(`${bad}: 1 error(s); not rendered`);
    expect(result.err).toContain(`${join(root, "in", "d.yaml")}:`);
    expect(result.err).toContain("rendered 2 of 4 values files");
    expect(visible(out)).toEqual(["a", "c"]); // no half-written b/ or d/
    expect(readdirSync(out).sort()).toEqual([".a.1", ".c.1", "a", "c"]); // no staging
    expect(readdirSync(join(out, "a")).sort()).toEqual([".rigging-output", "NOTES.md", "kustomization.yaml", "manifests.yaml"]);
  });

  it("a bad file keeps its previous output as it was", () => {
    const file = write("in/a.yaml", variant("a"));
    const out = join(root, "out");
    expect(runInProcess(["render", file, write("in/z.yaml", variant("z")), "-o", out]).code).toBe(0);
    const before = dirTexts(join(out, "a"));
    writeFileSync(file, broken);
    expect(runInProcess(["render", file, join(root, "in/z.yaml"), "-o", out]).code).toBe(1);
    expect(dirTexts(join(out, "a"))).toEqual(before);
  });

  it("refuses two files that would share an output name, before writing anything", () => {
    const a = write("x/site.yaml", variant("a"));
    const b = write("y/site.json", JSON.stringify(EXAMPLE_JSON));
    const out = join(root, "out");
    const result = runInProcess(["render", a, b, "-o", out]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`${a} and ${b} would both render into site/`);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    [["a.yaml", "b.yaml"], "needs -o DIR"],
    [["a.yaml", "--per-object"], "--per-object chooses the files -o DIR writes"],
    [["in", "--per-object"], "--per-object chooses the files -o DIR writes"],
    [["a.yaml", "-", "-o", "out"], "stdin"],
    [["a.yaml", "b.yaml", "-o", "a.yaml"], "exists and is not a directory"],
    [["a.yaml", "b.yaml", "-o", "missing/out"], "its parent does not exist"],
  ])("usage errors: render %j", (args, message) => {
    write("a.yaml", variant("a"));
    write("b.yaml", variant("b"));
    write("in/c.yaml", variant("c"));
    const result = runInProcess(["render", ...args.map((a) => (a.startsWith("-") ? a : join(root, a)))]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(readFileSync(join(root, "a.yaml"), "utf8")).toBe(variant("a"));
  });

  it("shows a progress line only on a terminal and only for a long fleet", () => {
    const files = Array.from({ length: PROGRESS_THRESHOLD }, (_, i) => write(`in/f${String(i).padStart(3, "0")}.yaml`, variant(`f${i}`)));
    const onTty = runInProcess(["render", ...files, "-o", join(root, "o1")], { tty: true });
    expect(onTty.code).toBe(0);
    expect(onTty.err).toContain(`rendering ${PROGRESS_THRESHOLD}/${PROGRESS_THRESHOLD}`);
    const piped = runInProcess(["render", ...files, "-o", join(root, "o2")], { tty: false });
    expect(piped.err).not.toContain("rendering ");
    const short = runInProcess(["render", ...files.slice(1), "-o", join(root, "o3")], { tty: true });
    expect(short.err).not.toContain("rendering ");
  });

  it("keeps the single-file command as it was: a stream on stdout, or -o DIR written directly", () => {
    const file = write("one.yaml", EXAMPLE);
    const streamed = runInProcess(["render", file]);
    expect(streamed.code).toBe(0);
    expect(streamed.out.startsWith("---\napiVersion: v1\nkind: Namespace\n")).toBe(true);
    const out = join(root, "out");
    const written = runInProcess(["render", file, "-o", out]);
    expect(written.code).toBe(0);
    expect(written.err).toContain(`wrote 13 objects (in manifests.yaml) and kustomization.yaml to ${out}\n`);
    expect(readdirSync(out).sort()).toEqual([".rigging-output", "kustomization.yaml", "manifests.yaml"]);
    expect(readFileSync(join(out, "manifests.yaml"), "utf8")).toBe(streamed.out);
  });
});

describe("rigging check OUT reads a fleet's output in either layout", () => {
  const DS = "12-daemonset-b.yaml";
  /** Sets hostUsers: true in NAME's DaemonSet, whichever file holds it. */
  const breakDaemonSet = (dir: string, file: string) => {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    expect(text).toMatch(/^ {6}hostUsers: false$/m);
    writeFileSync(path, text.replace(/^( {6})hostUsers: false$/m, "$1hostUsers: true"));
  };

  it.each([
    // The files judged: each installation's manifests; its kustomization only lists them, so it is not built.
    [[], "manifests.yaml", 2],
    [["--per-object"], DS, 2 * 13],
  ])("render %j: every installation passes; one edited by hand is reported at its file", (flags, file, files) => {
    write("in/a.yaml", variant("a"));
    write("in/b.yaml", variant("b"));
    const out = join(root, "out");
    expect(runInProcess(["render", join(root, "in"), "-o", out, ...flags]).code).toBe(0);
    const clean = runInProcess(["check", out]);
    expect(clean.code, clean.err + clean.out).toBe(0);
    // Both installations were read, once each (not their hidden generations): 13 objects each.
    expect(clean.err).toContain(`0 error(s), 0 warning(s) in 26 object(s) of ${files} file(s)`);
    breakDaemonSet(join(out, "b"), file);
    const broken = runInProcess(["check", out]);
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(new RegExp(`out/b/${file.replace(".", "\\.")}:\\d+ +CR-09 +DaemonSet/compass-runner/b `));
    expect(broken.out).not.toMatch(/out\/a\//);
  });
});

describe("render --help", () => {
  it("states the input limits with their values", async () => {
    const { LIMITS } = await import("../../src/parse/limits.ts");
    const help = runInProcess(["render", "--help"]).out;
    expect(help).toContain(`at most ${LIMITS.fileBytes / 1024 / 1024} MiB`);
    expect(help).toContain(`at most ${LIMITS.aliases} YAML aliases`);
    expect(help).toContain(`at most ${LIMITS.depth} levels deep`);
    expect(help).toContain("not its subdirectories");
  });
});

describe("a long fleet, spread over worker threads by the built command", () => {
  it("writes what one thread writes, reports bad files in input order, and exits 1", () => {
    const count = PARALLEL_THRESHOLD + 20;
    const names = Array.from({ length: count }, (_, i) => `c${String(i).padStart(4, "0")}`);
    const bad = new Set([names[3], names[count - 2]]);
    for (const name of names) write(`in/${name}.yaml`, bad.has(name) ? broken : variant(name));
    // Three threads whatever the machine: the main one and two workers.
    const result = runCli(["render", join(root, "in"), "-o", join(root, "out")], undefined, { RIGGING_THREADS: "3" });
    expect(result.code, result.err).toBe(1);
    expect(result.err).toContain(`rendered ${count - 2} of ${count} values files`);
    const reported = [...result.err.matchAll(/(c\d{4})\.yaml: 1 error\(s\); not rendered/g)].map((m) => m[1]);
    expect(reported).toEqual([names[3], names[count - 2]]);
    expect(visible(join(root, "out"))).toEqual(names.filter((n) => !bad.has(n)));
    // The last share is rendered by a worker thread: same bytes as a fleet of it alone, on one thread.
    const last = names[count - 1];
    write(`one/${last}.yaml`, variant(last));
    expect(runCli(["render", join(root, "one"), "-o", join(root, "alone")]).code).toBe(0);
    expect(dirTexts(join(root, "out", last))).toEqual(dirTexts(join(root, "alone", last)));
    // Rendered again, the bad ones mended and the last changed: each member's line in input order, whatever thread made it.
    for (const name of bad) write(`in/${name}.yaml`, variant(name));
    write(
      `in/${last}.yaml`,
      variant(last).replace(/^image: .*$/m, (line) => line.replace(/@sha256:[0-9a-f]{64}$/, `@sha256:${"1".repeat(64)}`)),
    );
    const again = runCli(["render", join(root, "in"), "-o", join(root, "out")], undefined, { RIGGING_THREADS: "3" });
    expect(again.code, again.err).toBe(0);
    expect(again.err.split("\n").filter((line) => line.startsWith(join(root, "out")))).toEqual([
      `${join(root, "out", names[3])}: new, 13 objects`,
      `${join(root, "out", names[count - 2])}: new, 13 objects`,
      `${join(root, "out", last)}: changes against the earlier output: 1 changed, 0 added, 0 removed: Runner restarts`,
    ]);
  });
});
