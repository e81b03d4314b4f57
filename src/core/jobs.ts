// Jobs for worker threads, declared by a command's file without loading the threads' file.

/** A named piece of work a worker thread can do: the name travels, the function is looked up. */
export interface Job<T, C, R> {
  name: string;
  work(item: T, context: C): R;
  /** A worker's young generation, in MiB, where the job's garbage needs another than the default's 8 (threads.ts). */
  youngGenerationMb?: number;
}

export const JOBS = new Map<string, (item: unknown, context: unknown) => unknown>();

/** Declares a job; modules declare theirs when loaded, so a worker finds every one. */
export function defineJob<T, C, R>(name: string, work: (item: T, context: C) => R, youngGenerationMb?: number): Job<T, C, R> {
  JOBS.set(name, work as (item: unknown, context: unknown) => unknown);
  return { name, work, youngGenerationMb };
}
