// Rendering values in tests, and asserting what they refuse: the same
// pipeline as `rigging render` (parse with positions, validate, render,
// self-check), without a process.
import { expect } from "vitest";
import { stringify } from "yaml";
import type { Diagnostic } from "../../src/core/diagnostic.ts";
import { ValuesError } from "../../src/core/errors.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";

/** Renders values given as YAML text, or as data written out as YAML. */
export function render(values: string | object): K8sObject[] {
  const text = typeof values === "string" ? values : stringify(values);
  return renderSource(parseValuesFile(text, "values.yaml")).objects;
}

/** The diagnostics of values that must be refused (fails if accepted). */
export function refusal(values: string | object): Diagnostic[] {
  try {
    render(values);
  } catch (error) {
    if (error instanceof ValuesError) return error.diagnostics;
    throw error;
  }
  throw new Error("the values were accepted");
}

/** Asserts that a diagnostic names `path` under `id`, with a fix and a line; returns it. */
export function expectRefused(values: string | object, id: string, path: string): Diagnostic {
  const diagnostics = refusal(values);
  // A path may carry more than one diagnostic (an AWS key is also G-04).
  const found = diagnostics.find((d) => d.id === id && d.path === path);
  expect(found, `no ${id} diagnostic at ${path}; got ${JSON.stringify(diagnostics.map((d) => `${d.id} ${d.path}`))}`).toBeDefined();
  expect(found!.fix.length).toBeGreaterThan(10);
  expect(found!.location?.line).toBeGreaterThan(0);
  return found!;
}
