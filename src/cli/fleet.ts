// Fleet rendering: many values files into DIR/NAME/, names checked distinct
// and safe before anything is written, on worker threads for long fleets.
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { bounded, formatDiagnostic } from "../core/diagnostic.ts";
import { SAFE_FILE_NAME } from "../emit/emit.ts";
import { InternalError, internalErrorLine, UsageError, ValuesError } from "../core/errors.ts";
import { fsReason, isOwnedOutput, overwrittenLines, prepareOutputDirectory } from "../emit/output-dir.ts";
import { fleetListing, hiddenBase, reservedName, writeFleetMember } from "../emit/output-fleet.ts";
import { DEFAULT_LAYOUT, layoutFiles, type Layout } from "../emit/output-layout.ts";
import { printable, printableLines } from "../core/printable.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { type RenderOptions, renderFile, valuesKindOfFile } from "../pipeline.ts";
import { isDirectory } from "./directory.ts";
import { paint, type Io } from "./io.ts";
import { counterparts, type Member, pairRefusals } from "./render-pairs.ts";
import { defineJob } from "../core/jobs.ts";
import { feedThreads, runOnThreads, threadsFor } from "../core/threads.ts";
import { earlierFiles, memberSummary } from "../diff/summary.ts";

/** The file beside each member's manifests that holds its render notes. */
export const NOTES_FILE = "NOTES.md";

/** A progress line shows only on a terminal, and only for fleets this long. */
export const PROGRESS_THRESHOLD = 50;

const VALUES_FILE = /\.(ya?ml|json)$/i;

export interface FleetEntry {
  file: string;
  name: string;
  /** OUT's hidden entries for NAME: earlier generations, leftovers of killed runs. */
  leftovers?: string[];
  /** OUT held no entry named NAME when read (writeFleetMember's path for a new NAME). */
  absent?: boolean;
  /** Judged with the fleet's members of other kinds, refused: nothing of it is written. */
  refused?: Refusal;
}

/** The pair errors a member owns (each names its file) and the members it was judged with. */
interface Refusal {
  lines: string[];
  partners: string[];
}

/** A fleet's values files in order; directories one level deep and non-file symlinks skipped (with a note), so no walk loops or blocks. */
export function fleetInputs(inputs: readonly string[], skipped: string[] = []): FleetEntry[] {
  const files: { file: string; name: string }[] = [];
  for (const input of inputs) {
    if (input === "-") throw new UsageError("- (stdin) renders alone, not as part of a fleet");
    if (!isDirectory(input)) {
      files.push({ file: input, name: basename(input, extname(input)) });
      continue;
    }
    const found = readdirSync(input, { withFileTypes: true })
      .filter((e) => VALUES_FILE.test(e.name) && !e.name.startsWith(".") && (e.isFile() || (e.isSymbolicLink() && linksToFile(join(input, e.name), skipped))))
      .filter((e) => !notValues(join(input, e.name), skipped))
      .map((e) => e.name)
      .sort();
    if (found.length === 0) throw new UsageError(`${input}: holds no values files (*.yaml, *.yml, *.json)`);
    const prefix = directoryPrefix(input);
    for (const entry of found) files.push({ file: prefix + entry, name: entry.slice(0, entry.length - VALUES_FILE.exec(entry)![0].length) });
  }
  const byName = new Map<string, string>();
  return files.map(({ file, name }) => {
    if (!SAFE_FILE_NAME.test(name)) {
      throw new UsageError(
        `${file}: ${JSON.stringify(name)} cannot name an output directory; rename the file to letters, digits, '.', '_' and '-', starting with a letter or digit`,
      );
    }
    const other = byName.get(name);
    if (other !== undefined) throw new UsageError(`${other} and ${file} would both render into ${name}/; give the files distinct names`);
    byName.set(name, file);
    return { file, name };
  });
}

