// vitest's worker answers its runner's calls only between turns of its event
// loop, and gives up on one after 60 s: on a busy machine, a long synchronous
// test body is such a wait. These run long work one piece per turn.
import fc from "fast-check";

/** Waits for one turn of the event loop. */
export const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** fc.property whose cases each run on a turn of their own; `await fc.assert(...)` it. */
export function loopProperty<Ts extends [unknown, ...unknown[]]>(
  ...args: [...arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> }, predicate: (...values: Ts) => unknown]
): fc.IAsyncPropertyWithHooks<Ts> {
  const predicate = args[args.length - 1] as (...values: Ts) => unknown;
  const arbitraries = args.slice(0, -1) as { [K in keyof Ts]: fc.Arbitrary<Ts[K]> };
  return (fc.asyncProperty as (...args: unknown[]) => fc.IAsyncPropertyWithHooks<Ts>)(...arbitraries, async (...values: Ts) => {
    await breathe();
    return predicate(...values);
  });
}
