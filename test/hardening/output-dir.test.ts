// `-o DIR` never deletes a file rigging did not write: DIR must be absent,
// empty or an earlier rigging output (its manifest lists what rigging
// wrote); anything else is refused with exit 2 and one line, and nothing is
// touched. DIR itself is never renamed (a mount point works), and every
// failure of the file system is a clear user error, never exit 3.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { MANIFEST } from "../../src/emit/output-dir.ts";
import { CLI, runInProcess } from "../support/cli.ts";
import { CAN_MOUNT, inNamespace, serverValues, tree } from "../support/output-tree.ts";

let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "rigging-odir-"))));
afterEach(() => {
  spawnSync("chmod", ["-R", "u+w", root]);
  rmSync(root, { recursive: true, force: true });
});

function write(rel: string, text: string): string {
  const path = join(root, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The built command run in `cwd`, as a user would run it. */
function cli(args: string[], cwd = root, command: string[] = [process.execPath]) {
  const r = spawnSync(command[0], [...command.slice(1), CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** A refusal: exit 2, nothing on stdout, one line on stderr, no trace. */
function refused(result: { code: number; out: string; err: string }, message: RegExp) {
  expect(result.code, result.err).toBe(2);
  expect(result.out).toBe("");
  expect(result.err).toMatch(/^error [^\n]*\n$/);
  expect(result.err).not.toMatch(/internal error|\n {4}at /);
  expect(result.err).toMatch(message);
}

/** What a render of `values` (with `flags`) writes into a fresh directory, by file name. */
function expected(values: string, flags: string[] = []): Record<string, string> {
  const out = join(mkdtempSync(join(root, "expected-")), "out");
  expect(runInProcess(["render", write(`expected-${Math.random()}.yaml`, values), "-o", out, "-q", ...flags]).code).toBe(0);
  return tree(out);
}

describe("-o DIR refuses a directory that holds what rigging did not write, and touches nothing", () => {
  it("a DIR holding the values file and notes.txt: exit 2, the values file named", () => {
    const values = write("out/values.yaml", serverValues("a"));
    write("out/notes.txt", "mine\n");
    const before = tree(root);
    refused(runInProcess(["render", values, "-o", join(root, "out")]), /out\/: holds values\.yaml, the values file being rendered; choose another directory$/m);
    expect(tree(root)).toEqual(before);
  });

  it("a DIR holding notes.txt: exit 2, saying what is in the way", () => {
    const values = write("values.yaml", serverValues("a"));
    write("out/notes.txt", "mine\n");
    const before = tree(root);
    refused(runInProcess(["render", values, "-o", join(root, "out")]), /out\/: holds notes\.txt, which rigging did not write; choose an empty directory$/m);
    expect(tree(root)).toEqual(before);
  });

  it("-o . in a directory with .git, the values file and notes.txt", () => {
    const work = join(root, "work");
    write("work/.git/HEAD", "ref: refs/heads/main\n");
    write("work/values.yaml", serverValues("a"));
    write("work/notes.txt", "mine\n");
    const before = tree(root);
    refused(cli(["render", "values.yaml", "-o", "."], work), /^error \.\/: holds values\.yaml, the values file being rendered/);
    expect(tree(root)).toEqual(before);
  });

  it("-o .. from a directory with .git, the values file and notes.txt", () => {
    const work = join(root, "parent", "work");
    write("parent/work/.git/HEAD", "ref: refs/heads/main\n");
    write("parent/work/values.yaml", serverValues("a"));
    write("parent/work/notes.txt", "mine\n");
    write("parent/other.txt", "mine too\n");
    const before = tree(root);
    refused(cli(["render", "values.yaml", "-o", ".."], work), /^error \.\.\/: holds other\.txt and work, which rigging did not write/);
    expect(tree(root)).toEqual(before);
  });

  it("an earlier output with a file added by hand", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    writeFileSync(join(out, "patch.yaml"), "mine\n");
    const b = write("b.yaml", serverValues("b"));
    const before = tree(root);
    refused(runInProcess(["render", b, "-o", out]), /holds patch\.yaml, which rigging did not write/);
    expect(tree(root)).toEqual(before);
  });

  it.each([
    ["a directory", (path: string) => mkdirSync(path), []],
    ["a symlink", (path: string) => symlinkSync("/etc/hostname", path), []],
    ["a directory", (path: string) => mkdirSync(path), ["--per-object"]],
    ["a symlink", (path: string) => symlinkSync("/etc/hostname", path), ["--per-object"]],
  ])("an earlier output where one of rigging's files was replaced by %s (render %j)", (_kind, replace, flags) => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, ...flags]).code).toBe(0);
    const name = flags.length === 0 ? "manifests.yaml" : "06-deployment-a.yaml";
    const victim = join(out, name);
    unlinkSync(victim);
    replace(victim);
    const b = write("b.yaml", serverValues("b"));
    const before = tree(root);
    // Whichever layout the next render asks for.
    refused(runInProcess(["render", b, "-o", out]), new RegExp(`holds ${name.replaceAll(".", "\\.")}, which rigging did not write`));
    refused(runInProcess(["render", b, "-o", out, "--per-object"]), new RegExp(`holds ${name.replaceAll(".", "\\.")}, which rigging did not write`));
    expect(tree(root)).toEqual(before);
  });

  it.each([
    ["not JSON", "{"],
    ["another tool's JSON", '{"files": ["notes.txt"]}'],
    ["a list that climbs out", JSON.stringify({ "rigging-output": 1, files: ["../victim.txt", "notes.txt"] })],
    ["a list with a path", JSON.stringify({ "rigging-output": 1, files: ["sub/notes.txt"] })],
  ])("a manifest rigging did not write (%s)", (_kind, manifest) => {
    write("victim.txt", "mine\n");
    write("out/notes.txt", "mine\n");
    write(`out/${MANIFEST}`, manifest);
    const a = write("a.yaml", serverValues("a"));
    const before = tree(root);
    refused(runInProcess(["render", a, "-o", join(root, "out")]), new RegExp(`holds ${MANIFEST.replace(".", "\\.")}, which is not a manifest rigging wrote`));
    expect(tree(root)).toEqual(before);
  });

  it("a render with invalid values writes nothing: an absent DIR stays absent, an earlier output stays as it was", () => {
    const bad = write("bad.yaml", serverValues("a").replace(/^replicas: 1$/m, "replicas: many"));
    expect(runInProcess(["render", bad, "-o", join(root, "absent")]).code).toBe(1);
    expect(existsSync(join(root, "absent"))).toBe(false);
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    const before = tree(root);
    expect(runInProcess(["render", bad, "-o", out]).code).toBe(1);
    expect(tree(root)).toEqual(before);
  });
});

