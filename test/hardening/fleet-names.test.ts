// A fleet member's hidden generations are `.BASE.<n>`, BASE being its name,
// or for a name over 200 characters its first 180, '-' and 12 hex digits
// of its SHA-256. A values file named exactly like such a BASE would share
// the longer member's generations, and each run would remove the other's:
// that name is refused, before anything is written, in one run or across
// runs into the same OUT.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInProcess } from "../support/cli.ts";
import { serverValues, tree } from "../support/output-tree.ts";

let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "rigging-fnames-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const LONG = "a".repeat(250);
/** The base of LONG's hidden generations, written out here from the rule above. */
const LIKE_ITS_GENERATIONS = `${"a".repeat(180)}-${createHash("sha256").update(LONG).digest("hex").slice(0, 12)}`;

function values(dir: string, name: string, objects: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, serverValues(objects));
  return path;
}

/** Every OUT/NAME link leads to a directory holding a manifests.yaml. */
function complete(out: string): void {
  for (const name of readdirSync(out).filter((e) => !e.startsWith(".")))
    expect(Object.keys(tree(join(out, name))), name.slice(0, 20)).toContain("manifests.yaml");
}

describe("a values file named like another member's hidden generations", () => {
  it("in one fleet: refused with exit 2, naming the file, nothing written", () => {
    const dir = join(root, "in");
    values(dir, LONG, "long");
    values(dir, LIKE_ITS_GENERATIONS, "short");
    const r = runInProcess(["render", dir, "-o", join(root, "out")]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`${LIKE_ITS_GENERATIONS}.yaml`);
    expect(r.err).toMatch(/hidden generations/);
    expect(readdirSync(root)).toEqual(["in"]);
  });

  it("across runs into the same OUT: refused, and the member already there keeps its output", () => {
    const out = join(root, "out");
    const first = runInProcess(["render", values(join(root, "one"), LONG, "long"), values(join(root, "one"), "other", "other"), "-o", out]);
    expect(first.code, first.err).toBe(0);
    complete(out);
    const before = tree(out);
    const r = runInProcess(["render", values(join(root, "two"), LIKE_ITS_GENERATIONS, "short"), values(join(root, "two"), "other", "other"), "-o", out]);
    expect(r.code).toBe(2);
    expect(tree(out)).toEqual(before);
    complete(out);
  });
});
