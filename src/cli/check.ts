import { parseArgs } from "node:util";
import { Document, Scalar } from "yaml";
import { UsageError } from "../core/errors.ts";
import { FORMATS, SARIF_CATEGORY, placeOf, formatJson, formatJunit, formatSarif, formatText, type Format } from "../check/format.ts";
import { checkFiles, checkFilesOnThreads, type CheckOptions, type CheckReport } from "../check/run.ts";
import { readText } from "../parse/read.ts";
import { bounded } from "../core/diagnostic.ts";
import { printable } from "../core/printable.ts";
import { designIdsNote } from "../rules/design-ids.ts";
import type { SystemName } from "../rules/engine.ts";
import { paint, type Io } from "./io.ts";
import { argumentError } from "./args.ts";
import { report as reportError } from "./command.ts";
import { findConfig, knownRules, readConfig } from "../check/config.ts";
import type { CheckFinding } from "../check/run.ts";
import { SKIP_REASONS, type SkipReason } from "../check/walked.ts";
import { ruleEntries } from "./rules.ts";
import { kubeIndex, kubeVersion } from "../check/kube-schema.ts";
import { VERSION } from "./version.ts";
import { INPUT_RULE } from "../check/pseudo-rules.ts";
import { catalog } from "../systems/registry.ts";

export { RULES_HELP, rulesCommand } from "./rules.ts";

