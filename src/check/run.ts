// `check` without the command line: read the inputs, find the objects, give
// each its profile, run the rule catalog (the same `checkObjects` render's
// self-check runs) and turn every finding into a place in a file.
import { dirname } from "node:path";
import { formatPath } from "../core/diagnostic.ts";
import { internalErrorLine, UsageError } from "../core/errors.ts";
import { objectRef, type K8sObject } from "../core/objects.ts";
import { parseDocuments, readText } from "../core/source.ts";
import { defineJob, runOnThreads, threadsFor } from "../core/threads.ts";
import { CATALOG, checkObjects } from "../rules/catalog.ts";
import type { ProfileName, Rule } from "../rules/engine.ts";
import { VALUES_ONLY } from "../rules/values-only.ts";
import { classify } from "./classify.ts";
import { expandArguments } from "./inputs.ts";
import { loadObjects, type Origin } from "./load.ts";

export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
}

export interface CheckFinding {
  file: string;
  line: number;
  column: number;
  ruleId: string;
  severity: Rule["severity"];
  object: ObjectIdentity;
  /** Field path inside the object, as people write it: `spec.template.spec.hostUsers`. */
  path: string;
  message: string;
  fix: string;
}

/** A requirement of a checked profile that manifests cannot show. */
export interface Skipped {
  ruleId: string;
  profiles: ProfileName[];
  reason: string;
}

export interface Unrecognised {
  file: string;
  line: number;
  object: string;
}

export interface CheckReport {
  files: string[];
  objects: number;
  profiles: ProfileName[];
  findings: CheckFinding[];
  skipped: Skipped[];
  unrecognised: Unrecognised[];
  /** Unreadable input: files, YAML errors, documents that are not objects (exit 2). */
  problems: string[];
  /** Entries of the directories given that are not regular files, not read (FIFOs, sockets, devices). */
  skippedInputs: string[];
}

export interface CheckOptions {
  /** Check every object against this profile instead of recognising it. */
  profile?: ProfileName;
}

export const STDIN_NAME = "<stdin>";

export function checkFiles(args: readonly string[], options: CheckOptions = {}): CheckReport | Promise<CheckReport> {
  const { files, problems, skipped } = expandArguments(args);
  const names = [...new Set(files)].map((file) => (file === "-" ? STDIN_NAME : file));
  // One directory holds one installation (as `render -o` writes a fleet), so
  // directories are loaded, judged and let go one at a time: memory holds
  // one installation's documents however large the fleet is. A long fleet's
  // directories are judged on worker threads.
  const byDirectory = new Map<string, string[]>();
  for (const file of new Set(files)) {
    const group = byDirectory.get(dirname(file));
    if (group) group.push(file);
    else byDirectory.set(dirname(file), [file]);
  }
  const groups = [...byDirectory.values()];
  const threads = threadsFor(groups.length);
  if (threads <= 1) return assemble(names, problems, skipped, groups.map((group) => judgeDirectory(group, options)));
  return runOnThreads(checkJob, groups, options, threads).then(({ results, stopped }) =>
    assemble(
      names,
      problems,
      skipped,
      // A directory taken by a worker that died is reported, never passed over.
      results.map((judged, index) => judged ?? { ...NOTHING, problems: [`${dirname(groups[index][0])}: not checked: ${internalErrorLine(stopped ?? "a worker thread stopped")}`] }),
    ),
  );
}

/** What one directory (or stream) holds, judged. */
interface Judged {
  objects: number;
  profiles: ProfileName[];
  findings: CheckFinding[];
  unrecognised: Unrecognised[];
  problems: string[];
}

const NOTHING: Judged = { objects: 0, profiles: [], findings: [], unrecognised: [], problems: [] };

function judgeDirectory(files: readonly string[], options: CheckOptions): Judged {
  const objects: K8sObject[] = [];
  const origins = new Map<K8sObject, Origin>();
  const problems: string[] = [];
  for (const file of files) {
    try {
      const loaded = loadObjects(parseDocuments(readText(file), file === "-" ? STDIN_NAME : file));
      objects.push(...loaded.objects);
      for (const [object, origin] of loaded.origins) origins.set(object, origin);
      problems.push(...loaded.problems);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(error.message);
    }
  }
  return { objects: objects.length, ...checkLoaded(objects, origins, options, problems), problems };
}

/** One directory on whichever thread takes it. */
const checkJob = defineJob("check", judgeDirectory);

function assemble(names: string[], problems: string[], skippedInputs: string[], judged: readonly Judged[]): CheckReport {
  const report: CheckReport = { files: names, objects: 0, profiles: [], findings: [], skipped: [], unrecognised: [], problems, skippedInputs };
  const profiles = new Set<ProfileName>();
  for (const one of judged) {
    report.objects += one.objects;
    one.profiles.forEach((p) => profiles.add(p));
    report.findings.push(...one.findings);
    report.unrecognised.push(...one.unrecognised);
    problems.push(...one.problems);
  }
  const fileOrder = new Map(names.map((file, index) => [file, index]));
  report.findings.sort(
    (a, b) =>
      fileOrder.get(a.file)! - fileOrder.get(b.file)! ||
      a.line - b.line ||
      a.column - b.column ||
      compare(a.ruleId, b.ruleId) ||
      compare(a.message, b.message),
  );
  report.profiles = [...profiles].sort();
  report.skipped = skippedFor(report.profiles);
  return report;
}

function checkLoaded(objects: K8sObject[], origins: Map<K8sObject, Origin>, options: CheckOptions, problems: string[]): Pick<CheckReport, "profiles" | "findings" | "unrecognised"> {
  const { profileOf, unrecognised } = classify(objects, options.profile);
  const findings = checkObjects(objects, (o) => profileOf.get(o), {
    onError: (rule, set, error) => problems.push(`${rule.id} could not read the ${set.profile} objects (a field of the wrong type?): ${(error as Error)?.message ?? String(error)}`),
  });
  const located = findings.map((finding): CheckFinding => {
    const origin = origins.get(finding.object)!;
    const at = origin.document.locate([...origin.prefix, ...finding.path]);
    return {
      file: origin.file,
      line: at.line ?? 1,
      column: at.column ?? 1,
      ruleId: finding.id,
      severity: finding.severity,
      object: identity(finding.object),
      path: formatPath(finding.path),
      message: finding.message,
      fix: finding.fix,
    };
  });
  return {
    profiles: [...new Set(profileOf.values())],
    findings: located,
    unrecognised: unrecognised.map((object) => {
      const origin = origins.get(object)!;
      return { file: origin.file, line: origin.document.locate(origin.prefix).line ?? 1, object: objectRef(object) };
    }),
  };
}

/** Rules with `judgedFrom`, and values-only requirements with a note, of the checked profiles. */
export function skippedFor(profiles: readonly ProfileName[]): Skipped[] {
  const entries = [
    ...CATALOG.filter((rule) => rule.judgedFrom).map((rule) => ({ id: rule.id, profiles: rule.profiles, reason: rule.judgedFrom! })),
    ...VALUES_ONLY.filter((entry) => entry.checkNote).map((entry) => ({ id: entry.id, profiles: entry.profiles, reason: entry.checkNote! })),
  ];
  return entries.flatMap((entry) => {
    const concerned = entry.profiles.filter((p) => profiles.includes(p));
    return concerned.length === 0 ? [] : [{ ruleId: entry.id, profiles: [...concerned], reason: entry.reason }];
  });
}

function identity(object: K8sObject): ObjectIdentity {
  const { namespace, name } = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...(typeof namespace === "string" ? { namespace } : {}),
    ...(typeof name === "string" ? { name } : {}),
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
