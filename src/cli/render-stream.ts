// `rigging render DIR` to one stream on stdout, all or nothing: a GitOps tool
// would prune objects missing from a partial stream.
import { bounded, formatDiagnostic } from "../core/diagnostic.ts";
import { toJsonList, toYamlStream } from "../emit/emit.ts";
import { InternalError, UsageError, ValuesError } from "../core/errors.ts";
import { objectRef, type K8sObject } from "../k8s/objects.ts";
import { type RenderOptions, renderFile } from "../pipeline.ts";
import { fleetInputs } from "./fleet.ts";
import { printable, printableLines } from "../core/printable.ts";
import { paint, type Io } from "./io.ts";
import { type Member, pairRefusals } from "./render-pairs.ts";

export function renderDirectoryStream(dir: string, format: "yaml" | "json", io: Io, read: RenderOptions = {}, quiet = false): number {
  const skipped: string[] = [];
  const entries = fleetInputs([dir], skipped);
  for (const note of skipped) io.err(`${paint(io, 33, "skipped")} ${printable(note)}\n`);
  const objects: K8sObject[] = [];
  const from = new Map<string, string>();
  const members: Member[] = [];
  let worst = 0;
  for (const { file } of entries) {
    try {
      const rendered = renderFile(file, { ...read, notes: !quiet });
      members.push({ file, kind: rendered.valuesKind.kind, objects: rendered.objects, notes: rendered.notes });
      for (const object of rendered.objects) {
        const key = identity(object);
        const other = from.get(key);
        if (other !== undefined)
          throw new UsageError(`${file}: renders ${objectRef(object)}, which ${other} renders too; give the installations distinct names or namespaces`);
        from.set(key, file);
        objects.push(object);
      }
    } catch (error) {
      worst = Math.max(worst, report(file, error, io));
    }
  }
  // Installations from separate files that name each other are judged together, as check judges the stream.
  const pairs = worst > 0 ? [] : pairRefusals(members);
  for (const line of pairs) io.err(`${paint(io, 31, "error")} ${printable(bounded(line))}\n`);
  if (worst > 0) {
    io.err(`${printable(dir)}: not every values file rendered; nothing was printed\n`);
    return worst;
  }
  if (pairs.length > 0) {
    io.err(`${printable(dir)}: its installations, judged together as check judges the stream, are refused; nothing was printed\n`);
    return 1;
  }
  for (const { file, notes } of members) if (notes.length > 0) io.err(`${paint(io, 1, `notes for ${printable(file)}:`)}\n${notes.map(printable).join("\n")}\n`);
  io.out(format === "json" ? toJsonList(objects) : toYamlStream(objects));
  io.err(`rendered ${entries.length} values file(s) from ${printable(dir)}: ${objects.length} objects\n`);
  return 0;
}

function identity(object: K8sObject): string {
  return JSON.stringify([
    object.apiVersion.split("/").length > 1 ? object.apiVersion.split("/")[0] : "",
    object.kind,
    object.metadata.namespace ?? "",
    object.metadata.name,
  ]);
}

/** Tells why one file did not render; returns its exit code. */
function report(file: string, error: unknown, io: Io): number {
  const label = paint(io, 31, "error");
  if (error instanceof ValuesError) {
    for (const d of error.diagnostics) io.err(`${label} ${formatDiagnostic(d)}\n`);
    io.err(`${printable(file)}: ${error.diagnostics.length} error(s); not rendered\n`);
    return 1;
  }
  if (error instanceof UsageError) {
    io.err(`${label} ${printable(bounded(error.message.startsWith(file) ? error.message : `${file}: ${error.message}`))}\n`);
    return 1;
  }
  const message = error instanceof InternalError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (a bug in rigging)`;
  io.err(`${label} ${printable(file)}: ${printableLines(message)}\n`);
  return 3;
}
