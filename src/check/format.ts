// The forms of a check report: text lines for people, a JSON array for
// scripts, SARIF 2.1.0 for code scanning and JUnit XML for CI test reports.
import { isAbsolute, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { bounded } from "../core/diagnostic.ts";
import { printable } from "../core/printable.ts";
import { designIdsNote } from "../rules/design-ids.ts";
import type { Rule } from "../rules/engine.ts";
import { PSEUDO_RULES, SCHEMA_RULE, UNRECOGNISED_RULE } from "./pseudo-rules.ts";
import type { CheckFinding, CheckReport, Unrecognised } from "./run.ts";
import { SKIP_REASONS } from "./walked.ts";
import { WAIVER_RULE } from "./waivers.ts";
import { catalog } from "../systems/registry.ts";

export const FORMATS = ["text", "json", "sarif", "junit"] as const;
export type Format = (typeof FORMATS)[number];

export function refOf(object: CheckFinding["object"]): string {
  if (object.kind === "") return "-"; // a file's problem, before any object
  return [object.kind, object.namespace, object.name ?? "<unnamed>"].filter(Boolean).join("/");
}

/** `FILE:LINE` (or `FILE` when only the file is known). */
export function placeOf(f: { file: string; line?: number }): string {
  return f.line === undefined ? f.file : `${f.file}:${f.line}`;
}

/** Colours a severity word (ANSI code, text); the identity when colours are off. */
export type Paint = (code: number, text: string) => string;

const SEVERITY_COLOUR: Record<string, number> = { error: 31, warning: 33, skipped: 36 };

/** One line per finding, grouped per rule and place where there is no field; each rule's fix (and a warning's why) printed once after the findings. */
export function formatText(findings: readonly CheckFinding[], unrecognised: readonly Unrecognised[] = [], paint: Paint = (_, t) => t): string {
  const severity = (word: string) => paint(SEVERITY_COLOUR[word] ?? 0, word) + " ".repeat(Math.max(0, 7 - word.length));
  const lines: string[] = [];
  const groups = new Map<string, CheckFinding[]>();
  const keyOf = (f: CheckFinding) => (f.path === "" ? `${f.severity}\0${placeOf(f)}\0${f.ruleId}\0${refOf(f.object)}` : undefined);
  for (const f of findings) {
    const key = keyOf(f);
    if (key !== undefined) groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const shown = new Set<string>();
  for (const f of findings) {
    const key = keyOf(f);
    const group = key === undefined ? undefined : groups.get(key)!;
    if (group && group.length > 1) {
      if (shown.has(key!)) continue;
      shown.add(key!);
      lines.push(`${severity(f.severity)}  ${printable(bounded(`${placeOf(f)}  ${f.ruleId}  ${refOf(f.object)}  the set (${group.length} findings):`))}`);
      for (const g of group) lines.push(`         - ${printable(bounded(`${g.message}${notes(g)}`))}`);
      continue;
    }
    lines.push(`${severity(f.severity)}  ${printable(bounded(`${placeOf(f)}  ${f.ruleId}  ${refOf(f.object)}  ${f.path || "-"}  ${f.message}${notes(f)}`))}`);
  }
  for (const u of unrecognised) {
    const entry = entryOf(u);
    if (entry) lines.push(`${severity("skipped")}  ${printable(`${placeOf(u)}  ${entry.ruleId}  ${u.object}  -  ${entry.text}`)}`);
  }
  // One line per rule and fix: a rule whose findings need different fixes (a refused kustomization) lists each.
  const fixes = new Map<string, { id: string; fix: string; because: Set<string> }>();
  for (const f of findings) {
    const key = `${f.ruleId}\n${f.fix}`;
    const entry = fixes.get(key) ?? { id: f.ruleId, fix: f.fix, because: new Set<string>() };
    if (f.severity === "warning" && f.because) entry.because.add(f.because);
    fixes.set(key, entry);
  }
  const ids = new Set([...fixes.values()].map((e) => e.id));
  for (const entry of unrecognised.map(entryOf))
    if (entry && !ids.has(entry.ruleId)) {
      ids.add(entry.ruleId);
      fixes.set(`${entry.ruleId}\n${entry.fix}`, { id: entry.ruleId, fix: entry.fix, because: new Set() });
    }
  if (fixes.size > 0) {
    lines.push("", "fix:");
    const width = Math.max(...[...ids].map((id) => id.length));
    for (const { id, fix, because } of fixes.values()) {
      lines.push(`  ${printable(id.padEnd(width))}  ${printable(bounded(fix))}`);
      for (const why of because) lines.push(`  ${" ".repeat(width)}  ${printable(`(a warning: ${why})`)}`);
    }
  }
  return lines.map((line) => `${line}\n`).join("");
}

function notes(f: CheckFinding): string {
  return [...(f.waived !== undefined ? [`[waived: ${f.waived}]`] : []), ...(f.input ? [`[read at ${placeOf(f.input)}]`] : [])].map((n) => `  ${n}`).join("");
}

/** What to do about a custom resource the Kubernetes schema does not cover. */
export const UNCHECKED_FIX = "validate it against its CustomResourceDefinition (kubectl apply --dry-run=server on a cluster that has the CRD)";

/** The `skipped` entry for an unrecognised workload or an unschematised custom resource. */
export function entryOf(u: Unrecognised): { ruleId: string; text: string; fix: string } | undefined {
  if (u.unchecked !== undefined) return { ruleId: SCHEMA_RULE.id, text: u.unchecked, fix: UNCHECKED_FIX };
  return u.workload ? { ruleId: UNRECOGNISED_RULE.id, text: "not recognised as any profile, not checked", fix: UNRECOGNISED_RULE.fix } : undefined;
}

/** Unrecognised workloads and unchecked custom resources as entries of severity `skipped`, after the findings: no dashboard shows green over them. */
function skippedEntries(unrecognised: readonly Unrecognised[]) {
  return unrecognised.flatMap((u) => {
    const entry = entryOf(u);
    if (!entry) return [];
    return [
      {
        file: u.file,
        ...(u.line !== undefined ? { line: u.line, column: 1 } : {}),
        ruleId: entry.ruleId,
        severity: "skipped",
        object: u.identity,
        path: "",
        message: `${u.object} ${entry.text.replace(/^not/, "is not")}`,
        fix: entry.fix,
      },
    ];
  });
}

export function formatJson(findings: readonly CheckFinding[], unrecognised: readonly Unrecognised[] = []): string {
  const ordered = findings.map((f) => ({
    file: f.file,
    ...(f.line !== undefined ? { line: f.line, column: f.column } : {}),
    ruleId: f.ruleId,
    severity: f.severity,
    ...(f.profile ? { profile: f.profile } : {}),
    object: f.object,
    path: f.path,
    message: f.message,
    fix: f.fix,
    ...(f.because !== undefined ? { because: f.because } : {}),
    ...(f.waived !== undefined ? { waived: f.waived } : {}),
    ...(f.input ? { input: f.input } : {}),
  }));
  return `${JSON.stringify([...ordered, ...skippedEntries(unrecognised)], null, 2)}\n`;
}

/** The published schema of the format, named in every log. */
export const SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/** The default run category (`runAutomationDetails.id` is `<category>/`): one per kind of analysis. */
export const SARIF_CATEGORY = "rigging-check";

/** GitHub's security-severity: errors are what the source documents state, warnings our hardening. */
function securitySeverity(rule: Pick<Rule, "severity">): string {
  return rule.severity === "error" ? "7.5" : "4.0";
}

interface RuleDescriptorSource {
  id: string;
  summary: string;
  fix: string;
  why?: string;
  severity: Rule["severity"];
  profiles: readonly string[];
  judged?: Rule["judged"];
  concern?: Rule["concern"];
  source?: Rule["source"];
}

function descriptor(rule: RuleDescriptorSource) {
  const security = (rule.concern ?? "security") === "security";
  const tags = ["kubernetes", ...(security ? ["security"] : ["reliability"]), ...rule.profiles];
  const source = rule.source ? `\nSource (${rule.source.from}): ${rule.source.says}` : "";
  const note = designIdsNote([rule.summary, rule.fix, rule.why, rule.source?.says].join("\n"));
  return {
    id: rule.id,
    name: rule.id,
    shortDescription: { text: rule.summary },
    fullDescription: { text: rule.why ?? rule.summary },
    help: {
      text: `Fix: ${rule.fix}${rule.why ? `\nWhy: ${rule.why}` : ""}${source}${note ? `\n${note}` : ""}`,
      markdown: `**Fix:** ${rule.fix}${rule.why ? `\n\n**Why:** ${rule.why}` : ""}${rule.source ? `\n\n**Source (${rule.source.from}):** ${rule.source.says}` : ""}${note ? `\n\n${note}` : ""}`,
    },
    defaultConfiguration: { level: rule.severity },
    properties: {
      tags,
      precision: "high",
      ...(security ? { "security-severity": securitySeverity(rule) } : {}),
      profiles: [...rule.profiles],
      ...(rule.judged?.by === "not-manifests" ? { judgedFrom: rule.judged.from } : {}),
    },
  };
}

export function formatSarif(report: CheckReport, version: string, category: string = SARIF_CATEGORY): string {
  const descriptors: RuleDescriptorSource[] = [
    ...catalog.allRules(),
    ...[WAIVER_RULE, ...PSEUDO_RULES].map((rule): RuleDescriptorSource => ({ ...rule, severity: "error", profiles: [], concern: "reliability" })),
  ];
  const rules = descriptors.map(descriptor);
  const index = new Map(descriptors.map((rule, i) => [rule.id, i]));
  const results = report.findings.map((f) => ({
    ruleId: f.ruleId,
    ...(index.has(f.ruleId) ? { ruleIndex: index.get(f.ruleId)! } : {}),
    level: f.severity,
    message: {
      text: `${refOf(f.object)}${f.path ? ` ${f.path}` : ""}: ${f.message} (fix: ${f.fix})${f.because ? ` [rigging's choice: ${f.because}]` : ""}${f.line === undefined ? " [the line is not known: the file holds a template]" : ""}`,
    },
    locations: [
      {
        // Code scanning needs a line: a file known without its line is placed at its first.
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.file) },
          region: f.line === undefined ? { startLine: 1 } : { startLine: f.line, startColumn: f.column ?? 1 },
        },
        logicalLocations: [{ fullyQualifiedName: f.path ? `${refOf(f.object)}:${f.path}` : refOf(f.object), kind: "object" }],
      },
    ],
    ...(f.waived !== undefined ? { suppressions: [{ kind: "inSource", status: "accepted", justification: f.waived }] } : {}),
  }));
  const notifications = [
    ...report.skipped.map((s) => ({
      level: "note",
      message: { text: `${s.ruleId} not judged from manifests (${s.profiles.join(", ")}): ${s.reason}` },
      descriptor: { id: s.ruleId },
    })),
    ...report.unrecognised.map((u) => ({
      level: "note",
      message: {
        text:
          u.unchecked !== undefined
            ? `${u.object}: ${u.unchecked} (${UNCHECKED_FIX})`
            : `${u.object} not recognised as any profile, skipped${u.workload ? ` (a workload; ${UNRECOGNISED_RULE.fix})` : ""}`,
      },
      descriptor: { id: entryOf(u)?.ruleId ?? UNRECOGNISED_RULE.id },
      locations: [{ physicalLocation: { artifactLocation: { uri: uriOf(u.file) }, region: { startLine: u.line ?? 1 } } }],
    })),
    ...skippedFileCounts(report).map(([reason, count]) => ({
      level: "note",
      message: { text: `${count} walked file(s) skipped: ${reason}` },
    })),
  ];
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "rigging", version, semanticVersion: version, rules } },
        automationDetails: { id: `${category}/` },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** The walk's skipped files, counted by reason. */
