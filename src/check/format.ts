// The three forms of a check report: text lines for people, a JSON array
// for scripts, and SARIF 2.1.0 for code-scanning tools.
import { isAbsolute, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { printable } from "../core/printable.ts";
import { CATALOG } from "../rules/catalog.ts";
import type { CheckFinding, CheckReport } from "./run.ts";

export const FORMATS = ["text", "json", "sarif"] as const;
export type Format = (typeof FORMATS)[number];

export function refOf(object: CheckFinding["object"]): string {
  return [object.kind, object.namespace, object.name ?? "<unnamed>"].filter(Boolean).join("/");
}

/** `FILE:LINE  RULE-ID  Kind/namespace/name  field.path  message  (fix)`, one line each, safe to print. */
export function formatText(findings: readonly CheckFinding[]): string {
  return findings.map((f) => printable(`${f.file}:${f.line}  ${f.ruleId}  ${refOf(f.object)}  ${f.path || "-"}  ${f.message}  (${f.fix})`) + "\n").join("");
}

export function formatJson(findings: readonly CheckFinding[]): string {
  const ordered = findings.map((f) => ({
    file: f.file,
    line: f.line,
    column: f.column,
    ruleId: f.ruleId,
    severity: f.severity,
    object: f.object,
    path: f.path,
    message: f.message,
    fix: f.fix,
  }));
  return JSON.stringify(ordered, null, 2) + "\n";
}

/** The published schema of the format, named in every log. */
export const SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

export function formatSarif(report: CheckReport, version: string): string {
  const rules = CATALOG.map((rule) => ({
    id: rule.id,
    name: rule.id,
    shortDescription: { text: rule.summary },
    fullDescription: { text: rule.why ?? rule.summary },
    help: { text: `Fix: ${rule.fix}${rule.why ? `\nWhy: ${rule.why}` : ""}`, markdown: `**Fix:** ${rule.fix}${rule.why ? `\n\n**Why:** ${rule.why}` : ""}` },
    defaultConfiguration: { level: rule.severity },
    properties: { profiles: [...rule.profiles], ...(rule.judgedFrom ? { judgedFrom: rule.judgedFrom } : {}) },
  }));
  const index = new Map(CATALOG.map((rule, i) => [rule.id, i]));
  const results = report.findings.map((f) => ({
    ruleId: f.ruleId,
    ...(index.has(f.ruleId) ? { ruleIndex: index.get(f.ruleId)! } : {}),
    level: f.severity,
    message: { text: `${refOf(f.object)} ${f.path || "-"}: ${f.message} (fix: ${f.fix})` },
    locations: [
      {
        physicalLocation: { artifactLocation: { uri: uriOf(f.file) }, region: { startLine: f.line, startColumn: f.column } },
        logicalLocations: [{ fullyQualifiedName: f.path ? `${refOf(f.object)}:${f.path}` : refOf(f.object), kind: "object" }],
      },
    ],
  }));
  const notifications = [
    ...report.skipped.map((s) => ({
      level: "note",
      message: { text: `${s.ruleId} not judged from manifests (${s.profiles.join(", ")}): ${s.reason}` },
      descriptor: { id: s.ruleId },
    })),
    ...report.unrecognised.map((u) => ({
      level: "note",
      message: { text: `${u.object} not recognised as any profile, skipped` },
      locations: [{ physicalLocation: { artifactLocation: { uri: uriOf(u.file) }, region: { startLine: u.line } } }],
    })),
  ];
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "rigging", version, semanticVersion: version, rules } },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}

/** A file path as a URI reference: relative paths stay relative (code scanning resolves them against the repository). */
export function uriOf(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(sep).join("/").split("/").map(encodeURIComponent).join("/");
}