/** Files that sit beside values files and are none: an editor's schema (rigging init's modeline), a kustomization. */
const NOT_VALUES: [RegExp, string][] = [
  [/\.schema\.json$/i, "a JSON Schema"],
  [/^(kustomization\.ya?ml|Kustomization)$/, "a kustomization"],
];

function notValues(path: string, skipped: string[]): boolean {
  const what = NOT_VALUES.find(([name]) => name.test(basename(path)))?.[1];
  if (what !== undefined) skipped.push(`${path}: ${what}, not a values file`);
  return what !== undefined;
}

/** What `join(dir, name)` puts before an entry's name, without path calls per file. */
function directoryPrefix(dir: string): string {
  return join(dir, "x").slice(0, -1); // "dir/", "/" for the root, "" for "." and ""
}

/** Whether a symlink targets a regular file; an unfollowable one is kept to be reported when read. */
function linksToFile(path: string, skipped: string[]): boolean {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return true;
  }
  if (stat.isFile()) return true;
  const what = stat.isFIFO()
    ? "a FIFO"
    : stat.isDirectory()
      ? "a directory"
      : stat.isSocket()
        ? "a socket"
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? "a device"
          : "not a file";
  skipped.push(`${path}: a symbolic link to ${what}, not a regular file`);
  return false;
}

/** Makes DIR a writable directory (not its parents) and answers its entries. */
export function prepareFleetOutput(dir: string): ReturnType<typeof fleetListing> {
  prepareOutputDirectory(dir);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return fleetListing(dir);
  } catch (error) {
    throw new UsageError(`${dir}: cannot write in the output directory: ${fsReason(error)}`);
  }
}

export function progressLine(done: number, total: number, failed: number): string {
  return `\r\u001b[Krendering ${done}/${total}${failed ? ` (${failed} not rendered)` : ""}`;
}

/** What became of one file: its exit code and what to tell people. */
interface Outcome {
  exitCode: number;
  report: string;
  /** In a pass that reads ahead: the member's values kind, and its objects in the pass that renders them. */
  kind?: string;
  objects?: K8sObject[];
}

/** What every file of a fleet shares, on whichever thread renders it. */
interface FleetContext {
  output: string;
  layout: Layout;
  color: boolean;
  /** --force: overwrite files of OUT/NAME changed since rigging wrote them. */
  force?: boolean;
  /** OUT is an earlier fleet output: each member says what it changes (src/diff/summary.ts). */
  summary?: boolean;
  /** --values-root and --kube-version: how each values file is read and judged. */
  read: RenderOptions;
  /** A pass before anything is written: each member's kind, or its objects to be judged with the others. */
  ahead?: "kind" | "objects";
}

/** Renders one file into OUT/NAME/, swapped in atomically; never throws. */
function renderEntry(entry: FleetEntry, { output, layout, color, force, summary, read }: FleetContext): Outcome {
  if (entry.refused) return refusedOutcome(entry.file, entry.refused, color);
  try {
    const rendered = renderFile(entry.file, { ...read, notes: true });
    const files = withNotes(layoutFiles(rendered.objects, layout), entry, rendered.notes);
    const dir = join(output, entry.name);
    // Only an output rigging owns is read for the summary; anything else (a FIFO among its files) is refused by the write.
    const before = !summary ? undefined : entry.absent ? "new" : isOwnedOutput(dir) ? earlierFiles(dir) : undefined;
    const forced = writeFleetMember(output, entry.name, files, entry.leftovers ?? [], entry.absent, force);
    const changes = summary ? memberSummary(dir, before, files, rendered.objects) : "";
    return { exitCode: 0, report: printableLines(overwrittenLines(dir, forced)) + changes };
  } catch (error) {
    let report = "";
    const exitCode = reportFileError(entry.file, error, { out: () => {}, err: (t) => void (report += t), color });
    return { exitCode, report };
  }
}

