// Fleet rendering: many values files in one process, each into its own
// DIR/NAME/. This module finds the inputs, checks before anything is written
// that every file has a distinct, safe output name, and renders them one
// after the other, or spread over worker threads for a long fleet.
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, Worker, workerData, parentPort } from "node:worker_threads";
import { formatDiagnostic } from "../core/diagnostic.ts";
import { directoryFiles, SAFE_FILE_NAME, writeDirectory } from "../core/emit.ts";
import { InternalError, UsageError, ValuesError } from "../core/errors.ts";
import { renderFile } from "../pipeline.ts";
import { paint, type Io } from "./io.ts";

/** A progress line shows only on a terminal, and only for fleets this long. */
export const PROGRESS_THRESHOLD = 50;

const VALUES_FILE = /\.(ya?ml|json)$/i;

export interface FleetEntry {
  file: string;
  name: string;
}

export function isDirectory(path: string): boolean {
  if (path === "-") return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing or a symlink loop: reported when read as a file
  }
}

/**
 * The values files of a fleet, in order: files as given, and for a
 * directory its values files sorted by name. Directories are read one
 * level deep only (subdirectories and symlinks to directories are not
 * followed), so a symlink loop cannot make the walk endless.
 */
export function fleetInputs(inputs: readonly string[]): FleetEntry[] {
  const files: string[] = [];
  for (const input of inputs) {
    if (input === "-") throw new UsageError("- (stdin) renders alone, not as part of a fleet");
    if (!isDirectory(input)) {
      files.push(input);
      continue;
    }
    const found = readdirSync(input, { withFileTypes: true })
      .filter((e) => VALUES_FILE.test(e.name) && !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort();
    if (found.length === 0) throw new UsageError(`${input}: holds no values files (*.yaml, *.yml, *.json)`);
    files.push(...found.map((name) => join(input, name)));
  }
  const byName = new Map<string, string>();
  return files.map((file) => {
    const name = basename(file, extname(file));
    if (!SAFE_FILE_NAME.test(name)) {
      throw new UsageError(`${file}: ${JSON.stringify(name)} cannot name an output directory; rename the file to letters, digits, '.', '_' and '-', starting with a letter or digit`);
    }
    const other = byName.get(name);
    if (other !== undefined) throw new UsageError(`${other} and ${file} would both render into ${name}/; give the files distinct names`);
    byName.set(name, file);
    return { file, name };
  });
}

/** Makes sure DIR is a directory (creating it, not its parents). */
export function prepareFleetOutput(dir: string): void {
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    try {
      mkdirSync(dir);
    } catch (error) {
      throw new UsageError(`${dir}: cannot create the output directory: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "its parent does not exist" : (error as Error).message}`);
    }
    return;
  }
  if (!stat.isDirectory()) throw new UsageError(`${dir}: exists and is not a directory`);
}

export function progressLine(done: number, total: number, failed: number): string {
  return `\r\u001b[Krendering ${done}/${total}${failed ? ` (${failed} not rendered)` : ""}`;
}

/** What became of one file: its exit code and what to tell people. */
interface Outcome {
  exitCode: number;
  report: string;
}

/** Renders one file into OUT/NAME/, atomically; never throws. */
function renderEntry(entry: FleetEntry, output: string, color: boolean): Outcome {
  try {
    const rendered = renderFile(entry.file);
    writeDirectory(join(output, entry.name), directoryFiles(rendered.objects));
    return { exitCode: 0, report: "" };
  } catch (error) {
    let report = "";
    const exitCode = reportFileError(entry.file, error, { out: () => {}, err: (t) => void (report += t), color });
    return { exitCode, report };
  }
}