export const CHECK_HELP = `Usage: rigging check FILE|DIR... [--format text|json|sarif|junit] [--profile NAME] [--fail-on error|warning]

Run the rule catalog over existing manifests: files, directories or - for
stdin. A directory is walked as a repository, in sorted order: hidden
directories (.git) and node_modules, bower_components, vendor and
__pycache__ are left out, symlinks that leave the directory (and loops) are
named and not followed, and of its .yaml, .yml and .json files those that
hold no Kubernetes object (charts' Chart.yaml and values, Helm and Go
templates with {{, rigging values files, schema files, package.json) are
counted in the summary and skipped. A walked file with apiVersion and kind
lines that is not valid YAML is an error (rule input). A file named on the
command line must hold Kubernetes objects (exit 2). A directory named that
holds a kustomization.yaml, and every kustomization root a walk meets (one
no other kustomization names: the overlays, not their base), is built with
kubectl kustomize (or kustomize build); the files it reads are judged
through the build only, and findings name the file and line that put the
value there: the base, or the overlay's patch. A base several overlays
reach is reported once. Without either program, kustomizations are read
file by file. Nothing is
fetched or run: a remote base, a path out of the repository, an exec
function or a helm chart in a kustomization is an error at its line. Multi-
document YAML, JSON and List objects are read; each object is checked
against the rules of its profile, recognised from its app.kubernetes.io/name
label or its shape. The objects of one profile in one directory or stream
are one installation, or one per app.kubernetes.io/instance when every
object carries that label (rendered objects do). Files of 500 directories
or more are checked on worker threads, one per core up to 4, handed a
directory at a time (RIGGING_THREADS=N sets how many at any length, 1 keeps
one); the report is the same.

YAML is read as kubectl reads it (YAML 1.1 scalars: 0400 is octal, yes is
true). Objects of a piped stream are reported in the files they were written
in, where the stream says so: kpt's config.kubernetes.io/path and index,
kustomize's config.kubernetes.io/origin (buildMetadata: [originAnnotations];
with transformerAnnotations too, a patched value is placed in its patch)
and helm template's "# Source:" comments.

  kubectl kustomize overlay/ | rigging check - --source-root overlay
  helm template my-release chart/ | rigging check - --format sarif > check.sarif
  helm install my-release chart/ --post-renderer rigging --post-renderer-args check \
    --post-renderer-args - --post-renderer-args --passthrough

Errors are what the public sources state (the Compass Runner manifests guide,
the Compass Server-on-Kubernetes design, the Rootpilot Kubernetes guide) or
the programs enforce; warnings are rigging's own hardening, each with its
reason. A warning can be waived on its object with an annotation naming the
rule and the reason:
  rigging.dev/waive: "G-07: labels come from our chart library; G-09: private mirror"

Options:
  -f, --filename FILE    a FILE, directory or - (as kubectl -f); may repeat
      --format FMT       text (default): SEVERITY  FILE:LINE  RULE-ID  Kind/namespace/name  field  message,
                         each rule's fix once after the findings
                         json: an array of findings; sarif: SARIF 2.1.0 for code scanning;
                         junit: JUnit XML for CI test reports (GitLab): a failing test case for each
                         finding that fails the run (see --fail-on), a passing one with the
                         warning in <system-out> for a warning that does not, a skipped one
                         for a waived warning
  -p, --profile NAME     check every object as ${catalog.names().join(", ")}
      --fail-on LEVEL    error (default): exit 1 on errors; warning: on warnings too (waived ones
                         aside); JUnit's failures are the findings that fail the run
      --no-waivers       ignore every rigging.dev/waive annotation
      --source-root DIR  the directory the tool that built a piped stream read (kustomize's,
                         kpt's, the chart's parent): origin paths are relative to it (default: .)
      --passthrough      with - only: print stdin unchanged on stdout when no error is
                         found, nothing otherwise; the report goes to stderr (a Helm
                         post-renderer)
      --refusal-on-stdout  with --passthrough: a refusal (exit 1 or 2) prints the report on
                         stdout as one YAML string, which no tool installs, and exits 0,
                         for a caller that drops stderr: Helm 4's post-renderer plugin
                         then shows the report in its own error
      --exclude GLOB     leave out of the walk the files and directories GLOB matches: a glob
                         with / matches the path from the directory given, one without /
                         any name (repeatable)
      --include GLOB     read only the walked files GLOB matches (repeatable)
      --include-rule ID  report only the findings of these rules (repeatable); a file that
                         cannot be read or parsed is an error whatever the selection
      --exclude-rule ID  leave out the findings of these rules (repeatable); they are
                         counted on stderr as excluded, errors among them
      --strict           a workload no profile claims is an error (rule unrecognised), not a
                         skipped entry
      --kube-version 1.N validate every object against the upstream Kubernetes schema of
                         this version (rule schema; 1.N.P and v1.N.P name their minor;
                         default: the newest bundled version with a real API server's
                         enums; docs/check.md lists them): unknown fields, wrong types, missing
                         required fields and apiVersions it does not serve are errors, a
                         beta apiVersion beside its stable one a warning, a custom resource
                         is named unchecked
      --schema-only      validate against the Kubernetes schema alone (rule schema: what the
                         API server refuses), with no normalising and no profile's rules:
                         the schema findings and exit code of a full run, sooner
      --sarif-category NAME  the SARIF run category (automationDetails.id), default ${SARIF_CATEGORY}
  -h, --help             show this help

Settings can also sit in a .rigging.yaml, found upward from the first path
checked (the working directory for -) to the repository's root; the lists
add to the options above, which replace the other settings:
  check:
    exclude-rules: [G-07]     # include-rules, exclude, include: lists
    exclude: ["charts/**"]
    kube-version: "1.33"      # fail-on, format, strict: one value each

Run 'rigging rules' for every rule, 'rigging explain RULE-ID' for why one
exists and how to fix it.
Exit codes: 0 no error finding (and no warning with --fail-on warning); 1 findings;
2 unreadable input, no Kubernetes objects in the files named or stdin, or usage error;
3 internal error.
`;

export function checkCommand(args: string[], io: Io): number | Promise<number> {
  if (!args.includes("--passthrough") || !args.includes("--refusal-on-stdout")) return checkArgs(args, io);
  // A caller that drops stderr (Helm 4) reads a wrong --post-renderer-args as it reads a refusal.
  const told: string[] = [];
  try {
    return checkArgs(args, io);
  } catch (error) {
    const usage = argumentError(error, "check", CHECK_HELP);
    if (!(usage instanceof UsageError)) throw error;
    reportError(usage, { ...io, color: false, err: tee(told, io) });
    return io.out(refusalDocument(told.join(""))), 0;
  }
}

