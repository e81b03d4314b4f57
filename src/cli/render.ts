import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatDiagnostic } from "../core/diagnostic.ts";
import { toJsonList, toYamlStream } from "../emit/emit.ts";
import { kubeVersionFlag } from "../k8s/kube-version.ts";
import { UsageError, ValuesError } from "../core/errors.ts";
import { overwrittenLines, refuseForeignOutput, writeDirectory } from "../emit/output-dir.ts";
import { earlierOutput, renderSummary } from "../diff/summary.ts";
import { DEFAULT_LAYOUT, layoutFiles, STREAM_FILE, type Layout } from "../emit/output-layout.ts";
import { printable, printableLines } from "../core/printable.ts";
import { LIMITS_TEXT } from "../parse/limits.ts";
import type { SetArgument } from "../values/layers.ts";
import { SetError } from "../values/set-values.ts";
import { renderFile, renderLayers } from "../pipeline.ts";
import { isDirectory } from "./directory.ts";
import { renderFleet } from "./fleet.ts";
import { paint, type Io } from "./io.ts";
import { renderDirectoryStream } from "./render-stream.ts";

export const RENDER_HELP = `Usage: rigging render VALUES [-o DIR [--per-object] [--force]] [--format yaml|json] [--quiet]
       rigging render -f BASE -f VALUES [--set KEY=VALUE]...   (layered values)
       rigging render VALUES... -o DIR      (a fleet: many files or a directory)
       rigging render DIR                   (every values file of DIR, one stream on stdout)

Validate a values file, render its Kubernetes objects, check them against
the rule catalog, and print them as a YAML stream on stdout.

Options:
  -o, --output DIR   write ${STREAM_FILE} (the stream printed without -o, byte
                     for byte) and a kustomization.yaml listing it into DIR,
                     which must be absent, empty or an earlier rigging output
                     (DIR/.rigging-output lists rigging's files; no other file
                     is ever deleted; nothing changes on error)
      --force        with -o: overwrite (or remove) files of an earlier output
                     that were changed since rigging wrote them, naming them
                     on stderr; without it such an output is refused, the
                     changed files named, and nothing is written
      --per-object   with -o: one file per object, named after its kind, and a
                     kustomization.yaml listing them in apply order, instead
                     of ${STREAM_FILE}; either layout replaces the other
  -f, --values FILE  a values file; several -f layer in order, as Helm's do
      --values-root DIR  the tree whose files a values file's base: may name
                     (default: the repository, with its .git, holding each
                     values file given; else the working directory holding
                     it; else its directory); a base outside it, after
                     symlinks, is refused
      --set K=V      set a value on top of the files, as helm --set reads it:
                     a.b=1,c[0]=x,d={x,y}; true, false, null and whole
                     numbers are typed, anything else is a string
      --set-string K=V  the same, every value a string
      --format FMT   yaml (default) or json (a v1 List)
      --kube-version 1.N  the Kubernetes version the output is for (1.N.P
                     and v1.N.P name their minor): a system below its
                     floor is refused, as the Compass Runner below 1.32
                     (1.33, or 1.32 with feature gates)
  -q, --quiet        do not print the post-render notes on stderr
  -h, --help         show this help

VALUES is a YAML or JSON file with a top-level kind, or - for stdin. It
may also be a KRM resource (apiVersion: rigging.dev/v1alpha1, metadata), as
rigging init prints it: those two keys are set aside.

Layered values, with Helm's rules: VALUES (if given) and each -f file are
merged in order; a later file wins, maps merge key by key, lists and
scalars replace, and null removes a key an earlier file set. --set and
--set-string apply on top, in order: an index may name an item or the end
of a list, never past it. A file may name the file it builds on with
base: PATH (relative to the file, inside --values-root after symlinks;
bases chain, a cycle is refused). Every
refusal names the file and line, or the --set argument, that set the
value. All layers name one kind. See docs/fleet.md for a fleet's base.

A fleet: with several VALUES, or a directory (its *.yaml, *.yml and *.json
files, not its subdirectories), -o DIR is required and each file renders
into DIR/NAME/ (NAME is the file name without its extension), in the same
layout as -o DIR for one file: a link to a hidden DIR/.NAME.<n>, swapped
atomically; other entries of DIR are left alone. Two files with the same
NAME are refused before anything is written. A bad file is reported by
name and skipped; the others are still written. Each member's notes (its
checklist, the Secrets to create) are written to DIR/NAME/NOTES.md, not
printed. A fleet of several kinds is judged first, as rigging check judges
its members in one stream: a Runner against the runner-clusters entry of
a Server in another member; a disagreement is an error naming both files,
neither is written, the others are (exit 1). Over an earlier fleet output,
each member that changed gets rigging diff's summary line on stderr, and a
new member says it is new. Fleets of 200 files or more
render on worker threads, one per core up to 4 (RIGGING_THREADS=N caps it).

A directory without -o prints the objects of all its values files as one
stream (--format json: one List), in file order, and each file's notes on
stderr (not with -q). The stream is judged whole, as rigging check judges
it: a Runner against the runner-clusters entry of a Server from another
file (token lifetime, issuer, audience, TLS names). If any file does not
render, two files render the same object, or the whole is refused, nothing
is printed (exit 1) and each refusal names both files.

Why ${STREAM_FILE} by default: it is the directory GitOps tools read
(kubectl kustomize, Argo CD, Flux), it diffs against the stdout of a render,
and a fleet writes 3 files per installation instead of one per object (a
10,000-file fleet to disk in about 0.8x the time). --per-object suits
applying or reviewing objects one by one. See docs/fleet.md.

Limits: ${LIMITS_TEXT}; larger inputs are refused.
Exit codes: 0 rendered; 1 invalid values (in a fleet: any file not
rendered); 2 usage error; 3 internal error.
`;

