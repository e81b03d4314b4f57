// Checks that need more than one key run even when another key did not parse,
// so a values file's refusals all come in one run (G-01).
import type { z } from "zod";

/** The `when` of every `refineBy` check: zod would skip a check once anything in its value failed to parse. */
export function judgedAlways(): boolean {
  return true;
}

/** Thrown by a guarded value when a check reads a part of it that did not parse. */
const UNJUDGED: unique symbol = Symbol("unjudged");

/**
 * Runs `check` on a value whose parse left issues, so that a file's refusals
 * come in one run (G-01): a check that reads a part zod refused (an issue that
 * stops zod, `continue` not true) is skipped; the others still judge.
 */
export function judge<T>(value: T, payload: z.core.ParsePayload, check: (value: T) => void): void {
  const refused = payload.issues.filter((issue) => issue.continue !== true).map((issue) => issue.path ?? []);
  if (refused.length === 0) check(value);
  else if (value !== null && typeof value === "object" && refused.every((path) => path.length > 0))
    eachCheck(() => check(guarded(value, trieOf(refused)) as T));
}

/** Checks that read different keys, run one by one: one that reads a refused value is skipped alone. */
export function eachCheck(...checks: (() => void)[]): void {
  for (const check of checks) {
    try {
      check();
    } catch (error) {
      if (error !== UNJUDGED) throw error;
    }
  }
}

/** Paths as a tree of keys; `true` marks a refused value. */
type Refused = Map<string, Refused | true>;

function trieOf(paths: readonly (readonly PropertyKey[])[]): Refused {
  const root: Refused = new Map();
  for (const path of paths) {
    let node = root;
    for (const [i, segment] of path.entries()) {
      const key = String(segment);
      const next = node.get(key);
      if (next === true) break;
      if (i === path.length - 1) node.set(key, true);
      else if (next) node = next;
      else {
        const made: Refused = new Map();
        node.set(key, made);
        node = made;
      }
    }
  }
  return root;
}

/** `value` as a check sees it: reading a refused part throws UNJUDGED. */
function guarded(value: object, refused: Refused): object {
  return new Proxy(value, {
    get(target, key) {
      const read: unknown = Reflect.get(target, key);
      const below = typeof key === "string" ? refused.get(key) : undefined;
      if (below === undefined) return read;
      if (below === true || read === null || typeof read !== "object") throw UNJUDGED;
      return guarded(read, below);
    },
  });
}
