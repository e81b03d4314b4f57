// What apiServerProblems finds at one path, and the two assertions the validation tests make with it.
import { expect } from "vitest";
import { apiServerProblems } from "../../src/check/kube-validate.ts";

export type Obj = Record<string, any>;
export const NEWEST = "1.37";

/** The problems at `path` (joined with '.'), and every problem when it finds none, to show what was found. */
function at(object: Obj, path: string, version = NEWEST) {
  const problems = apiServerProblems(object, version);
  const found = problems.filter((p) => p.path.join(".") === path);
  return { problems, found, messages: found.map((p) => p.message).join("\n") };
}

export function accepts(object: Obj, version = NEWEST) {
  expect(apiServerProblems(object, version)).toEqual([]);
}

export function refuses(object: Obj, path: string, fragment: string, version = NEWEST) {
  const { problems, messages } = at(object, path, version);
  expect(messages, JSON.stringify(problems, null, 1)).toContain(fragment);
}
