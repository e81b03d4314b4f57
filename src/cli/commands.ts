// The commands rigging dispatches, each with its usage, summary and the
// values its --format takes: the top-level help and every completion script
// are written from this one list (test/ship/help-completion.test.ts holds
// them to what the commands accept). Data only: it loads with main.cjs.

export interface CommandLine {
  name: string;
  /** What follows `rigging NAME` in the usage line, before the formats. */
  usage: string;
  /** The values of --format, the first the default; absent when the command has no --format. */
  formats?: readonly string[];
  /** One line, also the completion scripts' description: no quotes, `$`, backquote or backslash. */
  summary: string;
}

export const COMMAND_LINES = [
  { name: "render", usage: "VALUES [-o DIR]", formats: ["yaml", "json"], summary: "render a values file" },
  { name: "check", usage: "FILE...", formats: ["text", "json", "sarif", "junit"], summary: "check existing manifests (- for stdin)" },
  { name: "explain", usage: "[RULE-ID]", summary: "why a rule exists and its fix; all rules" },
  { name: "rules", usage: "", formats: ["text", "json"], summary: "every rule check reports, with severity and source" },
  { name: "schema", usage: "[KIND]", summary: "print a values JSON Schema (all kinds without KIND)" },
  { name: "init", usage: "KIND", summary: "print an example values file" },
  { name: "preflight", usage: "postgres|tls|nats", formats: ["text", "json"], summary: "check the database, certificate or NATS live" },
  { name: "pin", usage: "VALUES [--check|--update|--outdated]", formats: ["text", "json"], summary: "pin tags to digests, or to the newest build" },
  { name: "diff", usage: "OLD NEW", formats: ["text", "json"], summary: "what applying NEW over OLD changes and restarts" },
  { name: "fn", usage: "< resource-list.yaml", summary: "a KRM function for kpt and kustomize" },
  { name: "completion", usage: "bash|zsh|fish", summary: "print a shell completion script" },
] as const satisfies readonly CommandLine[];

export type CommandName = (typeof COMMAND_LINES)[number]["name"];

/** The formats of a command's --format, none when it has no such option. */
export function formatsOf(name: CommandName): readonly string[] {
  const line: CommandLine = COMMAND_LINES.find((c) => c.name === name)!;
  return line.formats ?? [];
}

/** Where the summaries start in the help's usage lines. */
const SUMMARY_COLUMN = 56;

/** The help's usage lines: `rigging NAME USAGE [--format A|B]`, then the summary (on the next line when the usage is long). */
export function usageLines(): string[] {
  return COMMAND_LINES.map((c: CommandLine) => {
    const formats = c.formats ? ` [--format ${c.formats.join("|")}]` : "";
    const usage = `  rigging ${[c.name, c.usage].filter(Boolean).join(" ")}${formats}`;
    const gap = usage.length + 2 <= SUMMARY_COLUMN ? " ".repeat(SUMMARY_COLUMN - usage.length) : `\n${" ".repeat(SUMMARY_COLUMN)}`;
    return `${usage}${gap}${c.summary}`;
  });
}
