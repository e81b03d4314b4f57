// Long fleets and checks spread over worker threads that all take items from
// one shared counter, so they finish together.
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
  /** Per worker, the index + 1 of the item it is doing, 0 between items: what a worker that dies was holding. */
  held: Int32Array;
  /** This worker's entry in `held` (-1 on the main thread). */
  slot: number;
}

export interface ThreadResults<R> {
  /** By item index; empty where a worker died holding the item. */
  results: (R | undefined)[];
  /** For each item without a result, how the worker holding it stopped: "ran out of memory (...)", "exited with code N". */
  lost: Map<number, string>;
  /** How many threads, this one included, did at least one item. */
  threads: number;
}

/** How many threads a run of `count` items gets (RIGGING_THREADS caps it, or forces it for tests). */
export function threadsFor(count: number): number {
  if (count < PARALLEL_THRESHOLD || workerEntry() === undefined) return 1;
  const asked = Number.parseInt(process.env.RIGGING_THREADS ?? "", 10);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, MAX_THREADS) : Math.min(availableParallelism(), MAX_THREADS);
}

/** Runs `job` over `items` on `threads` threads; a dying worker loses only its current item. */
export function runOnThreads<T, C, R>(
  job: Job<T, C, R>,
  items: T[],
  context: C,
  threads: number,
  progress?: (done: number) => void,
): Promise<ThreadResults<R>> {
  const queue = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const held = new Int32Array(new SharedArrayBuffer(Math.max(threads - 1, 1) * Int32Array.BYTES_PER_ELEMENT));
  const task: ThreadTask = { rigging: "threads", job: job.name, items, context, queue, held, slot: -1 };
  const results: (R | undefined)[] = new Array(items.length);
  const lost = new Map<number, string>();
  const workers = Array.from({ length: threads - 1 }, (_, slot) =>
    inWorker({ ...task, slot }, job.youngGenerationMb ?? YOUNG_GENERATION_MB, (index, result) => (results[index] = result as R)),
  );
  let mine = 0;
  takeItems(
    task,
    (index, result) => {
      mine++;
      results[index] = result as R;
    },
    progress,
  );
  return Promise.all(workers).then((ends) => {
    for (const { stopped, holding } of ends) if (stopped && holding !== undefined && results[holding] === undefined) lost.set(holding, stopped);
    // An item taken off the counter by a worker that died before marking it held.
    const anyStop = ends.find((end) => end.stopped)?.stopped ?? "stopped";
    for (let index = 0; index < items.length; index++) if (results[index] === undefined && !lost.has(index)) lost.set(index, anyStop);
    return { results, lost, threads: (mine > 0 ? 1 : 0) + ends.filter((end) => end.posted > 0).length };
  });
}

/** Does items taken off the shared counter until none is left, handing each result to `done` as it is made. */
function takeItems(task: ThreadTask, done: (index: number, result: unknown) => void, progress?: (done: number) => void): void {
  const work = JOBS.get(task.job);
  if (!work) throw new Error(`no job named ${task.job}`);
  let lastProgress = 0;
  for (let index = Atomics.add(task.queue, 0, 1); index < task.items.length; index = Atomics.add(task.queue, 0, 1)) {
    if (task.slot >= 0) Atomics.store(task.held, task.slot, index + 1);
    done(index, work(task.items[index], task.context));
    if (task.slot >= 0) Atomics.store(task.held, task.slot, 0);
    const count = Atomics.add(task.queue, 1, 1) + 1;
    if (progress && Date.now() - lastProgress > 100) {
      lastProgress = Date.now();
      progress(count);
    }
  }
}

interface WorkerEnd {
  /** How many results the worker posted. */
  posted: number;
  /** How the worker stopped, if it died before it was done. */
  stopped?: string;
  /** The item it held when it stopped. */
  holding?: number;
}

function inWorker(task: ThreadTask, youngGenerationMb: number, done: (index: number, result: unknown) => void): Promise<WorkerEnd> {
  return new Promise((resolve) => {
    // A bounded young generation keeps a worker's peak RSS down (docs/performance.md).
    const worker = new Worker(workerEntry()!, { workerData: task, resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } });
    let posted = 0;
    let failed: string | undefined;
    worker.on("message", ([index, result]: [number, unknown]) => {
      posted++;
      done(index, result);
    });
    worker.once("error", (error: Error & { code?: string }) => {
      failed = error.code === "ERR_WORKER_OUT_OF_MEMORY" ? `ran out of memory (${error.message})` : `failed (${error.message})`;
    });
    // Node delivers every message a worker posted before its "exit".
    worker.once("exit", (code) => {
      const holding = Atomics.load(task.held, task.slot) - 1;
      const stopped = failed ?? (code !== 0 ? `exited with code ${code}` : holding >= 0 ? "stopped" : undefined);
      resolve({ posted, stopped, holding: holding >= 0 ? holding : undefined });
    });
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
  takeItems(workerData as ThreadTask, (index, result) => parentPort!.postMessage([index, result]));
}
