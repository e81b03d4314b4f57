import { parseArgs } from "node:util";
import { formatDiagnostic } from "../core/diagnostic.ts";
import { directoryFiles, toJsonList, toYamlStream, writeDirectory } from "../core/emit.ts";
import { UsageError, ValuesError } from "../core/errors.ts";
import { renderFile } from "../pipeline.ts";
import { paint, type Io } from "./io.ts";

export const RENDER_HELP = `Usage: rigging render VALUES [-o DIR] [--format yaml|json] [--quiet]

Validate a values file, render its Kubernetes objects, check them against
the rule catalog, and print them as a YAML stream on stdout.

Options:
  -o, --output DIR   write one file per object plus kustomization.yaml into DIR
                     (DIR is replaced atomically; nothing changes on error)
  -f, --format FMT   yaml (default) or json (a v1 List)
  -q, --quiet        do not print the post-render notes on stderr
  -h, --help         show this help

VALUES is a YAML or JSON file with a top-level kind, or - for stdin.
Exit codes: 0 rendered; 1 invalid values; 2 usage error; 3 internal error.
`;

export function renderCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: "string", short: "o" },
      format: { type: "string", short: "f", default: "yaml" },
      quiet: { type: "boolean", short: "q", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(RENDER_HELP), 0;
  if (positionals.length !== 1) throw new UsageError(`render takes one values file, got ${positionals.length}; see rigging render --help`);
  if (values.format !== "yaml" && values.format !== "json") throw new UsageError(`--format ${values.format}: expected yaml or json`);
  if (values.output !== undefined && values.format === "json") throw new UsageError("--format json writes to stdout; -o DIR always writes YAML files");

  let rendered;
  try {
    rendered = renderFile(positionals[0]);
  } catch (error) {
    if (!(error instanceof ValuesError)) throw error;
    for (const d of error.diagnostics) io.err(`${paint(io, 31, "error")} ${formatDiagnostic(d)}\n`);
    io.err(`${error.diagnostics.length} error(s); nothing was rendered\n`);
    return 1;
  }
  if (values.output !== undefined) {
    writeDirectory(values.output, directoryFiles(rendered.objects));
    io.err(`wrote ${rendered.objects.length} objects and kustomization.yaml to ${values.output}\n`);
  } else {
    io.out(values.format === "json" ? toJsonList(rendered.objects) : toYamlStream(rendered.objects));
  }
  if (!values.quiet && rendered.notes.length > 0) io.err(rendered.notes.join("\n") + "\n");
  return 0;
}