function skippedFileCounts(report: CheckReport): [string, number][] {
  const counts = new Map<string, number>();
  for (const f of report.skippedFiles ?? []) counts.set(SKIP_REASONS[f.reason], (counts.get(SKIP_REASONS[f.reason]) ?? 0) + 1);
  return [...counts];
}

/** A file path as a URI reference: relative paths stay relative (code scanning resolves them against the repository). */
export function uriOf(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(sep).join("/").split("/").map(encodeURIComponent).join("/");
}

// ------------------------------------------------------------------- JUnit

/**
 * JUnit XML as GitLab reads it: a suite per profile, a case per rule that ran and a case per finding,
 * which fails as the exit code does (`failOn`): an error always, a warning with --fail-on warning.
 */
export function formatJunit(report: CheckReport, failOn: FailOn = "error"): string {
  const suites: string[] = [];
  let total = 0;
  let failed = 0;
  let skippedCount = 0;
  // With --schema-only no profile's rule ran: one suite holds rule schema's case and every finding.
  for (const profile of report.rulesRan ? report.profiles : []) {
    const cases: string[] = [];
    let failures = 0;
    let skips = 0;
    const rules = [
      ...new Map(
        catalog
          .allRules()
          .filter((r) => r.profiles.includes(profile))
          .map((r) => [r.id, r]),
      ).values(),
    ];
    const findings = report.findings.filter((f) => f.profile === profile);
    for (const rule of rules) {
      const skipped = report.skipped.find((s) => s.ruleId === rule.id && s.profiles.includes(profile));
      const own = findings.filter((f) => f.ruleId === rule.id);
      if (skipped && (rule.judged?.by === "not-manifests" || skipped.whole)) {
        cases.push(testCase(profile, `${rule.id}: ${rule.summary}`, undefined, `<skipped message="${xml(`not judged from manifests: ${skipped.reason}`)}"/>`));
        skips++;
      } else if (own.length === 0) cases.push(testCase(profile, `${rule.id}: ${rule.summary}`, undefined, ""));
    }
    for (const f of findings) {
      const name = `${f.ruleId} ${refOf(f.object)} ${f.path || "-"}`;
      const text = `${placeOf(f)}: ${f.message}\nFix: ${f.fix}${f.because ? `\nWhy a warning: ${f.because}` : ""}${f.input ? `\nRead at ${placeOf(f.input)}` : ""}`;
      const outcome = findingCase(f, text, failOn);
      cases.push(testCase(profile, name, f.file, outcome.body));
      if (outcome.failed) failures++;
      if (outcome.skipped) skips++;
    }
    total += cases.length;
    failed += failures;
    skippedCount += skips;
    suites.push(
      `  <testsuite name="${xml(`rigging check: ${profile}`)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skips}">\n${cases.join("")}  </testsuite>\n`,
    );
  }
  const outside = outsideProfiles(report, failOn);
  if (outside.cases.length > 0) {
    total += outside.cases.length;
    failed += outside.failures;
    skippedCount += outside.skips;
    const name = report.rulesRan ? "inputs" : "schema";
    suites.push(
      `  <testsuite name="rigging check: ${name}" tests="${outside.cases.length}" failures="${outside.failures}" errors="0" skipped="${outside.skips}">\n${outside.cases.join("")}  </testsuite>\n`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rigging check" tests="${total}" failures="${failed}" errors="0" skipped="${skippedCount}">\n${suites.join("")}</testsuites>\n`;
}

/** Findings of no profile (input, unrecognised with --strict; every finding with --schema-only) as cases, unrecognised workloads as skipped ones. */
function outsideProfiles(report: CheckReport, failOn: FailOn): { cases: string[]; failures: number; skips: number } {
  const cases: string[] = [];
  const own = report.rulesRan ? report.findings.filter((f) => f.profile === undefined) : report.findings;
  if (!report.rulesRan && !own.some((f) => f.ruleId === SCHEMA_RULE.id))
    cases.push(testCase("schema", `${SCHEMA_RULE.id}: ${SCHEMA_RULE.summary}`, undefined, ""));
  let failures = 0;
  let skips = 0;
  for (const f of own) {
    const outcome = findingCase(f, `${placeOf(f)}: ${f.message}\nFix: ${f.fix}`, failOn);
    cases.push(testCase("inputs", `${f.ruleId} ${refOf(f.object)}`, f.file, outcome.body));
    if (outcome.failed) failures++;
    if (outcome.skipped) skips++;
  }
  const skipped = report.unrecognised.flatMap((u) => {
    const entry = entryOf(u);
    return entry ? [{ u, entry }] : [];
  });
  for (const { u, entry } of skipped)
    cases.push(testCase("inputs", `${entry.ruleId} ${u.object}`, u.file, `<skipped message="${xml(`${placeOf(u)}: ${entry.text}`)}"/>`));
  return { cases, failures, skips: skips + skipped.length };
}

/** When `check` exits 1 for a finding: an error, and with --fail-on warning an unwaived warning too. */
export type FailOn = "error" | "warning";

/**
 * A finding's test case: a failure when it fails the run, skipped when waived, and otherwise a passing
 * case that says the warning in <system-out> (GitLab shows it as the case's output, test reporters as its log).
 */
function findingCase(f: CheckFinding, text: string, failOn: FailOn): { body: string; failed: boolean; skipped: boolean } {
  if (f.waived !== undefined) return { body: `<skipped message="${xml(`waived: ${f.waived}`)}"/>`, failed: false, skipped: true };
  if (f.severity === "error" || failOn === "warning")
    return { body: `<failure type="${f.severity}" message="${xml(f.message)}">${xml(text)}</failure>`, failed: true, skipped: false };
  return { body: `<system-out>${xml(`${f.severity}: ${text}`)}</system-out>`, failed: false, skipped: false };
}

function testCase(profile: string, name: string, file: string | undefined, body: string): string {
  const attributes = `classname="${xml(`rigging.${profile}`)}" name="${xml(name)}"${file ? ` file="${xml(file)}"` : ""}`;
  return body === "" ? `    <testcase ${attributes}/>\n` : `    <testcase ${attributes}>${body}</testcase>\n`;
}

/** Text as XML 1.0 data or attribute: specials escaped, breaks kept as references, characters XML cannot hold replaced by U+FFFD. */
export function xml(text: string): string {
  return text
    .replace(/[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replace(/[&<>"'\t\n\r]/g, (c) => XML_ESCAPES[c]);
}

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};