/** A member's notes (checklist, Secrets to create, runner-clusters entry) beside its manifests, as NOTES.md. */
function withNotes(files: Map<string, string>, entry: FleetEntry, notes: readonly string[]): Map<string, string> {
  if (notes.length === 0) return files;
  const text = `# ${entry.name}\n\nWhat rigging render prints after rendering ${entry.name}'s values file alone:\n\n\`\`\`text\n${notes.join("\n")}\n\`\`\`\n`;
  return new Map(files).set(NOTES_FILE, text);
}

/** Reports why one file of a fleet was not rendered; returns its exit code. */
function reportFileError(file: string, error: unknown, io: Io): number {
  const label = paint(io, 31, "error");
  if (error instanceof ValuesError) {
    for (const d of error.diagnostics) io.err(`${label} ${formatDiagnostic(d)}\n`);
    io.err(`${printable(file)}: ${error.diagnostics.length} error(s); not rendered\n`);
    return 1;
  }
  if (error instanceof UsageError) {
    const message = error.message.startsWith(file) ? error.message : `${file}: ${error.message}`;
    io.err(`${label} ${printable(bounded(message))}; not rendered\n`);
    return 1;
  }
  const message = error instanceof InternalError ? error.message : internalErrorLine((error as Error)?.message ?? String(error));
  io.err(`${label} ${printable(file)}: ${printableLines(message)}\n`);
  return 3;
}

/** Renders each file into DIR/NAME/ as it is made, so memory holds one file per thread; failures are reported in input order and set the worst exit code. */
export function renderFleet(
  inputs: string[],
  output: string,
  io: Io,
  layout: Layout = DEFAULT_LAYOUT,
  force = false,
  read: RenderOptions = {},
): number | Promise<number> {
  const skipped: string[] = [];
  const inputsFound = fleetInputs(inputs, skipped);
  for (const note of skipped) io.err(`${paint(io, 33, "skipped")} ${printable(note)}\n`);
  for (const { file, name } of inputsFound) {
    const reserved = reservedName(name);
    if (reserved !== undefined) throw new UsageError(`${file}: ${JSON.stringify(name)} ${reserved}`);
  }
  const { leftovers, names } = prepareFleetOutput(output);
  const entries = inputsFound.map(({ file, name }): FleetEntry => ({ file, name, leftovers: leftovers.get(hiddenBase(name)) ?? [], absent: !names.has(name) }));
  // Over an earlier fleet output each member's changes are told; a first render into OUT tells none.
  const summary = leftovers.size > 0 || entries.some((entry) => !entry.absent);
  const context: FleetContext = { output, layout, color: io.color, force, summary, read };
  const threads = threadsFor(entries.length);
  if (threads <= 1) {
    const kinds = entries.map((entry) => kindOf(entry.file, read));
    const pairs = refusePairs(entries, kinds, read);
    return finish(renderSequentially(entries, context, io), entries, context, io, pairs);
  }
  return judgeOnThreads(entries, context, threads).then((pairs) => renderOnThreads(entries, context, io, threads, pairs));
}

/** A values file larger than this is read ahead on a worker thread, where a file that exhausts a heap costs that worker alone. */
const READ_AHEAD_BYTES = 64 * 1024;

/** `refusePairs` for a long fleet: ordinary values files read on this thread, larger ones on workers started for them alone. */
async function judgeOnThreads(entries: readonly FleetEntry[], context: FleetContext, threads: number): Promise<number> {
  const large = entries.flatMap((entry, i) => ((fileSize(entry.file) ?? 0) > READ_AHEAD_BYTES ? [i] : []));
  const onWorkers = new Set(large);
  const kinds = entries.map((entry, i) => (onWorkers.has(i) ? undefined : kindOf(entry.file, context.read)));
  const ahead = async (pass: "kind" | "objects", items: number[]) => {
    // What a dying worker held stays unread, never read here: that member renders as one judged with no other.
    const outcomes = new Map(items.map((i): [number, Outcome] => [i, { exitCode: 0, report: "" }]));
    if (items.length === 0) return outcomes;
    let next = 0;
    const take = () => (next < items.length ? entries[items[next++]] : undefined);
    await feedThreads(renderJob, take, { ...context, ahead: pass }, Math.min(threads, items.length), (index, o) => void outcomes.set(items[index], o));
    return outcomes;
  };
  for (const [i, outcome] of await ahead("kind", large)) kinds[i] = outcome.kind;
  if (new Set(kinds.filter((kind) => kind !== undefined)).size < 2) return 0;
  return refusePairs(
    entries,
    kinds,
    context.read,
    await ahead(
      "objects",
      large.filter((i) => kinds[i] !== undefined),
    ),
  );
}