const RENDER_OPTIONS = {
  output: { type: "string", short: "o" },
  values: { type: "string", short: "f", multiple: true },
  set: { type: "string", multiple: true },
  "set-string": { type: "string", multiple: true },
  format: { type: "string", default: "yaml" },
  quiet: { type: "boolean", short: "q", default: false },
  "per-object": { type: "boolean", default: false },
  force: { type: "boolean", default: false },
  "values-root": { type: "string" },
  "kube-version": { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

const parseRenderArgs = (args: string[]) => parseArgs({ args, allowPositionals: true, options: RENDER_OPTIONS });

/** What parseArgs answers for a list without options: every option's default. */
const DEFAULTS = Object.fromEntries(
  Object.entries(RENDER_OPTIONS).flatMap(([name, option]) => ("default" in option ? [[name, option.default]] : [])),
) as unknown as ReturnType<typeof parseRenderArgs>["values"];

/** A render's options and files as util.parseArgs reads them; a plain file list skips parseArgs (test/cli/render-args.test.ts compares the two). */
export function renderArgs(args: string[]): ReturnType<typeof parseRenderArgs> {
  if (args.every((arg) => arg === "-" || !arg.startsWith("-"))) return { values: { ...DEFAULTS }, positionals: [...args] };
  return parseRenderArgs(args);
}

export function renderCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = renderArgs(args);
  if (values.help) return io.out(RENDER_HELP), 0;
  if (values.values || values.set || values["set-string"]) return renderLayered(args, positionals, values, io);
  if (positionals.length === 0) throw new UsageError("render takes a values file (rigging render VALUES, or -f VALUES); see rigging render --help");
  checkOutputOptions(values);
  const layout: Layout = values["per-object"] ? "per-object" : DEFAULT_LAYOUT;

  const fleet = positionals.length > 1 || isDirectory(positionals[0]);
  const read = readOptions(values);
  if (fleet && values.output === undefined && positionals.length === 1)
    return renderDirectoryStream(positionals[0], values.format as "yaml" | "json", io, read, values.quiet);
  if (fleet) {
    if (values.output === undefined)
      throw new UsageError(
        `rendering ${positionals.length} values files needs -o DIR (each file renders into DIR/NAME/), or put them in one directory and render it to stdout`,
      );
    return renderFleet(positionals, values.output, io, layout, values.force, read);
  }
  return renderOne(positionals[0], values.output, { layout, force: values.force, ...read }, values.format, values.quiet, io);
}

/** How each values file is read and judged: the tree its base: may name, the Kubernetes version it is for. */
function readOptions(values: ReturnType<typeof renderArgs>["values"]): { valuesRoot?: string; kubeVersion?: string } {
  const kubeVersion = kubeVersionFlag(values["kube-version"]);
  return { valuesRoot: values["values-root"], ...(kubeVersion ? { kubeVersion } : {}) };
}

function checkOutputOptions(values: ReturnType<typeof renderArgs>["values"]): void {
  if (values.format !== "yaml" && values.format !== "json") throw new UsageError(`--format ${values.format}: expected yaml or json`);
  if (values.output !== undefined && values.format === "json") throw new UsageError("--format json writes to stdout; -o DIR always writes YAML files");
  if (values["per-object"] && values.output === undefined)
    throw new UsageError("--per-object chooses the files -o DIR writes; without -o the objects go to stdout as one stream");
  if (values.force && values.output === undefined)
    throw new UsageError("--force lets -o DIR overwrite files changed by hand; without -o nothing is overwritten");
}

/** `render -f A -f B --set K=V`: one render of the layers (values/layers.ts). */
function renderLayered(args: string[], positionals: string[], values: ReturnType<typeof renderArgs>["values"], io: Io): number {
  if (positionals.length > 1)
    throw new UsageError(
      `${positionals.length} values files without -f are a fleet, each rendered alone; layer files with -f BASE -f FILE, or render the fleet without -f and --set`,
    );
  const files = [...positionals, ...(values.values ?? [])];
  if (files.length === 0) throw new UsageError("--set sets values on top of a values file: give one with -f VALUES; see rigging render --help");
  for (const file of files)
    if (file !== "-" && isDirectory(file)) throw new UsageError(`${file}: -f takes a values file; a directory renders as a fleet: rigging render ${file}`);
  for (const file of values.values ?? [])
    if ((file === "yaml" || file === "json") && !existsSync(file))
      throw new UsageError(`-f ${file}: -f is a values file, as in Helm; the output format is --format ${file}`);
  if (files.filter((f) => f === "-").length > 1) throw new UsageError("- (stdin) can be read once");
  checkOutputOptions(values);
  const layout: Layout = values["per-object"] ? "per-object" : DEFAULT_LAYOUT;
  const write = { layout, force: values.force, ...readOptions(values) };
  return renderOne(files, values.output, write, values.format, values.quiet, io, setArguments(args));
}

/** The --set and --set-string arguments in the order given. */
function setArguments(args: string[]): SetArgument[] {
  const { tokens } = parseArgs({ args, allowPositionals: true, options: RENDER_OPTIONS, tokens: true });
  return tokens.flatMap((t) =>
    t.kind === "option" && (t.name === "set" || t.name === "set-string") ? [{ flag: `--${t.name}` as const, arg: t.value ?? "" }] : [],
  );
}

function renderOne(
  files: string | string[],
  output: string | undefined,
  write: { layout: Layout; force: boolean; valuesRoot?: string; kubeVersion?: string },
  format: string,
  quiet: boolean,
  io: Io,
  sets: SetArgument[] = [],
): number {
  const list = typeof files === "string" ? [files] : files;
  const { layout } = write;
  let rendered;
  try {
    const options = { valuesRoot: write.valuesRoot, kubeVersion: write.kubeVersion };
    rendered = sets.length === 0 && list.length === 1 ? renderFile(list[0], options) : renderLayers(list, sets, options);
  } catch (error) {
    if (error instanceof SetError) throw new UsageError(error.message);
    if (!(error instanceof ValuesError)) throw error;
    for (const d of error.diagnostics) io.err(`${paint(io, 31, "error")} ${formatDiagnostic(d)}\n`);
    io.err(`${error.diagnostics.length} error(s); nothing was rendered\n`);
    return 1;
  }
  if (output !== undefined) {
    const inputs = list.filter((f) => f !== "-");
    // The refusal comes before the summary reads the earlier output's files.
    refuseForeignOutput(output, inputs);
    const before = earlierOutput(output);
    const forced = writeDirectory(output, layoutFiles(rendered.objects, layout), inputs, write.force);
    const lines = overwrittenLines(output, forced);
    if (lines) io.err(printableLines(lines));
    const how = layout === "per-object" ? "one file each" : `in ${STREAM_FILE}`;
    io.err(`wrote ${rendered.objects.length} objects (${how}) and kustomization.yaml to ${printable(output)}\n`);
    if (before) io.err(renderSummary(before, rendered.objects));
  } else {
    io.out(format === "json" ? toJsonList(rendered.objects) : toYamlStream(rendered.objects));
  }
  if (!quiet && rendered.notes.length > 0) io.err(`${rendered.notes.map(printable).join("\n")}\n`);
  return 0;
}