describe("-o DIR replaces rigging's own files", () => {
  it("an earlier output becomes exactly the new one, its manifest listing the new files", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    expect(runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("b")));
    const listed = JSON.parse(readFileSync(join(out, MANIFEST), "utf8")).files;
    expect([...listed, MANIFEST].sort()).toEqual(readdirSync(out).sort());
    // kustomization.yaml lists every rendered file, in the order of their names.
    expect(parse(readFileSync(join(out, "kustomization.yaml"), "utf8")).resources).toEqual(listed.filter((f: string) => f !== "kustomization.yaml").sort());
  });

  // Such an output records no checksum: files that differ from the new render need --force (output-edits.test.ts).
  it("an output written before manifests existed (its kustomization.yaml lists exactly the other files) is taken over", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    unlinkSync(join(out, MANIFEST));
    expect(runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out, "--force"]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("b")));
  });

  it("one file per object, as a rigging before manifests wrote it, is taken over by the manifests.yaml layout, and back", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out, "--per-object"]).code).toBe(0);
    expect(Object.keys(tree(out)).length).toBeGreaterThan(10);
    unlinkSync(join(out, MANIFEST));
    expect(runInProcess(["render", write("b.yaml", serverValues("b")), "-o", out, "--force"]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("b")));
    expect(Object.keys(tree(out)).sort()).toEqual([MANIFEST, "kustomization.yaml", "manifests.yaml"]);
    expect(runInProcess(["render", join(root, "a.yaml"), "-o", out, "--per-object"]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("a"), ["--per-object"]));
  });

  it("such an output beside an empty manifest (a takeover by a rigging that created it in place, killed before writing it) is taken over", () => {
    const out = join(root, "out");
    const a = write("a.yaml", serverValues("a"));
    expect(runInProcess(["render", a, "-o", out]).code).toBe(0);
    writeFileSync(join(out, MANIFEST), "");
    const r = runInProcess(["render", a, "-o", out, "-q"]);
    expect(r.code, r.err).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("a")));
  });

  it("such an output whose kustomization.yaml was edited by hand is refused", () => {
    const out = join(root, "out");
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    unlinkSync(join(out, MANIFEST));
    writeFileSync(join(out, "kustomization.yaml"), `${readFileSync(join(out, "kustomization.yaml"), "utf8")}namePrefix: mine-\n`);
    const b = write("b.yaml", serverValues("b"));
    const before = tree(root);
    refused(runInProcess(["render", b, "-o", out]), /which rigging did not write/);
    expect(tree(root)).toEqual(before);
  });

  it("an empty existing DIR is written into", () => {
    const out = join(root, "out");
    mkdirSync(out);
    expect(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", out]).code).toBe(0);
    expect(tree(out)).toEqual(expected(serverValues("a")));
  });
});

