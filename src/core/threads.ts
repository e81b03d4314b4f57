// Long fleets spread over worker threads that all take items from one shared
// counter, so they finish together; long checks are handed out item by item.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, type ResourceLimits, Worker, workerData } from "node:worker_threads";
import { BUILD } from "./build.ts";
import { type HeapLimits, JOBS, type Job } from "./jobs.ts";

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

/** A worker of `feedThreads`: its items come by message, one at a time, so no list, counter or slots travel. */
interface FedTask {
  rigging: "threads";
  job: string;
  fed: true;
  context: unknown;
}

/** How many threads a run of `count` items gets (RIGGING_THREADS caps it, or forces it for tests). */
export function threadsFor(count: number): number {
  return count < PARALLEL_THRESHOLD ? 1 : threadsForRun(true);
}

/** Threads for a run its caller judged `long` or not; RIGGING_THREADS=N asks for N whatever the run's length. */
export function threadsForRun(long: boolean): number {
  if (workerEntry() === undefined) return 1;
  const asked = Number.parseInt(process.env.RIGGING_THREADS ?? "", 10);
  if (Number.isInteger(asked) && asked >= 1) return Math.min(asked, MAX_THREADS);
  return long ? Math.min(availableParallelism(), MAX_THREADS) : 1;
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
  const workers = Array.from({ length: threads - 1 }, (_, slot) => inWorker({ ...task, slot }, job.limits, (index, result) => (results[index] = result as R)));
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

/** Items a worker thread holds at once: the next one waits there while this thread takes the last one's result. */
const IN_FLIGHT = 2;

/** An item no worker finished: the one a dying worker held, or one left when every worker had stopped; with how its worker stopped. */
export interface LostItem<T> {
  index: number;
  item: T;
  why: string;
}

/**
 * Runs `job` on `threads` worker threads, handing out the items `next` gives one at a time, so no thread holds
 * the run's list; this thread only hands out and collects, each result going to `done` as it comes.
 */
export function feedThreads<T, C, R>(
  job: Job<T, C, R>,
  next: () => T | undefined,
  context: C,
  threads: number,
  done: (index: number, result: R) => void,
): Promise<{ lost: LostItem<T>[]; threads: number }> {
  const task: FedTask = { rigging: "threads", job: job.name, fed: true, context };
  let given = 0;
  let left = true;
  const take = (): [number, T] | undefined => {
    const item = left ? next() : undefined;
    if (item === undefined) left = false;
    return item === undefined ? undefined : [given++, item];
  };
  return new Promise((resolve) => {
    const lost: LostItem<T>[] = [];
    let running = threads;
    let used = 0;
    for (let w = 0; w < threads; w++) {
      const worker = startWorker(task, job.limits);
      const held = new Map<number, T>();
      let ended = false;
      const give = () => {
        const taken = take();
        if (taken) {
          held.set(taken[0], taken[1]);
          worker.postMessage(taken);
        } else if (!ended) {
          // After the items it holds, `null` tells the worker it is done.
          ended = true;
          worker.postMessage(null);
        }
        return taken !== undefined;
      };
      for (let i = 0; i < IN_FLIGHT && give(); i++);
      let posted = 0;
      let failed: string | undefined;
      worker.on("message", ([index, result]: [number, R]) => {
        held.delete(index);
        if (posted++ === 0) used++;
        done(index, result);
        give();
      });
      worker.once("error", (error) => (failed = howStopped(error)));
      // Node delivers every message a worker posted before its "exit".
      worker.once("exit", (code) => {
        const why = failed ?? (code !== 0 ? `exited with code ${code}` : "stopped");
        for (const [index, item] of held) lost.push({ index, item, why });
        if (--running > 0) return;
        for (let taken = take(); taken; taken = take()) lost.push({ index: taken[0], item: taken[1], why });
        resolve({ lost, threads: used });
      });
    }
  });
}

/** A fed worker: judges each item it is handed and posts the result back, until it is handed `null`. */
function serveItems(task: FedTask): void {
  const work = JOBS.get(task.job);
  if (!work) throw new Error(`no job named ${task.job}`);
  parentPort!.on("message", (message: [number, unknown] | null) => {
    if (message === null) parentPort!.close();
    else parentPort!.postMessage([message[0], work(message[1], task.context)]);
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

function inWorker(task: ThreadTask, limits: HeapLimits | undefined, done: (index: number, result: unknown) => void): Promise<WorkerEnd> {
  return new Promise((resolve) => {
    const worker = startWorker(task, limits);
    let posted = 0;
    let failed: string | undefined;
    worker.on("message", ([index, result]: [number, unknown]) => {
      posted++;
      done(index, result);
    });
    worker.once("error", (error) => (failed = howStopped(error)));
    // Node delivers every message a worker posted before its "exit".
    worker.once("exit", (code) => {
      const holding = Atomics.load(task.held, task.slot) - 1;
      const stopped = failed ?? (code !== 0 ? `exited with code ${code}` : holding >= 0 ? "stopped" : undefined);
      resolve({ posted, stopped, holding: holding >= 0 ? holding : undefined });
    });
  });
}

/** A worker started from the launcher, its heap bounded (docs/performance.md: a bounded young generation keeps its peak RSS down). */
function startWorker(task: ThreadTask | FedTask, limits: HeapLimits = {}): Worker {
  const resourceLimits: ResourceLimits = { maxYoungGenerationSizeMb: limits.youngGenerationMb ?? YOUNG_GENERATION_MB };
  if (limits.oldGenerationMb !== undefined) resourceLimits.maxOldGenerationSizeMb = limits.oldGenerationMb;
  return new Worker(workerEntry()!, { workerData: task, resourceLimits });
}

function howStopped(error: Error & { code?: string }): string {
  return error.code === "ERR_WORKER_OUT_OF_MEMORY" ? `ran out of memory (${error.message})` : `failed (${error.message})`;
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
  return (workerData as ThreadTask | FedTask).job;
}

/** In a worker thread started by `runOnThreads`. */
export function isThreadWorker(): boolean {
  return !isMainThread && (workerData as ThreadTask | FedTask | undefined)?.rigging === "threads";
}

export function runThreadWorker(): void {
  const task = workerData as ThreadTask | FedTask;
  if ("fed" in task) serveItems(task);
  else takeItems(task, (index, result) => parentPort!.postMessage([index, result]));
}
