// A values kind: its schema, pure renderer and post-render notes.
import type { z } from "zod";
import type { K8sObject } from "../k8s/objects.ts";

export interface ValuesKind<S extends z.ZodType = z.ZodType> {
  /** The `kind:` of a values file. */
  kind: string;
  summary: string;
  /** Built on first use (see `once` in values/values.ts). */
  schema(): S;
  render(values: z.output<S>): K8sObject[];
  /** Lines for stderr after a successful render (CR-18's checklist). */
  notes?(values: z.output<S>): string[];
  /** Keys marking this system's upstream shape, which needs no `kind:`. */
  shapeKeys?: readonly string[];
  /** Top-level keys holding another system's images, which pin judges by that system. */
  imagesOf?: Readonly<Record<string, string>>;
  /** The bundled example, relative to the package root. */
  example: string;
}

/** Keeps the schema's output type tied to the renderer's input type. */
export function defineValuesKind<S extends z.ZodType>(kind: ValuesKind<S>): ValuesKind {
  return kind as unknown as ValuesKind;
}
