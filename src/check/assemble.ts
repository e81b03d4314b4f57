// A check's report, folded directory by directory as each is judged, so no
// directory's result is kept past its turn.
import type { SystemName } from "../rules/engine.ts";
import type { InputGroups } from "./groups.ts";
import type { CheckFinding, CheckReport, Unrecognised } from "./run.ts";
import { type Skipped, skippedFor } from "./skipped.ts";
import { SKIP_REASONS, type SkipReason } from "./walked.ts";

/** A file not judged, by its place among the run's files (`InputGroups.files`). */
export interface SkippedAt {
  order: number;
  reason: SkipReason;
  detail?: string;
}

/** What one directory (or stream) holds, judged. */
export interface Judged {
  objects: number;
  profiles: SystemName[];
  findings: CheckFinding[];
  unrecognised: Unrecognised[];
  problems: string[];
  skipped: SkippedAt[];
  /** Rules that could not read objects the Kubernetes schema refuses: not judged, the schema's errors say why. */
  notJudged?: Skipped[];
}

const REASONS = Object.keys(SKIP_REASONS) as SkipReason[];

/** The report of a run, directories added in input order. */
export class Assembly {
  readonly #report: CheckReport;
  readonly #profiles = new Set<SystemName>();
  readonly #files: string[];
  // Each skipped file as its place and reason, packed: an entry kept per directory would be an object per directory.
  #skipped = new Int32Array(64);
  #skippedCount = 0;
  readonly #details = new Map<number, string>();
  readonly #notJudged = new Map<string, Skipped>();
  readonly #placed = new Set<string>();

  constructor(input: InputGroups) {
    const { files, names, problems, skipped, skippedDirectories, skippedDirectoryCount, excludedFiles, walkedOnly } = input;
    this.#files = files;
    this.#report = {
      files: names,
      objects: 0,
      profiles: [],
      findings: [],
      skipped: [],
      unrecognised: [],
      problems,
      skippedInputs: skipped,
      skippedFiles: [],
      skippedDirectories,
      skippedDirectoryCount,
      excludedFiles,
      walkedOnly,
      rulesRan: true,
    };
  }

  add(one: Judged): void {
    const report = this.#report;
    report.objects += one.objects;
    for (const profile of one.profiles) this.#profiles.add(profile);
    // Item by item: a spread of a hundred thousand arguments exceeds the stack.
    for (const finding of one.findings) if (!this.#again(finding)) report.findings.push(finding);
    for (const object of one.unrecognised) report.unrecognised.push(object);
    for (const { order, reason, detail } of one.skipped) {
      if (this.#skippedCount === this.#skipped.length) {
        const grown = new Int32Array(this.#skipped.length * 2);
        grown.set(this.#skipped);
        this.#skipped = grown;
      }
      if (detail !== undefined) this.#details.set(this.#skippedCount, detail);
      this.#skipped[this.#skippedCount++] = order * REASONS.length + REASONS.indexOf(reason);
    }
    for (const problem of one.problems) report.problems.push(problem);
    for (const s of one.notJudged ?? []) this.#notJudged.set(`${s.ruleId}\0${s.profiles.join()}\0${s.reason}`, s);
  }

  /** Whether a finding placed through a build was reported already: a base's line is reported once, whatever overlays reach it. */
  #again(finding: CheckFinding): boolean {
    if (finding.input === undefined) return false;
    const key = [finding.file, finding.line, finding.column, finding.ruleId, finding.path, finding.message].join("\0");
    if (this.#placed.has(key)) return true;
    this.#placed.add(key);
    return false;
  }

  /** The skipped files as the report lists them, in the order they were judged. */
  #skippedFiles(): CheckReport["skippedFiles"] {
    return Array.from(this.#skipped.subarray(0, this.#skippedCount), (packed, i) => {
      const detail = this.#details.get(i);
      const file = this.#files[Math.floor(packed / REASONS.length)];
      return { file, reason: REASONS[packed % REASONS.length], ...(detail !== undefined ? { detail } : {}) };
    });
  }

  /** The report, findings sorted by file and place; `rulesRan`: the profiles' rules were judged (not --schema-only). */
  finished(rulesRan: boolean): CheckReport {
    const report = this.#report;
    const names = report.files;
    const fileOrder = new Map(names.map((file, index) => [file, index]));
    const read = (f: CheckFinding) => f.input ?? { file: f.file, line: f.line ?? 0, column: f.column ?? 0 };
    report.findings.sort(
      (a, b) =>
        // A refused kustomization's findings name files not among the inputs: they sort after them.
        (fileOrder.get(read(a).file) ?? names.length) - (fileOrder.get(read(b).file) ?? names.length) ||
        compare(read(a).file, read(b).file) ||
        read(a).line - read(b).line ||
        read(a).column - read(b).column ||
        compare(a.ruleId, b.ruleId) ||
        compare(a.message, b.message),
    );
    report.rulesRan = rulesRan;
    report.skippedFiles = this.#skippedFiles();
    report.profiles = [...this.#profiles].sort();
    report.skipped = [...(rulesRan ? skippedFor(report.profiles) : []), ...this.#notJudged.values()];
    if (report.objects === 0 && report.problems.length === 0 && report.findings.length === 0 && !report.walkedOnly)
      report.problems.push(`no Kubernetes objects in ${names.join(", ")}`);
    return report;
  }
}

/** Takes results in any order and hands them to `fold` in index order. */
export function inOrder<R>(fold: (result: R) => void): (index: number, result: R) => void {
  const waiting = new Map<number, R>();
  let next = 0;
  return (index, result) => {
    waiting.set(index, result);
    while (waiting.has(next)) {
      const ready = waiting.get(next) as R;
      waiting.delete(next++);
      fold(ready);
    }
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