function checkArgs(args: string[], io: Io): number | Promise<number> {
  const { values, positionals: given } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      filename: { type: "string", short: "f", multiple: true },
      format: { type: "string" },
      profile: { type: "string", short: "p" },
      "fail-on": { type: "string" },
      "no-waivers": { type: "boolean", default: false },
      "source-root": { type: "string" },
      "sarif-category": { type: "string", default: SARIF_CATEGORY },
      passthrough: { type: "boolean", default: false },
      "refusal-on-stdout": { type: "boolean", default: false },
      exclude: { type: "string", multiple: true },
      strict: { type: "boolean" },
      "include-rule": { type: "string", multiple: true },
      "exclude-rule": { type: "string", multiple: true },
      include: { type: "string", multiple: true },
      "kube-version": { type: "string" },
      "schema-only": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(CHECK_HELP), 0;
  // -f FILE as kubectl reads it: one more input.
  const positionals = [...given, ...(values.filename ?? [])];
  // The settings of the checked tree, under what the command line says.
  const config = readConfig(findConfig(positionals.find((p) => p !== "-") ?? process.cwd()));
  const from = (flag: string) => (config.file ? `${flag} (in ${config.file})` : flag);
  const format = (values.format ?? config.format ?? "text") as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`${values.format ? "--format" : from("format")} ${format}: expected ${FORMATS.join(", ")}`);
  const profile = values.profile as SystemName | undefined;
  if (profile !== undefined && !catalog.names().includes(profile)) throw new UsageError(`--profile ${profile}: expected one of ${catalog.names().join(", ")}`);
  if (positionals.length === 0) throw new UsageError("check needs at least one FILE, directory or - for stdin; see rigging check --help");
  const failOn = values["fail-on"] ?? config.failOn ?? "error";
  if (failOn !== "error" && failOn !== "warning")
    throw new UsageError(`${values["fail-on"] ? "--fail-on" : from("fail-on")} ${failOn}: expected error or warning`);
  const category = values["sarif-category"]!;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(category))
    throw new UsageError(`--sarif-category ${JSON.stringify(category)}: expected letters, digits, . _ - and /, at most 100`);
  const known = ruleEntries().map((r) => r.id);
  const where = (flag: string) => (config.file ? `${flag} (or ${config.file})` : flag);
  const output: Output = {
    format,
    failOn,
    category,
    includeRules: new Set(knownRules([...config.includeRules, ...(values["include-rule"] ?? [])], known, where("--include-rule"))),
    excludeRules: new Set(knownRules([...config.excludeRules, ...(values["exclude-rule"] ?? [])], known, where("--exclude-rule"))),
  };
  const schemaOnly = values["schema-only"];
  const strict = values.strict ?? config.strict ?? false;
  if (schemaOnly && strict) throw new UsageError("--strict judges workloads by profile; --schema-only judges no profile");
  const options: CheckOptions = {
    profile,
    noWaivers: values["no-waivers"],
    sourceRoot: values["source-root"],
    exclude: [...config.exclude, ...(values.exclude ?? [])],
    include: [...config.include, ...(values.include ?? [])],
    strict,
    kubeVersion: targetVersion(values["kube-version"] ?? config.kubeVersion, io, schemaOnly),
    schemaOnly,
  };
  if (values["refusal-on-stdout"] && !values.passthrough)
    throw new UsageError("--refusal-on-stdout goes with --passthrough: rigging check - --passthrough --refusal-on-stdout");
  if (values.passthrough) return passthrough(positionals, options, output, io, values["refusal-on-stdout"]);

  const report = checkFilesOnThreads(positionals, options);
  return report instanceof Promise ? report.then((r) => respond(r, output, io)) : respond(report, output, io);
}

