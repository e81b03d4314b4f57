import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { closest } from "../values/values.ts";
import { judgedText, sourceText, type Requirement } from "../rules/requirements.ts";
import { otherIds } from "../check/other-ids.ts";
import { designIdsNote } from "../rules/design-ids.ts";
import type { Io } from "./io.ts";
import { catalog } from "../systems/registry.ts";

export const EXPLAIN_HELP = `Usage: rigging explain [RULE-ID]

With a requirement ID (such as CR-03): print the requirement, why it exists,
what breaks when it is ignored, how it is judged, how values meet it, and
the fix. Also answers check's own IDs (input, unrecognised, waiver) and the
Compass Server-on-Kubernetes design's decisions that preflight and pin check
(D3-D10).
Without one: list every requirement with its severity and summary.

Options:
  -h, --help   show this help

Exit codes: 0 printed; 2 usage error (an unknown RULE-ID); 3 internal error.
`;

export function explainCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) return io.out(EXPLAIN_HELP), 0;
  if (positionals.length > 1) throw new UsageError(`explain takes at most one RULE-ID, got ${positionals.length}`);
  const all = catalog.requirements();
  if (positionals.length === 0) {
    const text = listing(all);
    io.out(text);
    // The listing is one requirement a line; whose its task and decision IDs are goes to people, on stderr.
    const note = designIdsNote(text);
    if (note) io.err(`${note}\n`);
    return 0;
  }
  const id = positionals[0].toUpperCase();
  const entries = all.filter((r) => r.id === id);
  const other = otherIds().find((o) => o.id.toUpperCase() === id);
  if (entries.length === 0 && other) {
    io.out([`${other.id}  ${other.summary}`, "", ...other.sections.flatMap(([title, text]) => [`${title}:`, ...wrap(text), ""])].join("\n"));
    return 0;
  }
  if (entries.length === 0) {
    const ids = [...new Set([...all.map((r) => r.id), ...otherIds().map((o) => o.id)])];
    const near = closest(id, ids);
    throw new UsageError(`unknown requirement ${JSON.stringify(positionals[0])}${near ? ` (did you mean ${near}?)` : ""}; run rigging explain for the list`);
  }
  io.out(entries.map(withDesignNote).join("\n"));
  return 0;
}

/** A requirement's explanation, ending with whose the task and decision IDs it names are. */
function withDesignNote(r: Requirement): string {
  const text = explanation(r);
  const note = designIdsNote(text);
  return note ? `${text}\nDesign IDs:\n${wrap(note).join("\n")}\n` : text;
}

function listing(all: readonly Requirement[]): string {
  const width = Math.max(...all.map((r) => r.id.length));
  return all.map((r) => `${r.id.padEnd(width)}  ${(r.severity ?? "values").padEnd(7)}  ${r.summary}\n`).join("");
}

function explanation(r: Requirement): string {
  const lines = [`${r.id}  ${r.summary}`, `  severity: ${r.severity ?? "not a manifest rule"}; profiles: ${r.profiles.join(", ")}`, ""];
  if (r.why) lines.push("Why:", ...wrap(r.why), "");
  if (r.source) lines.push("Source:", ...wrap(sourceText(r)), "");
  if (r.opinions?.length)
    lines.push(
      "rigging's own hardening under this ID (warnings, which can be waived):",
      ...r.opinions.flatMap((o) => wrap(`- ${o.summary}: ${o.because}`)),
      "",
    );
  lines.push("Judged:", ...wrap(judgedText(r.judged)), "");
  if (r.inValues) lines.push("In values:", ...wrap(r.inValues), "");
  if (r.reads) lines.push("Reads:", ...wrap(r.reads), "");
  if (r.fix) lines.push("Fix:", ...wrap(r.fix), "");
  return lines.join("\n");
}

/** Wraps prose at 78 columns, indented by two spaces. */
function wrap(text: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > 76) {
        out.push(`  ${line}`);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(`  ${line}`);
  }
  return out;
}
