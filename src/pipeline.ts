// A render: parse -> values schema -> render (pure) -> rules (check's catalog) -> emit.
import { formatPath } from "./core/diagnostic.ts";
import { InternalError, UsageError, ValuesError } from "./core/errors.ts";
import { objectRef, sortForApply, type K8sObject } from "./k8s/objects.ts";
import { loadValues, type SetArgument } from "./values/layers.ts";
import type { SourceDocument } from "./parse/source.ts";
import { validatorOf } from "./systems/validators.ts";
import { valuesOf } from "./values/values-resource.ts";
import { closest, validateValues } from "./values/values.ts";
import type { ValuesKind } from "./systems/values-kind.ts";
import { designIdsNote } from "./rules/design-ids.ts";
import { RunScope } from "./rules/engine.ts";
import { normalise } from "./normalise/index.ts";
import { catalog, kinds, valuesKindOf, valuesKinds } from "./systems/registry.ts";

export interface Rendered {
  file: string;
  valuesKind: ValuesKind;
  objects: K8sObject[];
  notes: string[];
}

/** `notes: false` for callers that print no notes (a fleet, a stream): they are not made. */
export interface RenderOptions {
  notes?: boolean;
  /** The tree a values file's `base:` may name (--values-root). */
  valuesRoot?: string;
  /** The Kubernetes minor the output is for (render --kube-version): what a system needs of it is judged. */
  kubeVersion?: string;
}

export function renderFile(file: string, options?: RenderOptions): Rendered {
  return renderSource(loadValues([file], [], options), options);
}

/** The values of `files` layered in order, with `sets` on top (values/layers.ts). */
export function renderLayers(files: readonly string[], sets: readonly SetArgument[], options?: RenderOptions): Rendered {
  return renderSource(loadValues(files, sets, options), options);
}

export function renderSource(file: SourceDocument, { notes = true, kubeVersion }: RenderOptions = {}): Rendered {
  const source = valuesOf(file);
  const valuesKind = kindFor(source);
  const values = validateValues(() => valuesKind.schema(), source, valuesKind.kind, validatorOf(valuesKind.kind));
  const objects = sortForApply(valuesKind.render(values));
  selfCheck(objects);
  if (kubeVersion !== undefined) versionCheck(objects, kubeVersion, source.file);
  return { file: source.file, valuesKind, objects, notes: notes ? withDesignNote(valuesKind.notes?.(values) ?? []) : [] };
}

/** The notes, then whose the task and decision IDs they name are. */
function withDesignNote(notes: string[]): string[] {
  const note = designIdsNote(notes.join("\n"));
  return note ? [...notes, `note: ${note}`] : notes;
}

/** A file's values kind, read without rendering it: what a fleet learns of every member before writing any. */
export function valuesKindOfFile(file: string, options?: RenderOptions): string {
  return kindFor(valuesOf(loadValues([file], [], options))).kind;
}

/** The values kind whose upstream shape a file has (its keys), if any. */
function kindByShape(data: Record<string, unknown>): { valuesKind: ValuesKind; keys: string[] } | undefined {
  for (const valuesKind of valuesKinds()) {
    const keys = (valuesKind.shapeKeys ?? []).filter((key) => Object.hasOwn(data, key));
    if (keys.length > 0) return { valuesKind, keys };
  }
  return undefined;
}

function kindFor(source: SourceDocument): ValuesKind {
  const data = source.data as Record<string, unknown>;
  const kind = data.kind;
  const shape = kindByShape(data);
  if (kind === undefined) {
    if (shape) return shape.valuesKind;
    throw new UsageError(`${source.file}: no top-level kind; expected one of ${kinds().join(", ")}`);
  }
  const valuesKind = typeof kind === "string" ? valuesKindOf(kind) : undefined;
  if (valuesKind && shape && shape.valuesKind !== valuesKind) {
    const at = source.locate(["kind"]);
    throw new UsageError(
      `${at.file}:${at.line}:${at.column} kind: ${kind}, but the file is in the ${shape.valuesKind.kind} values shape (${shape.keys.slice(0, 3).join(", ")}); remove kind or set kind: ${shape.valuesKind.kind}`,
    );
  }
  if (!valuesKind) {
    // Located only when reported: a position costs a second parse (source.ts).
    const at = source.locate(["kind"]);
    const where = `${at.file}:${at.line}:${at.column}`;
    const near = typeof kind === "string" ? closest(kind, kinds()) : undefined;
    throw new UsageError(
      `${where} kind: ${JSON.stringify(kind)} is not a values kind; expected one of ${kinds().join(", ")}${near ? ` (did you mean ${near}?)` : ""}`,
    );
  }
  return valuesKind;
}

/** What the rules find only for Kubernetes `version` (a system's floor): the user's choice of cluster, refused as values are. */
function versionCheck(objects: K8sObject[], version: string, file: string): void {
  const normal = normalise(objects);
  const findings = catalog.checkObjects(normal.objects, undefined, { rendered: true, run: new RunScope(version) }).filter((f) => f.severity === "error");
  if (findings.length === 0) return;
  throw new ValuesError(
    findings.map((f) => ({ id: f.id, path: "", message: `${objectRef(f.object)} ${formatPath(f.path)}: ${f.message}`, fix: f.fix, location: { file } })),
  );
}

/** A finding on our own output is a bug in a renderer, never the user's. */
export function selfCheck(objects: K8sObject[]): void {
  const normal = normalise(objects);
  const findings = [...catalog.checkObjects(normal.objects, undefined, { rendered: true }), ...normal.notes.map((n) => ({ ...n, id: "objects" }))].filter(
    (f) => f.severity === "error",
  );
  if (findings.length === 0) return;
  const lines = findings.map((f) => `  ${f.id} ${objectRef(f.object)} ${formatPath(f.path)}: ${f.message}`);
  throw new InternalError("the rendered objects break the rule catalog", lines);
}
