import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { FORMATS, formatJson, formatSarif, formatText, type Format } from "../check/format.ts";
import { checkFiles, type CheckReport } from "../check/run.ts";
import { PROFILE_NAMES, type ProfileName } from "../rules/engine.ts";
import { paint, type Io } from "./io.ts";
import { VERSION } from "./version.ts";

export const CHECK_HELP = `Usage: rigging check FILE... [--format text|json|sarif] [--profile NAME]

Run the rule catalog over existing manifests: files, directories (every
.yaml, .yml and .json under them, in sorted order) or - for stdin. Multi-
document YAML, JSON and List objects are read; each object is checked
against the rules of its profile, recognised from its app.kubernetes.io/name
label or its shape. The objects of one profile in one directory or stream
are one installation, or one per app.kubernetes.io/instance when every
object carries that label (rendered objects do).

  kubectl kustomize overlay/ | rigging check -
  helm template my-release chart/ | rigging check - --format sarif > check.sarif

Options:
  -f, --format FMT    text (default): FILE:LINE  RULE-ID  Kind/namespace/name  field  message  (fix)
                      json: an array of findings; sarif: SARIF 2.1.0 for code scanning
  -p, --profile NAME  check every object as ${PROFILE_NAMES.join(", ")}
  -h, --help          show this help

Run 'rigging explain RULE-ID' for why a rule exists and how to fix it.
Exit codes: 0 no error finding; 1 error findings; 2 unreadable input, no
Kubernetes objects in the input, or usage error; 3 internal error.
`;

export function checkCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "string", short: "f", default: "text" },
      profile: { type: "string", short: "p" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(CHECK_HELP), 0;
  const format = values.format as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format ${values.format}: expected ${FORMATS.join(", ")}`);
  const profile = values.profile as ProfileName | undefined;
  if (profile !== undefined && !PROFILE_NAMES.includes(profile)) throw new UsageError(`--profile ${profile}: expected one of ${PROFILE_NAMES.join(", ")}`);
  if (positionals.length === 0) throw new UsageError("check needs at least one FILE, directory or - for stdin; see rigging check --help");

  const report = checkFiles(positionals, { profile });
  return report instanceof Promise ? report.then((r) => respond(r, format, io)) : respond(report, format, io);
}

/** Prints the report in `format` and answers the exit code. */
function respond(report: CheckReport, format: Format, io: Io): number {
  for (const input of report.skippedInputs) io.err(`${paint(io, 33, "skipped")} ${printable(input)}\n`);
  if (report.problems.length > 0) {
    for (const problem of report.problems) io.err(`${paint(io, 31, "error")} ${printable(problem)}\n`);
    io.err(`${report.problems.length} input problem(s); nothing was checked\n`);
    return 2;
  }
  // An empty stream (a `kubectl kustomize` that failed upstream of a pipe
  // without pipefail) must not pass as "no findings".
  if (report.objects === 0) {
    io.err(`${paint(io, 31, "error")} no Kubernetes objects in ${printable(inputNames(report.files))}; nothing was checked\n`);
    return 2;
  }
  if (format === "text") io.out(formatText(report.findings));
  else if (format === "json") io.out(formatJson(report.findings));
  else io.out(formatSarif(report, VERSION));
  notes(report, format, io);
  return report.findings.some((f) => f.severity === "error") ? 1 : 0;
}

function inputNames(files: readonly string[]): string {
  const shown = files.slice(0, 3).join(", ");
  return files.length > 3 ? `${shown} and ${files.length - 3} more file(s)` : shown;
}

/** For people, on stderr: what was not judged, and the summary. */
function notes(report: CheckReport, format: Format, io: Io): void {
  for (const s of report.skipped) io.err(`${paint(io, 33, "skipped")} ${s.ruleId} (${s.profiles.join(", ")}): not judged from manifests: ${s.reason}\n`);
  for (const u of report.unrecognised) {
    io.err(`${paint(io, 33, "skipped")} ${printable(`${u.file}:${u.line} ${u.object}`)}: not recognised as any profile (no known app.kubernetes.io/name label or shape), skipped; --profile NAME checks it\n`);
  }
  if (format !== "text") return;
  const errors = report.findings.filter((f) => f.severity === "error").length;
  const warnings = report.findings.length - errors;
  const profiles = report.profiles.length > 0 ? ` (${report.profiles.join(", ")})` : "";
  io.err(`${errors} error(s), ${warnings} warning(s) in ${report.objects} object(s) of ${report.files.length} file(s)${profiles}\n`);
}