function renderOnThreads(entries: FleetEntry[], context: FleetContext, io: Io, threads: number, pairs: number): Promise<number> {
  const progress = Boolean(io.tty) && entries.length >= PROGRESS_THRESHOLD ? (done: number) => io.err(progressLine(done, entries.length, 0)) : undefined;
  return runOnThreads(renderJob, entries, context, threads, progress).then(({ results, lost, threads: used }) => {
    if (progress) io.err("\r\u001b[K");
    // The file a worker held when it died is reported, never lost silently; the files it finished keep their outcomes.
    const outcomes = entries.map((entry, index) => results[index] ?? lostEntry(entry, io.color, lost.get(index) ?? "stopped"));
    for (const outcome of outcomes) io.err(outcome.report);
    return finish(outcomes, entries, context, io, pairs, used);
  });
}

/** One file of a fleet, on whichever thread takes it: rendered and written, or read ahead. */
const renderJob = defineJob("render", (entry: FleetEntry, context: FleetContext): Outcome => {
  if (context.ahead === "kind") return { exitCode: 0, report: "", kind: kindOf(entry.file, context.read) };
  return context.ahead === "objects" ? { exitCode: 0, report: "", ...judgedObjects(entry.file, context.read) } : renderEntry(entry, context);
});

function renderSequentially(entries: readonly FleetEntry[], context: FleetContext, io: Io): Outcome[] {
  const showProgress = Boolean(io.tty) && entries.length >= PROGRESS_THRESHOLD;
  let failed = 0;
  let lastProgress = 0;
  return entries.map((entry, index) => {
    const outcome = renderEntry(entry, context);
    if (outcome.exitCode !== 0) failed++;
    if (outcome.report) io.err((showProgress ? "\r\u001b[K" : "") + outcome.report);
    if (showProgress && (Date.now() - lastProgress > 100 || index === entries.length - 1)) {
      lastProgress = Date.now();
      io.err(progressLine(index + 1, entries.length, failed));
    }
    if (showProgress && index === entries.length - 1) io.err("\r\u001b[K");
    return { exitCode: outcome.exitCode, report: "" };
  });
}

/** A file whose worker thread died while rendering it: nothing of it was written (OUT/NAME is swapped in whole). */
function lostEntry(entry: FleetEntry, color: boolean, why: string): Outcome {
  const what = `the worker thread rendering it ${why}`;
  const message = why.startsWith("ran out of memory")
    ? `not rendered: ${what}; the other files are not affected. Give node a larger heap (NODE_OPTIONS=--max-old-space-size=MiB)`
    : `not rendered: ${internalErrorLine(what)}`;
  return { exitCode: 3, report: `${paint({ color } as Io, 31, "error")} ${printable(`${entry.file}: ${message}`)}\n` };
}

function finish(outcomes: Outcome[], entries: readonly FleetEntry[], { output }: FleetContext, io: Io, pairs: number, threads = 1): number {
  const total = entries.length;
  const failed = outcomes.filter((o) => o.exitCode !== 0).length;
  const on = threads > 1 ? ` on ${threads} threads` : "";
  io.err(`rendered ${total - failed} of ${total} values files into ${printable(output)}${on}${failed ? `; ${failed} not rendered` : ""}\n`);
  if (pairs > 0)
    io.err(`${pairs} error(s) in the fleet's members judged together, as check judges them in one stream; neither side was written; fix the values named\n`);
  return outcomes.reduce((worst, o) => Math.max(worst, o.exitCode), 0);
}

