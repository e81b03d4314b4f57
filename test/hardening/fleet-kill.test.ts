// A fleet's OUT/NAME is at every instant the complete old output or the
// complete new one. The built command replaces a fleet of 20 files, in
// one layout or the other (manifests.yaml, or --per-object every other
// run), and is killed (SIGKILL) at a random moment of each twelfth of a
// run in turn, so that the kills cover the whole run. After every kill
// each OUT/NAME must be there and complete: every file its manifest lists
// exists and parses, nothing else is there, kustomization.yaml lists
// them, and all its objects come from one run.
// The loop is bounded (KILLS runs); no assertion is about time.
import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { MANIFEST } from "../../src/emit/output-dir.ts";
import { CLI } from "../support/cli.ts";
import { serverValues } from "../support/output-tree.ts";

const MEMBERS = 20;
/** The objects of one Compass Server installation (serverValues). */
const OBJECTS = 11;
const KILLS = 12;
const names = Array.from({ length: MEMBERS }, (_, i) => `m${String(i).padStart(2, "0")}`);

let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), "rigging-kill-"))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes the fleet's values for run `run`: every object name of NAME carries `NAME-rRUN`. */
function writeInputs(run: number): void {
  mkdirSync(join(root, "in"), { recursive: true });
  for (const name of names) writeFileSync(join(root, "in", `${name}.yaml`), serverValues(`${name}-r${run}`));
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the start to the end, in ms. */
  took: number;
}

/** Renders the fleet; with `killAfter`, SIGKILLs it that long (ms) after it starts. */
function render(killAfter?: number, flags: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, "render", join(root, "in"), "-o", join(root, "out"), ...flags], {
      env: { ...process.env, RIGGING_THREADS: "1" },
      stdio: "ignore",
    });
    const timer = killAfter === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfter);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, took: Date.now() - started });
    });
  });
}

/** The run whose objects NAME holds; fails the test unless OUT/NAME is there and complete. */
function completeRun(name: string): number {
  const dir = join(root, "out", name);
  expect(lstatSync(dir, { throwIfNoEntry: false }), `${name} is missing`).toBeDefined();
  const listed: string[] = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")).files;
  expect([...readdirSync(dir)].sort(), name).toEqual([...listed, MANIFEST].sort());
  const kustomization = parse(readFileSync(join(dir, "kustomization.yaml"), "utf8"));
  // Every file rigging wrote but the kustomization itself and the render notes beside it.
  expect(kustomization.resources, name).toEqual(listed.filter((f) => f !== "kustomization.yaml" && f !== "NOTES.md"));
  // Either layout: manifests.yaml alone, or one file per object.
  const resources = kustomization.resources as string[];
  if (resources.length === 1) expect(resources, name).toEqual(["manifests.yaml"]);
  const runs = new Set<number>();
  let objects = 0;
  for (const file of resources) {
    const docs = parseAllDocuments(readFileSync(join(dir, file), "utf8"));
    if (resources.length > 1) expect(docs.length, `${name}/${file}`).toBe(1);
    for (const doc of docs) {
      expect(doc.errors, `${name}/${file}`).toEqual([]);
      const object = doc.toJSON();
      expect(object.apiVersion, `${name}/${file}`).toBeTypeOf("string");
      objects++;
      const run = new RegExp(`^${name}-r(\\d+)`).exec(object.metadata.name)?.[1];
      if (run !== undefined) runs.add(Number(run));
    }
  }
  expect(objects, name).toBe(OBJECTS);
  expect([...runs], `${name} mixes the objects of several runs`).toHaveLength(1);
  return [...runs][0];
}

describe("a fleet killed while it replaces its output", () => {
  it(`leaves every OUT/NAME complete, old or new, after each of ${KILLS} kills; the next run removes the leftovers`, async () => {
    writeInputs(0);
    const first = await render();
    expect(first.code).toBe(0);
    for (const name of names) expect(completeRun(name)).toBe(0);

    let killed = 0;
    let caughtHalfway = 0;
    for (let run = 1; run <= KILLS; run++) {
      writeInputs(run);
      // A random moment of the run-th twelfth of a run as long as the first one (the first ones land before it writes).
      const result = await render(((run - 1 + Math.random()) / KILLS) * first.took, run % 2 === 1 ? ["--per-object"] : []);
      if (result.signal === "SIGKILL") killed++;
      const runs = new Set(names.map(completeRun));
      const hidden = readdirSync(join(root, "out")).filter((entry) => entry.startsWith("."));
      if (runs.size > 1 || hidden.length > names.length) caughtHalfway++;
      for (const r of runs) expect(r).toBeLessThanOrEqual(run);
    }
    // The kills did land in the middle of replacing the fleet.
    expect(killed).toBeGreaterThan(0);
    expect(caughtHalfway).toBeGreaterThan(0);

    writeInputs(KILLS + 1);
    expect((await render()).code).toBe(0);
    for (const name of names) expect(completeRun(name)).toBe(KILLS + 1);
    // Exactly one generation per NAME is left: the current one. Any other
    // hidden entry is shown with its files, to tell what a kill left.
    const entries = readdirSync(join(root, "out")).sort();
    expect(entries.filter((e) => !e.startsWith("."))).toEqual(names);
    const current = new Set(names.map((n) => readlinkSync(join(root, "out", n))));
    const left = entries.filter((e) => e.startsWith(".") && !current.has(e));
    const contents = (e: string) => (lstatSync(join(root, "out", e)).isDirectory() ? readdirSync(join(root, "out", e)) : "not a directory");
    expect(Object.fromEntries(left.map((e) => [e, contents(e)]))).toEqual({});
    expect(current.size).toBe(names.length);
  }, 300_000);
});