describe("-o edge cases", () => {
  // 4 labels of 61-63 characters: the longest DNS subdomain a ServiceAccount may have.
  const longName = ["a".repeat(61), "b".repeat(63), "c".repeat(63), "d".repeat(63)].join(".");

  it("a 253-character ServiceAccount name writes bounded, distinct, deterministic file names (--per-object) that kubectl builds", () => {
    expect(longName).toHaveLength(253);
    const values = write("long.yaml", serverValues("a", longName));
    const out = join(root, "out");
    const result = runInProcess(["render", values, "-o", out, "-q", "--per-object"]);
    expect(result.code, result.err).toBe(0);
    for (const name of readdirSync(out)) expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(readdirSync(out).some((name) => name.includes("-serviceaccount-aaaa"))).toBe(true);
    expect(tree(out)).toEqual(expected(serverValues("a", longName), ["--per-object"]));
    // The same objects as the stream: nothing lost to the shorter names.
    const stream = parseAllDocuments(runInProcess(["render", values]).out).map((d) => d.toJSON());
    expect(stream.some((o) => o.kind === "ServiceAccount" && o.metadata.name === longName)).toBe(true);
    const built = spawnSync("kubectl", ["kustomize", out], { encoding: "utf8" });
    if (built.error === undefined) {
      expect(built.status, built.stderr).toBe(0);
      expect(parseAllDocuments(built.stdout).map((d) => d.toJSON())).toEqual(expect.arrayContaining(stream));
    }
    // And as a fleet member.
    const fleet = runInProcess(["render", values, write("b.yaml", serverValues("b")), "-o", join(root, "fleet"), "--per-object"]);
    expect(fleet.code, fleet.err).toBe(0);
    // The same files but the render notes a fleet member keeps beside them (and the list of what rigging wrote).
    const { "NOTES.md": _notes, ".rigging-output": _owned, ...member } = tree(join(root, "fleet", "long"));
    const { ".rigging-output": _single, ...alone } = tree(out);
    expect(member).toEqual(alone);
  });

  it("render base.yaml -o base.yaml/out: exit 2, one line", () => {
    const values = write("base.yaml", serverValues("a"));
    refused(
      runInProcess(["render", values, "-o", join(values, "out")]),
      /base\.yaml\/out: cannot create the output directory: .*base\.yaml is not a directory$/m,
    );
    refused(runInProcess(["render", values, write("b.yaml", serverValues("b")), "-o", join(values, "out")]), /base\.yaml is not a directory$/m);
    expect(readFileSync(values, "utf8")).toBe(serverValues("a"));
  });

  it("a DIR that is a symlink to nothing: exit 2", () => {
    symlinkSync(join(root, "nowhere"), join(root, "out"));
    refused(runInProcess(["render", write("a.yaml", serverValues("a")), "-o", join(root, "out")]), /out: is a symlink to nothing/);
    expect(existsSync(join(root, "nowhere"))).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0 || spawnSync("setpriv", ["--version"]).status !== 0)(
    "a read-only existing output (mode 555, its owner not root): exit 2, one line, nothing changed",
    () => {
      // A working directory of an ordinary user (nobody), who renders into out/ and then makes it read-only.
      chmodSync(root, 0o755);
      const work = join(root, "work");
      write("work/a.yaml", serverValues("a"));
      write("work/b.yaml", serverValues("b"));
      chownSync(work, 65534, 65534);
      const nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath];
      expect(cli(["render", "a.yaml", "-o", "out", "-q"], work, nobody).code).toBe(0);
      chmodSync(join(work, "out"), 0o555);
      const before = tree(root);
      refused(
        cli(["render", "b.yaml", "-o", "out", "-q"], work, nobody),
        /^error out: cannot write \.rigging-output: permission denied; nothing was changed$/m,
      );
      expect(tree(root)).toEqual(before);
      // A fleet whose output directory cannot be written.
      chmodSync(work, 0o555);
      refused(cli(["render", "a.yaml", "b.yaml", "-o", ".", "-q"], work, nobody), /^error \.: cannot write in the output directory: permission denied$/m);
      expect(tree(root)).toEqual(before);
    },
  );
});