/** Reports why one file of a fleet was not rendered; returns its exit code. */
function reportFileError(file: string, error: unknown, io: Io): number {
  const label = paint(io, 31, "error");
  if (error instanceof ValuesError) {
    for (const d of error.diagnostics) io.err(`${label} ${formatDiagnostic(d)}\n`);
    io.err(`${file}: ${error.diagnostics.length} error(s); not rendered\n`);
    return 1;
  }
  if (error instanceof UsageError) {
    const message = error.message.startsWith(file) ? error.message : `${file}: ${error.message}`;
    io.err(`${label} ${message}; not rendered\n`);
    return 1;
  }
  const message = error instanceof InternalError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (a bug in rigging)`;
  io.err(`${label} ${file}: ${message}\n`);
  return 3;
}

/** Fleets at least this long are spread over worker threads, where there are cores for them. */
export const PARALLEL_THRESHOLD = 200;
const MAX_THREADS = 4;

/**
 * Renders every file into DIR/NAME/, writing each as it is made, so memory
 * holds one file's objects at a time (per thread) however long the fleet
 * is. A file that fails is reported and skipped; the exit code is the worst
 * outcome. Reports come in input order whatever thread rendered the file.
 */
export function renderFleet(inputs: string[], output: string, io: Io): number | Promise<number> {
  const entries = fleetInputs(inputs);
  prepareFleetOutput(output);
  const threads = threadsFor(entries.length);
  if (threads <= 1) return finish(renderSequentially(entries, output, io), entries.length, output, io);
  // Every thread, this one included, takes the next file off one shared
  // counter until none is left: a worker that starts late or meets slower
  // files simply takes fewer, and all threads finish together.
  const queue = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const workers = Array.from({ length: threads - 1 }, () => inWorker({ rigging: "fleet", entries, output, color: io.color, queue }));
  const progress = Boolean(io.tty) && entries.length >= PROGRESS_THRESHOLD ? (done: number) => io.err(progressLine(done, entries.length, 0)) : undefined;
  const mine = renderClaimed({ rigging: "fleet", entries, output, color: io.color, queue }, progress);
  return Promise.all(workers).then((results) => {
    if (progress) io.err("\r\u001b[K");
    const outcomes = new Map<number, Outcome>();
    for (const [index, outcome] of [mine, ...results.map((r) => r.outcomes)].flat()) outcomes.set(index, outcome);
    // A file taken by a worker that died is reported, never lost silently.
    const why = results.map((r) => r.stopped).find(Boolean) ?? "a worker thread stopped";
    const ordered = entries.map((entry, index) => outcomes.get(index) ?? lost(entry, io.color, `${why} before rendering it`));
    for (const outcome of ordered) io.err(outcome.report);
    return finish(ordered, entries.length, output, io);
  });
}

function renderSequentially(entries: readonly FleetEntry[], output: string, io: Io): Outcome[] {
  const showProgress = Boolean(io.tty) && entries.length >= PROGRESS_THRESHOLD;
  let failed = 0;
  let lastProgress = 0;
  return entries.map((entry, index) => {
    const outcome = renderEntry(entry, output, io.color);
    if (outcome.exitCode !== 0) {
      failed++;
      io.err((showProgress ? "\r\u001b[K" : "") + outcome.report);
    }
    if (showProgress && (Date.now() - lastProgress > 100 || index === entries.length - 1)) {
      lastProgress = Date.now();
      io.err(progressLine(index + 1, entries.length, failed));
    }
    if (showProgress && index === entries.length - 1) io.err("\r\u001b[K");
    return { exitCode: outcome.exitCode, report: "" };
  });
}

/** What every fleet thread is given: the whole list, the output and the shared counters. */
interface WorkerTask {
  rigging: "fleet";
  entries: FleetEntry[];
  output: string;
  color: boolean;
  /** [next file to take, files done], shared by every thread. */
  queue: Int32Array;
}

/** Renders files taken off the shared counter until none is left; returns the outcomes by index. */
function renderClaimed(task: WorkerTask, progress?: (done: number) => void): [number, Outcome][] {
  const outcomes: [number, Outcome][] = [];
  let lastProgress = 0;
  for (let index = Atomics.add(task.queue, 0, 1); index < task.entries.length; index = Atomics.add(task.queue, 0, 1)) {
    outcomes.push([index, renderEntry(task.entries[index], task.output, task.color)]);
    const done = Atomics.add(task.queue, 1, 1) + 1;
    if (progress && Date.now() - lastProgress > 100) {
      lastProgress = Date.now();
      progress(done);
    }
  }
  return outcomes;
}

function lost(entry: FleetEntry, color: boolean, why: string): Outcome {
  return { exitCode: 3, report: `${paint({ color } as Io, 31, "error")} ${entry.file}: internal error: ${why} (a bug in rigging)\n` };
}

function finish(outcomes: Outcome[], total: number, output: string, io: Io): number {
  const failed = outcomes.filter((o) => o.exitCode !== 0).length;
  io.err(`rendered ${total - failed} of ${total} values files into ${output}${failed ? `; ${failed} not rendered` : ""}\n`);
  return outcomes.reduce((worst, o) => Math.max(worst, o.exitCode), 0);
}

/**
 * Worker threads run the same bundle as the command. They are used under
 * Node from the bundle only: the TypeScript sources (tests, Bun's render.ts)
 * render a fleet on one thread.
 */
function threadsFor(count: number): number {
  if (count < PARALLEL_THRESHOLD || process.versions.bun !== undefined) return 1;
  if (!bundleFile().endsWith(".cjs")) return 1;
  // RIGGING_THREADS caps (or, for tests, forces) the number of threads.
  const asked = Number.parseInt(process.env.RIGGING_THREADS ?? "", 10);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_THREADS) : Math.min(availableParallelism(), MAX_THREADS);
}

function bundleFile(): string {
  return fileURLToPath(import.meta.url);
}

/** A worker's outcomes by index, and why it stopped if it died. */
interface WorkerResult {
  outcomes: [number, Outcome][];
  stopped?: string;
}

function inWorker(task: WorkerTask): Promise<WorkerResult> {
  return new Promise((resolve) => {
    // Through the launcher next to the bundle, so the worker starts from the
    // same V8 code cache as the command did.
    const launcher = join(dirname(bundleFile()), "rigging.mjs");
    const worker = new Worker(existsSync(launcher) ? launcher : bundleFile(), { workerData: task });
    let outcomes: [number, Outcome][] | undefined;
    worker.once("message", (posted: [number, Outcome][]) => (outcomes = posted));
    worker.once("error", (error) => resolve(outcomes ? { outcomes } : { outcomes: [], stopped: `a worker thread failed (${error.message})` }));
    worker.once("exit", (code) => resolve(outcomes ? { outcomes } : { outcomes: [], stopped: `a worker thread exited with ${code}` }));
  });
}

/** In a worker thread started by `inWorker`: render files off the shared counter, post the outcomes. */
export function isFleetWorker(): boolean {
  return !isMainThread && (workerData as WorkerTask | undefined)?.rigging === "fleet";
}

export function runFleetWorker(): void {
  parentPort!.postMessage(renderClaimed(workerData as WorkerTask));
}
