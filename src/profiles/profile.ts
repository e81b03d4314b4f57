// What a profile provides to the commands: its values kind and schema, its
// pure renderer, and the notes printed to people after a render.
import type { z } from "zod";
import type { K8sObject } from "../core/objects.ts";

export interface Profile<S extends z.ZodType = z.ZodType> {
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
  /** The bundled example, relative to the package root. */
  example: string;
}

/** Keeps the schema's output type tied to the renderer's input type. */
export function defineProfile<S extends z.ZodType>(profile: Profile<S>): Profile {
  return profile as unknown as Profile;
}
