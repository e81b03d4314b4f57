import { parseArgs } from "node:util";
import { formatDiagnostic } from "../core/diagnostic.ts";
import { toJsonList, toYamlStream } from "../core/emit.ts";
import { UsageError, ValuesError } from "../core/errors.ts";
import { writeDirectory } from "../core/output-dir.ts";
import { earlierOutput, renderSummary } from "../diff/summary.ts";
import { DEFAULT_LAYOUT, layoutFiles, STREAM_FILE, type Layout } from "../core/output-layout.ts";
import { printable } from "../core/printable.ts";
import { LIMITS_TEXT } from "../core/source.ts";
import { renderFile } from "../pipeline.ts";
import { isDirectory } from "./directory.ts";
import { renderFleet } from "./fleet.ts";
import { paint, type Io } from "./io.ts";
import { renderDirectoryStream } from "./render-stream.ts";

export const RENDER_HELP = `Usage: rigging render VALUES [-o DIR [--per-object]] [--format yaml|json] [--quiet]
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
      --per-object   with -o: one file per object, named after its kind, and a
                     kustomization.yaml listing them in apply order, instead
                     of ${STREAM_FILE}; either layout replaces the other
  -f, --format FMT   yaml (default) or json (a v1 List)
  -q, --quiet        do not print the post-render notes on stderr
  -h, --help         show this help

VALUES is a YAML or JSON file with a top-level kind, or - for stdin.

A fleet: with several VALUES, or a directory (its *.yaml, *.yml and *.json
files, not its subdirectories), -o DIR is required and each file renders
into DIR/NAME/ (NAME is the file name without its extension), in the same
layout as -o DIR for one file: a link to a hidden DIR/.NAME.<n>, swapped
atomically; other entries of DIR are left alone. Two files with the same
NAME are refused before anything is written. A bad file is reported by
name and skipped; the others are still written. Notes are not printed for
a fleet (render one file to see its notes). Fleets of 200 files or more
render on worker threads, one per core up to 4 (RIGGING_THREADS=N caps it).

A directory without -o prints the objects of all its values files as one
stream (--format json: one List), in file order; if any file does not
render, or two files render the same object, nothing is printed (exit 1).

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
  format: { type: "string", short: "f", default: "yaml" },
  quiet: { type: "boolean", short: "q", default: false },
  "per-object": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

const parseRenderArgs = (args: string[]) => parseArgs({ args, allowPositionals: true, options: RENDER_OPTIONS });

/** What parseArgs answers for a list without options: every option's default. */
const DEFAULTS = Object.fromEntries(
  Object.entries(RENDER_OPTIONS).flatMap(([name, option]) => ("default" in option ? [[name, option.default]] : [])),
) as ReturnType<typeof parseRenderArgs>["values"];

/**
 * The options and files of a render, as util.parseArgs reads them. A list
 * of files alone (no argument starts with `-` but a lone `-`, stdin) is
 * what parseArgs answers with the defaults, so it is answered without it:
 * parseArgs's first call compiles Node's parser (about 1 ms), and under Bun
 * `node:util` is loaded for it (about 10 ms; scripts/build.mjs loads it on
 * first use there). Every other list goes to parseArgs, which words every
 * error. test/cli/render-args.test.ts compares both on generated lists.
 * Measured: under Bun, see BUN_LOADED_AT_START in scripts/build.mjs; under
 * Node, parseArgs's first call alone is 1.1 ms of CPU time (timed alone),
 * and a render of examples/compass-runner.yaml 169.2 -> 165.6 M
 * instructions (callgrind, medians of 11 runs each, without
 * NODE_EXTRA_CA_CERTS; one run to the next differs by up to 7%).
 */
export function renderArgs(args: string[]): ReturnType<typeof parseRenderArgs> {
  if (args.every((arg) => arg === "-" || !arg.startsWith("-"))) return { values: { ...DEFAULTS }, positionals: [...args] };
  return parseRenderArgs(args);
}

export function renderCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = renderArgs(args);
  if (values.help) return io.out(RENDER_HELP), 0;
  if (positionals.length === 0) throw new UsageError("render takes a values file; see rigging render --help");
  if (values.format !== "yaml" && values.format !== "json") throw new UsageError(`--format ${values.format}: expected yaml or json`);
  if (values.output !== undefined && values.format === "json") throw new UsageError("--format json writes to stdout; -o DIR always writes YAML files");
  if (values["per-object"] && values.output === undefined)
    throw new UsageError("--per-object chooses the files -o DIR writes; without -o the objects go to stdout as one stream");
  const layout: Layout = values["per-object"] ? "per-object" : DEFAULT_LAYOUT;

  const fleet = positionals.length > 1 || isDirectory(positionals[0]);
  if (fleet && values.output === undefined && positionals.length === 1) return renderDirectoryStream(positionals[0], values.format, io);
  if (fleet) {
    if (values.output === undefined)
      throw new UsageError(
        `rendering ${positionals.length} values files needs -o DIR (each file renders into DIR/NAME/), or put them in one directory and render it to stdout`,
      );
    return renderFleet(positionals, values.output, io, layout);
  }
  return renderOne(positionals[0], values.output, layout, values.format, values.quiet, io);
}

function renderOne(file: string, output: string | undefined, layout: Layout, format: string, quiet: boolean, io: Io): number {
  let rendered;
  try {
    rendered = renderFile(file);
  } catch (error) {
    if (!(error instanceof ValuesError)) throw error;
    for (const d of error.diagnostics) io.err(`${paint(io, 31, "error")} ${formatDiagnostic(d)}\n`);
    io.err(`${error.diagnostics.length} error(s); nothing was rendered\n`);
    return 1;
  }
  if (output !== undefined) {
    const before = earlierOutput(output);
    writeDirectory(output, layoutFiles(rendered.objects, layout), file === "-" ? [] : [file]);
    const how = layout === "per-object" ? "one file each" : `in ${STREAM_FILE}`;
    io.err(`wrote ${rendered.objects.length} objects (${how}) and kustomization.yaml to ${printable(output)}\n`);
    if (before) io.err(renderSummary(before, rendered.objects));
  } else {
    io.out(format === "json" ? toJsonList(rendered.objects) : toYamlStream(rendered.objects));
  }
  if (!quiet && rendered.notes.length > 0) io.err(`${rendered.notes.map(printable).join("\n")}\n`);
  return 0;
}
