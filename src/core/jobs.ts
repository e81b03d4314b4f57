// Jobs for worker threads, declared by a command's file without loading the threads' file.

/** A worker's heap bounds, in MiB (threads.ts): a young generation where the default's 8 does not suit, an old one where it must stay small. */
export interface HeapLimits {
  youngGenerationMb?: number;
  oldGenerationMb?: number;
}

/** A named piece of work a worker thread can do: the name travels, the function is looked up. */
export interface Job<T, C, R> {
  name: string;
  work(item: T, context: C): R;
  limits?: HeapLimits;
}

export const JOBS = new Map<string, (item: unknown, context: unknown) => unknown>();

/** Declares a job; modules declare theirs when loaded, so a worker finds every one. */
export function defineJob<T, C, R>(name: string, work: (item: T, context: C) => R, limits?: HeapLimits): Job<T, C, R> {
  JOBS.set(name, work as (item: unknown, context: unknown) => unknown);
  return { name, work, limits };
}
