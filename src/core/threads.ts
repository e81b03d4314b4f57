// A long fleet to render, or a long fleet's output to check, is spread over
// worker threads, which finish it sooner where there are cores for them.
// Checking pays only for longer runs (src/check/run.ts, CHECK_THRESHOLD).
//
// Every thread, this one included, takes the next item off one shared
// counter until none is left: a worker that starts late or meets slower
// items simply takes fewer, and all threads finish together. Workers run the
// same bundle as the command: under Node the built bundle, and in the
// standalone executable (npm run build:binary) the executable's own entry
// module, which Bun keeps inside it. The TypeScript sources (tests, Bun's
// render.ts) run on one thread.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { BUILD } from "./build.ts";
import { JOBS, type Job } from "./jobs.ts";

/** Runs this long or longer are spread over threads, where there are cores for them. */
export const PARALLEL_THRESHOLD = 200;
const MAX_THREADS = 4;
/** A worker's young generation where its job names none (see `inWorker`). */
const YOUNG_GENERATION_MB = 8;

interface ThreadTask {
  rigging: "threads";
  job: string;
  items: unknown[];
  context: unknown;
  /** [next item to take, items done], shared by every thread. */
  queue: Int32Array;
}

export interface ThreadResults<R> {
  /** By item index; empty where a worker died holding the item. */
  results: (R | undefined)[];
  /** Why a worker stopped before posting its results, if one did. */
  stopped?: string;
  /** How many threads, this one included, did at least one item. */
  threads: number;
}

/** How many threads a run of `count` items gets (RIGGING_THREADS caps it, or forces it for tests). */
export function threadsFor(count: number): number {
  if (count < PARALLEL_THRESHOLD || workerEntry() === undefined) return 1;
  const asked = Number.parseInt(process.env.RIGGING_THREADS ?? "", 10);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_THREADS) : Math.min(availableParallelism(), MAX_THREADS);
}

/** Runs `job` over `items` on `threads` threads, this one included. */
export function runOnThreads<T, C, R>(
  job: Job<T, C, R>,
  items: T[],
  context: C,
  threads: number,
  progress?: (done: number) => void,
): Promise<ThreadResults<R>> {
  const queue = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const task: ThreadTask = { rigging: "threads", job: job.name, items, context, queue };
  const workers = Array.from({ length: threads - 1 }, () => inWorker(task, job.youngGenerationMb ?? YOUNG_GENERATION_MB));
  const mine = takeItems(task, progress);
  return Promise.all(workers).then((posted) => {
    const results: (R | undefined)[] = new Array(items.length);
    const done = [mine, ...posted.map((p) => p.done)];
    for (const [index, result] of done.flat()) results[index] = result as R;
    return { results, stopped: posted.map((p) => p.stopped).find(Boolean), threads: done.filter((d) => d.length > 0).length };
  });
}

/** Does items taken off the shared counter until none is left; returns the results by index. */
function takeItems(task: ThreadTask, progress?: (done: number) => void): [number, unknown][] {
  const work = JOBS.get(task.job);
  if (!work) throw new Error(`no job named ${task.job}`);
  const done: [number, unknown][] = [];
  let lastProgress = 0;
  for (let index = Atomics.add(task.queue, 0, 1); index < task.items.length; index = Atomics.add(task.queue, 0, 1)) {
    done.push([index, work(task.items[index], task.context)]);
    const count = Atomics.add(task.queue, 1, 1) + 1;
    if (progress && Date.now() - lastProgress > 100) {
      lastProgress = Date.now();
      progress(count);
    }
  }
  return done;
}

function inWorker(task: ThreadTask, youngGenerationMb: number): Promise<{ done: [number, unknown][]; stopped?: string }> {
  return new Promise((resolve) => {
    // A bounded young generation: each file's garbage dies young, and a
    // worker's heap would otherwise grow with it (peak RSS). A smaller one
    // copies much of the file being rendered at each scavenge, a larger one
    // costs RSS for little (docs/performance.md); a job may ask for another
    // size (check's, src/check/run.ts).
    const worker = new Worker(workerEntry()!, { workerData: task, resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } });
    let done: [number, unknown][] | undefined;
    worker.once("message", (posted: [number, unknown][]) => (done = posted));
    worker.once("error", (error) => resolve(done ? { done } : { done: [], stopped: `a worker thread failed (${error.message})` }));
    worker.once("exit", (code) => resolve(done ? { done } : { done: [], stopped: `a worker thread exited with ${code}` }));
  });
}

/** The module a worker thread starts from, or undefined where threads are not used. */
function workerEntry(): string | undefined {
  // In the executable, Bun names its entry module (under /$bunfs/ or B:/~BUN/)
  // in argv[1]; import.meta.url there is the path the sources had at build time.
  if (BUILD?.binary) return process.argv[1];
  if (process.versions.bun !== undefined) return undefined;
  // In the Node build, import.meta.url is the launcher's (dist/rigging.cjs),
  // so the worker starts from the same V8 code caches as the command did.
  const launcher = fileURLToPath(import.meta.url);
  return launcher.endsWith(".cjs") ? launcher : undefined;
}

/** The job a worker thread was started for (its name is its command's: render, check). */
export function threadJob(): string {
  return (workerData as ThreadTask).job;
}

/** In a worker thread started by `runOnThreads`. */
export function isThreadWorker(): boolean {
  return !isMainThread && (workerData as ThreadTask | undefined)?.rigging === "threads";
}

export function runThreadWorker(): void {
  parentPort!.postMessage(takeItems(workerData as ThreadTask));
}