/** The Kubernetes version objects are validated against, or undefined (with a note) when this build has no schemas. */
function targetVersion(given: string | undefined, io: Io, schemaOnly: boolean): string | undefined {
  const known = kubeIndex();
  if (known) return kubeVersion(given, known);
  if (given !== undefined) throw new UsageError(`--kube-version ${given}: this build of rigging carries no Kubernetes schemas`);
  if (schemaOnly) throw new UsageError("--schema-only: this build of rigging carries no Kubernetes schemas");
  io.err("note: this build of rigging carries no Kubernetes schemas: objects are not validated against them (rule schema)\n");
  return undefined;
}

interface Output {
  format: Format;
  failOn: "error" | "warning";
  category: string;
  /** Only these rules' findings are reported (empty: every rule). */
  includeRules: Set<string>;
  excludeRules: Set<string>;
}

/** Prints the report in its format and answers the exit code. */
function respond(all: CheckReport, { format, failOn, category, includeRules, excludeRules }: Output, io: Io): number {
  // A file that cannot be read or parsed is an input error whatever the selection: nothing in it was judged.
  const chosen = (f: CheckFinding) => f.ruleId === INPUT_RULE.id || ((includeRules.size === 0 || includeRules.has(f.ruleId)) && !excludeRules.has(f.ruleId));
  const report: CheckReport = { ...all, findings: all.findings.filter(chosen) };
  const excluded = all.findings.filter((f) => !chosen(f));
  for (const input of report.skippedInputs) io.err(`${paint(io, 33, "skipped")} ${printable(input)}\n`);
  if (report.problems.length > 0) {
    for (const problem of report.problems) io.err(`${paint(io, 31, "error")} ${printable(bounded(problem))}\n`);
    io.err(`${report.problems.length} input problem(s); nothing was checked\n`);
    return 2;
  }
  // An empty stream (a `kubectl kustomize` that failed upstream of a pipe
  // without pipefail) must not pass as "no findings".
  if (report.objects === 0 && !report.walkedOnly && all.findings.length === 0) {
    io.err(`${paint(io, 31, "error")} no Kubernetes objects in ${printable(inputNames(report.files))}; nothing was checked\n`);
    return 2;
  }
  if (format === "text") io.out(formatText(report.findings, report.unrecognised, (code, text) => paint(io, code, text)));
  else if (format === "json") io.out(formatJson(report.findings, report.unrecognised));
  else if (format === "junit") io.out(formatJunit(report, failOn));
  else io.out(formatSarif(report, VERSION, category));
  notes(report, format, io);
  if (excluded.length > 0) {
    const errors = excluded.filter((f) => f.severity === "error").length;
    const ids = [...new Set(excluded.map((f) => f.ruleId))].join(", ");
    io.err(`excluded by rule selection: ${excluded.length} finding(s), ${errors} of them error(s) (${printable(ids)})\n`);
  }
  const fails = (f: CheckReport["findings"][number]) => f.severity === "error" || (failOn === "warning" && f.waived === undefined);
  return report.findings.some(fails) ? 1 : 0;
}

function inputNames(files: readonly string[]): string {
  const shown = files.slice(0, 3).join(", ");
  return files.length > 3 ? `${shown} and ${files.length - 3} more file(s)` : shown;
}

/** For people, on stderr: what was not judged, and the summary. */
function notes(report: CheckReport, format: Format, io: Io): void {
  if (report.stoppedThread) io.err(`note: ${printable(report.stoppedThread)}; the directory it held was checked on the main thread\n`);
  for (const s of report.skipped) io.err(`${paint(io, 33, "skipped")} ${s.ruleId} (${s.profiles.join(", ")}): not judged from manifests: ${s.reason}\n`);
  // Unrecognised workloads are entries of the report itself; the other objects no profile claims are noted here.
  for (const u of report.unrecognised.filter((u) => !u.workload && u.unchecked === undefined)) {
    io.err(
      `${paint(io, 33, "skipped")} ${printable(`${placeOf(u)} ${u.object}`)}: not recognised as any profile (no known app.kubernetes.io/name label or shape), skipped; --profile NAME checks it\n`,
    );
  }
  walkSummary(report, io);
  if (format !== "text") return;
  const errors = report.findings.filter((f) => f.severity === "error").length;
  const waived = report.findings.filter((f) => f.waived !== undefined).length;
  const warnings = report.findings.length - errors - waived;
  const profiles = report.profiles.length > 0 ? ` (${report.profiles.join(", ")})` : "";
  io.err(
    `${errors} error(s), ${warnings} warning(s)${waived > 0 ? `, ${waived} waived` : ""} in ${report.objects} object(s) of ${report.files.length} file(s)${profiles}\n`,
  );
  const note = designIdsNote(report.findings.map((f) => `${f.message}\n${f.fix}\n${f.because ?? ""}`).join("\n"));
  if (note) io.err(`${note}\n`);
}

