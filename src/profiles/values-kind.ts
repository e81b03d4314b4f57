// A values kind: the `kind:` of a values file, with its schema, its pure
// renderer and the notes printed to people after a render. A system
// (src/rules/system.ts) has one or more.
import type { z } from "zod";
import type { K8sObject } from "../core/objects.ts";

export interface ValuesKind<S extends z.ZodType = z.ZodType> {
  /** The `kind:` of a values file. */
  kind: string;
  summary: string;
  /** Built on first use (see `once` in core/values.ts). */
  schema(): S;
  render(values: z.output<S>): K8sObject[];
  /** Lines for stderr after a successful render (CR-18's checklist). */
  notes?(values: z.output<S>): string[];
  /**
   * Keys that mark a file in this system's upstream shape, which needs no
   * `kind:` (the Compass Runner's runner-manifests values).
   */
  shapeKeys?: readonly string[];
  /**
   * Top-level keys whose images are another system's, by that system's name
   * (`kind: Compass` holds the Runner's under `runner`): pin asks of them
   * what that system's record asks.
   */
  imagesOf?: Readonly<Record<string, string>>;
  /** The bundled example, relative to the package root. */
  example: string;
}

/** Keeps the schema's output type tied to the renderer's input type. */
export function defineValuesKind<S extends z.ZodType>(kind: ValuesKind<S>): ValuesKind {
  return kind as unknown as ValuesKind;
}