/** A rendered member of a fleet of several kinds, with its entry. */
type Judged = Member & { entry: FleetEntry };

/**
 * Judges the members of a fleet of several kinds as one stream (a Runner against a Server's runner-clusters entry) before
 * any is written, marking both sides of each error refused; answers the number of errors.
 */
function refusePairs(
  entries: readonly FleetEntry[],
  kinds: readonly (string | undefined)[],
  read: RenderOptions,
  ahead: ReadonlyMap<number, Outcome> = new Map(),
): number {
  // Kinds are read first, a parse without a render, so a fleet of one kind renders each file once and pays no pair render.
  if (new Set(kinds.filter((kind) => kind !== undefined)).size < 2) return 0;
  const members: Judged[] = [];
  entries.forEach((entry, i) => {
    const { kind, objects } = kinds[i] === undefined ? {} : (ahead.get(i) ?? judgedObjects(entry.file, read));
    if (kind !== undefined && objects !== undefined) members.push({ entry, file: entry.file, kind, objects, notes: [] });
  });
  const lines = pairRefusals(members);
  const refusal = (entry: FleetEntry): Refusal => (entry.refused ??= { lines: [], partners: [] });
  const partner = (entry: FleetEntry, file: string) => {
    if (!refusal(entry).partners.includes(file)) refusal(entry).partners.push(file);
  };
  for (const line of lines) {
    // A line starts with the file of the member whose object is refused (the longest such path, should one prefix another).
    const owner = members.filter((m) => line.startsWith(`${m.file}: `)).sort((a, b) => b.file.length - a.file.length)[0];
    const holders = owner ? [owner] : members;
    const apart = members.filter((m) => m.kind !== owner?.kind);
    const others = owner ? counterparts(owner, line, apart) : members;
    for (const holder of holders) refusal(holder.entry).lines.push(line);
    for (const holder of holders)
      for (const other of others) {
        if (other === holder) continue;
        partner(holder.entry, other.file);
        partner(other.entry, holder.file);
      }
  }
  return lines.length;
}

/** A member's kind and objects to be judged with the others; none where it does not render: its render to be written reports why. */
function judgedObjects(file: string, read: RenderOptions): { kind?: string; objects?: K8sObject[] } {
  try {
    const rendered = renderFile(file, { ...read, notes: false });
    return { kind: rendered.valuesKind.kind, objects: rendered.objects };
  } catch {
    return {};
  }
}

/** A member's values kind, or undefined where reading it fails: its render reports why. */
function kindOf(file: string, read: RenderOptions): string | undefined {
  if (fileSize(file) === undefined) return undefined;
  try {
    return valuesKindOfFile(file, read);
  } catch {
    return undefined;
  }
}

/** A member's size, if it is a regular file: a pipe or FIFO (`<(sops -d a.yaml)`) is read once, when rendered to be written, and judged with no other member. */
function fileSize(file: string): number | undefined {
  try {
    const stat = statSync(file);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/** A member refused with the members it was judged with: its own error lines, then why it was not rendered. */
function refusedOutcome(file: string, { lines, partners }: Refusal, color: boolean): Outcome {
  const label = paint({ color } as Io, 31, "error");
  const own = lines.map((line) => `${label} ${printable(bounded(line))}\n`).join("");
  const named = partners.map((p) => printable(p)).join(", ");
  const last =
    lines.length > 0
      ? `${printable(file)}: ${lines.length} error(s) judged together with ${named}; not rendered\n`
      : `${label} ${printable(file)}: judged together with ${named}, whose error(s) name it; not rendered\n`;
  return { exitCode: 1, report: own + last };
}
