// Shared by the generated validators: ajv's structural check, then the same
// named refinements zod calls; any doubt goes to zod, which words the refusal.
import type { FastValidator, IssueSink } from "./values.ts";

/** Thrown inside a generated validator to give up; never escapes `validator`. */
const GIVE_UP: unique symbol = Symbol("give up");

export function giveUp(): never {
  throw GIVE_UP;
}

/** The context a named refinement reports to: its first issue gives up. */
export const sink: IssueSink = {
  addIssue() {
    throw GIVE_UP;
  },
};

/** `build(data)`, or GIVE_UP when it gives up (a member of a union that does not fit). */
export function attempt<T>(build: (data: unknown) => T, data: unknown): T | typeof GIVE_UP {
  try {
    return build(data);
  } catch (error) {
    if (error === GIVE_UP) return GIVE_UP;
    throw error;
  }
}

export function gaveUp(result: unknown): boolean {
  return result === GIVE_UP;
}

/** A default as zod hands it out: a shallow copy for a mapping or a list. */
export function copyDefault<T>(value: T): T {
  if (Array.isArray(value)) return [...value] as T;
  if (value !== null && typeof value === "object") return { ...value };
  return value;
}

/** A record's keys only for a plain object of string keys, matching zod's walk. */
export function recordKeys(data: unknown): string[] {
  if (data === null || typeof data !== "object" || Object.getPrototypeOf(data) !== Object.prototype) giveUp();
  if (Object.hasOwn(data, "constructor") || Object.getOwnPropertySymbols(data).length > 0) giveUp();
  return Object.keys(data);
}

/** The validator of a kind: the structural check, then the value's build. */
export function validator(structure: (data: unknown) => boolean, build: (data: unknown) => unknown): FastValidator {
  return (data) => {
    if (!structure(data)) return undefined;
    const value = attempt(build, data);
    return value === GIVE_UP ? undefined : { value };
  };
}

/** The build of a value that is its input. */
export function same<T>(data: T): T {
  return data;
}
