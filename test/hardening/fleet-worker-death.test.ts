// A fleet's worker thread that dies (out of heap here) costs the file it
// was rendering, and only that one: each file a worker finishes is handed
// back as it is done, so what the dying worker wrote before keeps its
// outcome. The heap is made small for the whole process
// (--max-old-space-size), and the file that exhausts it must land on a
// worker, not the main thread (whose death ends the process): the fleet's
// first input is a FIFO, on which the main thread, taking the first item
// before any worker has started, blocks until the test has seen a file
// after the heavy one written (so a worker holds it), and then writes it.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANIFEST } from "../../src/emit/output-dir.ts";
import { PARALLEL_THRESHOLD } from "../../src/core/threads.ts";
import { CLI, ROOT, runCli } from "../support/cli.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
const variant = (name: string) => EXAMPLE.replace(/^name: compass-runner$/m, `name: ${name}`);
/** Valid YAML of some 130,000 nodes: far more heap than HEAP_MB, well within the node limit. */
const heavy = () => `${EXAMPLE}x: [${"[[[[[[[[[[1]]]]]]]]]], ".repeat(12_000)}]\n`;
const HEAP_MB = 128;

const count = PARALLEL_THRESHOLD + 10;
const names = Array.from({ length: count }, (_, i) => `m${String(i).padStart(4, "0")}`);
const HEAVY = 40;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "rigging-worker-death-"));
  mkdirSync(join(root, "in"));
  names.forEach((name, i) => writeFileSync(join(root, "in", `${name}.yaml`), i === HEAVY ? heavy() : variant(name)));
  const made = spawnSync("mkfifo", [join(root, "held.yaml")]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Resolves once `done()` holds, polling without blocking the event loop; rejects after `ms`. */
function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const poll = () => (done() ? resolve() : Date.now() > deadline ? reject(new Error("not seen in time")) : setTimeout(poll, 50));
    poll();
  });
}

/**
 * Runs the fleet into `out` and writes the FIFO once a worker holds the heavy
 * file. Undefined when the process ended first: the scheduler let a worker take
 * the FIFO, so the main thread met the heavy file (a placement of the test's own).
 */
async function runFleet(out: string, inputs: string[]): Promise<{ code: number | null; err: string } | undefined> {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, "render", ...inputs, "-o", out], {
    env: { ...process.env, NO_COLOR: "1", RIGGING_THREADS: "3" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  // A file after the heavy one is written: a worker took the heavy one.
  await until(() => gone || existsSync(join(out, names[HEAVY + 1])), 240_000);
  if (gone) return undefined;
  // Opened without waiting for a reader: the main thread is reading it already (ENXIO otherwise, not a hang).
  const fifo = openSync(join(root, "held.yaml"), constants.O_WRONLY | constants.O_NONBLOCK);
  writeSync(fifo, variant("held"));
  closeSync(fifo);
  return { code: await exited, err };
}

describe("a fleet whose worker thread runs out of heap", () => {
  it("reports that file alone, with why, exits 3, and keeps every other file's output whole", async () => {
    const out = join(root, "out");
    const inputs = [join(root, "held.yaml"), ...names.map((name) => join(root, "in", `${name}.yaml`))];
    let run: Awaited<ReturnType<typeof runFleet>>;
    for (let attempt = 0; attempt < 3 && run === undefined; attempt++) {
      rmSync(out, { recursive: true, force: true });
      run = await runFleet(out, inputs);
    }
    expect(run, "the heavy file never landed on a worker in three runs").toBeDefined();
    const { code, err } = run!;

    expect(code, err).toBe(3);
    const reported = err.split("\n").filter((line) => line.startsWith("error "));
    expect(reported).toEqual([
      `error ${join(root, "in", `${names[HEAVY]}.yaml`)}: not rendered: the worker thread rendering it ran out of memory (Worker terminated due to reaching memory limit: JS heap out of memory); the other files are not affected. Give node a larger heap (NODE_OPTIONS=--max-old-space-size=MiB)`,
    ]);
    expect(err).toContain(`rendered ${count} of ${count + 1} values files into ${out}`);
    // Every other file's output is there, each file as its manifest records it; the heavy one left nothing.
    const written = readdirSync(out).filter((entry) => !entry.startsWith("."));
    expect(written.sort()).toEqual(["held", ...names.filter((_, i) => i !== HEAVY)].sort());
    for (const name of written) {
      const manifest = JSON.parse(readFileSync(join(out, name, MANIFEST), "utf8")) as { files: string[]; sha256: Record<string, string[]> };
      expect(manifest.files.sort(), name).toEqual(["NOTES.md", "kustomization.yaml", "manifests.yaml"]);
      for (const file of manifest.files) {
        const sha = createHash("sha256")
          .update(readFileSync(join(out, name, file)))
          .digest("hex");
        expect(manifest.sha256[file], `${name}/${file}`).toEqual([sha]);
      }
    }
    // And the same bytes as the file rendered alone.
    const last = names[count - 1];
    expect(runCli(["render", join(root, "in", `${last}.yaml`), "-o", join(root, "alone")]).code).toBe(0);
    for (const file of ["manifests.yaml", "kustomization.yaml"]) {
      expect(readFileSync(join(out, last, file), "utf8"), file).toBe(readFileSync(join(root, "alone", file), "utf8"));
    }
  }, 300_000);
});
