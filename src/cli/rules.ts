// `rigging rules`: every rule check and render's self-check can report, with
// its severity, fix, source and profiles, for people or (JSON) for scripts.
import { parseArgs } from "node:util";
import { PSEUDO_RULES } from "../check/pseudo-rules.ts";
import { WAIVER_RULE } from "../check/waivers.ts";
import { UsageError } from "../core/errors.ts";
import { designIdsNote } from "../rules/design-ids.ts";
import { sourceText } from "../rules/requirements.ts";
import { deprecatedShortFormat } from "./args.ts";
import type { Io } from "./io.ts";
import { catalog } from "../systems/registry.ts";

export const RULES_HELP = `Usage: rigging rules [--format text|json]

List every rule rigging check reports: the catalog's rules (the ones
render's self-check runs too) and check's own (input, unrecognised,
waiver). JSON gives each rule's id, summary, severity, fix, source,
profiles and its warnings (opinions) with their reasons.

Options:
      --format FMT   text (default) or json (-f FMT: deprecated)
  -h, --help         show this help

Run 'rigging explain ID' for one rule in full.
Exit codes: 0 printed; 2 usage error; 3 internal error.
`;

export interface RuleEntry {
  id: string;
  summary: string;
  severity: "error" | "warning";
  fix: string;
  source: string;
  profiles: string[];
  opinions: { summary: string; because: string }[];
}

export function ruleEntries(): RuleEntry[] {
  const listed = catalog.allRules().map(
    (rule): RuleEntry => ({
      id: rule.id,
      summary: rule.summary,
      severity: rule.severity,
      fix: rule.fix,
      source: sourceText(rule),
      profiles: [...rule.profiles],
      opinions: Object.values(rule.opinions ?? {}).map((o) => ({ summary: o.summary, because: o.because })),
    }),
  );
  const own = [...PSEUDO_RULES, WAIVER_RULE].map(
    (rule): RuleEntry => ({
      id: rule.id,
      summary: rule.summary,
      severity: "error",
      fix: rule.fix,
      source: "rigging check",
      profiles: [],
      opinions: "opinions" in rule ? [...(rule.opinions ?? [])] : [],
    }),
  );
  return [...listed, ...own];
}

export function rulesCommand(args: string[], io: Io): number {
  deprecatedShortFormat(args, "rules", io.err);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: "string", short: "f", default: "text" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) return io.out(RULES_HELP), 0;
  if (positionals.length > 0) throw new UsageError(`rules takes no arguments, got ${positionals[0]}; rigging explain ID explains one`);
  if (values.format !== "text" && values.format !== "json") throw new UsageError(`--format ${values.format}: expected text or json`);
  const entries = ruleEntries();
  if (values.format === "json") return io.out(`${JSON.stringify(entries, null, 2)}\n`), 0;
  const width = Math.max(...entries.map((e) => e.id.length));
  const listing = entries
    .map((e) => `${e.id.padEnd(width)}  ${e.severity.padEnd(7)}  ${e.summary}${e.opinions.length ? ` (${e.opinions.length} warning(s))` : ""}\n`)
    .join("");
  io.out(listing);
  // The listing is data; whose its task and decision IDs are is for people.
  const note = designIdsNote(listing);
  if (note) io.err(`${note}\n`);
  return 0;
}