describe.skipIf(!CAN_MOUNT)("-o onto a mount point (a tmpfs in a namespace of the test's own)", () => {
  /** Runs `script` with $MNT a fresh mount point, $A and $B two values files; copies what it leaves into `copy`. */
  function onMount(script: string, options = "") {
    const a = write("a.yaml", serverValues("a"));
    const b = write("b.yaml", serverValues("b"));
    const mnt = join(root, "mnt");
    const copy = join(root, "copy");
    mkdirSync(mnt);
    mkdirSync(copy);
    const result = inNamespace(`mount -t tmpfs ${options} none "$MNT" || exit 99\n${script}\ncp -a "$MNT/." "$COPY"`, { MNT: mnt, COPY: copy, A: a, B: b });
    expect(result.code, result.err).not.toBe(99);
    // The mount ended with the namespace: the directory beneath is untouched.
    expect(readdirSync(mnt)).toEqual([]);
    return { ...result, copy };
  }

  it("writes into an empty mount point, then replaces its own files there (DIR itself is never renamed)", () => {
    const r = onMount(`"$NODE" "$CLI" render "$A" -o "$MNT" -q; echo "first $?"; "$NODE" "$CLI" render "$B" -o "$MNT" -q; echo "second $?"`);
    expect(r.out, r.err).toBe("first 0\nsecond 0\n");
    expect(tree(r.copy)).toEqual(expected(serverValues("b")));
  });

  it("a disk that fills half-way through the new files leaves DIR exactly as it was", () => {
    // After the first render, fill the file system but for three pages:
    // the new manifest fits, the new files do not.
    const r = onMount(
      `"$NODE" "$CLI" render "$A" -o "$MNT/out" -q 2>/dev/null || exit 98
       dd if=/dev/zero of="$MNT/reserve" bs=4096 count=3 2>/dev/null
       dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null; rm "$MNT/reserve"
       "$NODE" "$CLI" render "$B" -o "$MNT/out" -q; echo "second $?"; rm "$MNT/fill"`,
      "-o size=512k",
    );
    expect(r.out).toBe("second 2\n");
    expect(r.err).toMatch(/^error .*mnt\/out: cannot write manifests\.yaml: no space left on the device; nothing was changed\n$/);
    expect(tree(join(r.copy, "out"))).toEqual(expected(serverValues("a")));
    expect(readdirSync(r.copy)).toEqual(["out"]);
  });

  it("a read-only file system: exit 2, one line, nothing changed", () => {
    const r = onMount(
      `"$NODE" "$CLI" render "$A" -o "$MNT" -q 2>/dev/null || exit 98; mount -o remount,ro "$MNT" || exit 97; "$NODE" "$CLI" render "$B" -o "$MNT" -q; echo "second $?"`,
    );
    expect(r.out).toBe("second 2\n");
    expect(r.err).toMatch(/^error .*mnt: cannot write \.rigging-output: read-only file system; nothing was changed\n$/);
    expect(tree(r.copy)).toEqual(expected(serverValues("a")));
  });
});
