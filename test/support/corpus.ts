// The hand-written manifest corpus under test/fixtures/check/<system>/, read
// by the systems of the registry: its files, the rule a fixture's name
// expects, what its leading comments declare, and `check` run over it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { SYSTEMS } from "../../src/systems/registry.ts";
import { ROOT, runInProcess } from "./cli.ts";

export const CORPUS = join(ROOT, "test", "fixtures", "check");

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

/** valid.yaml and its variants valid-<what>.yaml: no finding at all. */
export const validFiles = (system: string) => yamlFiles(join(CORPUS, system), /^valid.*\.ya?ml$/);
/** broken/<ID>[-suffix].yaml: errors of exactly that rule. */
export const brokenFiles = (system: string) => yamlFiles(join(CORPUS, system, "broken"));
/** warn/ (rigging's opinions in the Compass corpora) and opinion/ (Rootpilot's): warnings only. */
export const warnFiles = (system: string) => [...yamlFiles(join(CORPUS, system, "warn")), ...yamlFiles(join(CORPUS, system, "opinion"))];

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
