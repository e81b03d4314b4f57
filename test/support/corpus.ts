// The manifest corpus under test/fixtures/check/<system>/, read by the
// systems of the registry: its hand-written files and the G- cases generated
// from each valid.yaml (general-breakages.ts), the rule a fixture's name
// expects, what its leading comments declare, and `check` run over it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { SYSTEMS } from "../../src/systems/registry.ts";
import { ROOT, runInProcess } from "./cli.ts";
import { type GeneratedCase, generateCases } from "./general-breakages.ts";

export const CORPUS = join(ROOT, "test", "fixtures", "check");

/** A system's corpus: test/fixtures/check/<name>, or for a system kept outside src/ (the Lantern), its fixture folder's check/. */
export function corpusDir(system: string): string {
  const own = join(ROOT, "test", "fixtures", "systems", system, "check");
  return existsSync(own) ? own : join(CORPUS, system);
}

/** The registry's systems, each with its corpus folder. */
export const CORPUS_SYSTEMS: readonly string[] = SYSTEMS.map((s) => s.name);

export function yamlFiles(dir: string, name: RegExp = /\.ya?ml$/): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => name.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

/** Where this process writes the generated cases, once: <dir>/<system>/{broken,warn,clean}/<name>.yaml. */
let generatedRoot: string | undefined;
const generated = new Map<string, (GeneratedCase & { file: string })[]>();
const FOLDER = { error: "broken", warning: "warn", none: "clean" } as const;

/**
 * The G- breakages of general-breakages.ts applied to a system's valid.yaml, each written to a file:
 * errors under broken/, warnings under warn/, cases that must raise nothing under clean/.
 * The system is looked up in the registry at the call, so a system registered later has its cases too.
 */
export function generatedCases(system: string): (GeneratedCase & { file: string })[] {
  const known = generated.get(system);
  if (known) return known;
  const record = SYSTEMS.find((s) => s.name === system);
  const valid = join(corpusDir(system), "valid.yaml");
  // Without a record or a valid.yaml there is nothing to break; corpus-layout.test.ts fails on the missing valid.yaml.
  const cases = record && existsSync(valid) ? generateCases(record, readFileSync(valid, "utf8")) : [];
  generatedRoot ??= mkdtempSync(join(tmpdir(), "rigging-corpus-"));
  const files = cases.map((c) => {
    const dir = join(generatedRoot!, system, FOLDER[c.severity]);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, c.name), c.text);
    return { ...c, file: join(dir, c.name) };
  });
  generated.set(system, files);
  return files;
}

/** The file of one generated case: `generatedFile("rootpilot-runner", "G-07.yaml")`. */
export function generatedFile(system: string, name: string): string {
  const found = generatedCases(system).find((c) => c.name === name);
  if (!found) throw new Error(`no generated case ${name} for ${system}`);
  return found.file;
}

const generatedOf = (system: string, severity: GeneratedCase["severity"]) => generatedCases(system).flatMap((c) => (c.severity === severity ? [c.file] : []));

/** A corpus file as tests name it: `rootpilot-runner/warn/RP-08-no-policy.yaml`, `generated/compass-runner/broken/G-05.yaml`. */
export function corpusName(file: string): string {
  return generatedRoot && file.startsWith(generatedRoot) ? join("generated", relative(generatedRoot, file)) : relative(CORPUS, file);
}

/** valid.yaml and its variants valid-<what>.yaml: no finding at all. */
export const validFiles = (system: string) => yamlFiles(corpusDir(system), /^valid.*\.ya?ml$/);
/** broken/<ID>[-suffix].yaml, and the generated G- cases that are errors in this system: errors of exactly that rule. */
export const brokenFiles = (system: string) => [...yamlFiles(join(corpusDir(system), "broken")), ...generatedOf(system, "error")];
/** warn/<ID>[-suffix].yaml, and the generated G- cases that are warnings in this system: warnings of exactly that rule. */
export const warnFiles = (system: string) => [...yamlFiles(join(corpusDir(system), "warn")), ...generatedOf(system, "warning")];
/** Generated G- cases that must raise nothing in this system (audit and warn labels where the level is privileged). */
export const cleanFiles = (system: string) => generatedOf(system, "none");

/** `CR-09.yaml` and `CR-09-tag.yaml` both expect CR-09. */
export function expectedId(file: string): string {
  const match = /^([A-Z]+-\d+)/.exec(basename(file));
  if (!match) throw new Error(`${file}: a broken or warn fixture is named <RULE-ID>[-suffix].yaml`);
  return match[1];
}

/** The leading comment lines of a fixture. */
export function header(file: string): string[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const end = lines.findIndex((line) => !line.startsWith("#"));
  return lines.slice(0, end < 0 ? lines.length : end);
}

/** Rules a fixture declares in a leading comment such as `# also warns: CR-20 (why)`. */
function declared(file: string, what: string): string[] {
  const line = header(file).find((l) => l.startsWith(`# also ${what}: `));
  // The rules come before the reason in parentheses: `CR-20, schema (why)`.
  return line
    ? line
        .slice(`# also ${what}: `.length)
        .split("(")[0]
        .split(/[\s,]+/)
        .filter(Boolean)
    : [];
}

/** Rules a broken fixture says it also warns about: `# also warns: CR-20 (why)`. */
export const declaredWarnings = (file: string) => declared(file, "warns");
/** Rules besides its own that a broken fixture says also refuse it: `# also errs: schema (why)`. */
export const declaredErrors = (file: string) => declared(file, "errs");

export function checkJson(file: string, ...options: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const result = runInProcess(["check", "--format", "json", ...options, file]);
  return { code: result.code, findings: result.code === 2 ? [] : JSON.parse(result.out), err: result.err };
}

/** The rule IDs of the unwaived findings of one severity (waived ones count toward nothing). */
export const ids = (findings: CheckFinding[], severity: string) =>
  [...new Set(findings.filter((f) => f.severity === severity && f.waived === undefined).map((f) => f.ruleId))].sort();

export const objectsOf = (file: string): K8sObject[] =>
  parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