/** What the walk of a repository left out, and why: nothing skipped silently. */
function walkSummary(report: CheckReport, io: Io): void {
  for (const f of report.skippedFiles) if (f.detail !== undefined) io.err(`${paint(io, 33, "skipped")} ${printable(f.detail)}\n`);
  const counts = new Map<SkipReason, number>();
  for (const f of report.skippedFiles) counts.set(f.reason, (counts.get(f.reason) ?? 0) + 1);
  const parts = (Object.keys(SKIP_REASONS) as SkipReason[]).filter((r) => counts.has(r)).map((r) => `${counts.get(r)} ${SKIP_REASONS[r]}`);
  if (report.excludedFiles > 0) parts.push(`${report.excludedFiles} left out by --exclude/--include`);
  if (parts.length > 0) io.err(`skipped ${report.skippedFiles.length + report.excludedFiles} file(s): ${parts.join(", ")}\n`);
  const count = report.skippedDirectoryCount;
  if (count > 0) {
    const shown = report.skippedDirectories.map((d) => printable(d)).join(", ");
    const more = count - report.skippedDirectories.length;
    io.err(`skipped ${count} director${count === 1 ? "y" : "ies"}: ${shown}${more > 0 ? ` and ${more} more` : ""}\n`);
  }
  if (report.objects === 0) io.err(`no Kubernetes objects found in ${printable(inputNames(report.files))}\n`);
}

/**
 * --passthrough: stdin's text on stdout when no error is found, so rigging can
 * stop a pipeline (Helm's post-renderer); the report goes to stderr.
 */
function passthrough(positionals: string[], options: CheckOptions, output: Output, io: Io, refusalOnStdout: boolean): number {
  if (positionals.length !== 1 || positionals[0] !== "-") throw new UsageError("--passthrough checks stdin only: rigging check - --passthrough");
  // Every byte passes through, a byte-order mark too; the check reads the text without it.
  const raw = readText("-", { keepBom: true });
  const stdin = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  const report = checkFiles(["-"], { ...options, stdin });
  const told: string[] = [];
  const err = tee(told, io);
  const code = respond(report, output, { ...io, out: err, err, color: io.color && !refusalOnStdout });
  if (code === 0) io.out(raw);
  else if (refusalOnStdout) return io.out(refusalDocument(told.join(""))), 0;
  return code;
}

/** Writes to stderr and keeps what was written. */
function tee(told: string[], io: Io): (text: string) => void {
  return (text) => {
    told.push(text);
    io.err(text);
  };
}

/**
 * The report as a YAML document holding one string: Helm 4 drops a plugin's
 * stderr but quotes a document it cannot read as an object in its error
 * (kyaml's "wrong node kind ... node contents"), and a string is never installed.
 */
function refusalDocument(report: string): string {
  const doc = new Document(new Scalar(`rigging check refused these manifests:\n${report}`));
  (doc.contents as Scalar).type = Scalar.BLOCK_LITERAL;
  // A document comment makes the emitter indent a top-level block scalar, which Go's YAML parsers need.
  doc.comment = " not manifests: the report of rigging check - --passthrough --refusal-on-stdout";
  return doc.toString({ lineWidth: 0 });
}
