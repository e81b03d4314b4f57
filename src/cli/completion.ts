// `rigging completion bash|zsh|fish`, written from the commands of commands.ts and their options here.
import { UsageError } from "../core/errors.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PSEUDO_RULES } from "../check/pseudo-rules.ts";
import { WAIVER_RULE } from "../check/waivers.ts";
import { COMMAND_LINES, type CommandName, formatsOf } from "./commands.ts";
import { packageRoot } from "../core/package-root.ts";
import type { Io } from "./io.ts";
import { catalog, kinds } from "../systems/registry.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

export const COMPLETION_HELP = `Usage: rigging completion bash|zsh|fish

Print a completion script for the shell:
  bash:  echo 'source <(rigging completion bash)' >> ~/.bashrc
  zsh:   echo 'source <(rigging completion zsh)' >> ~/.zshrc   (after compinit)
  fish:  rigging completion fish > ~/.config/fish/completions/rigging.fish

Options:
  -h, --help   show this help
`;

/** What an option's value or a command's arguments are. */
type Values = { words: () => readonly string[] } | "files" | "dirs" | "none";

interface Option {
  long: string;
  short?: string;
  /** What follows the option; absent for a switch. */
  value?: Values;
}

export interface CommandSpec {
  name: string;
  summary: string;
  options: Option[];
  args: Values;
  /** Options of each subcommand (its first argument), offered after it besides `options`. */
  subcommands?: Record<string, Option[]>;
}

const words = (list: () => readonly string[]): Values => ({ words: list });
const ruleIds = () => [...new Set([...catalog.requirements().map((r) => r.id), ...PSEUDO_RULES.map((r) => r.id), WAIVER_RULE.id])];

/** The Kubernetes versions check's schemas cover (dist/kube/index.json), none where the build has no schemas. */
function kubeVersions(): string[] {
  try {
    return Object.keys((JSON.parse(readFileSync(join(packageRoot(), "dist", "kube", "index.json"), "utf8")) as { versions: object }).versions);
  } catch {
    return [];
  }
}
const HELP: Option = { long: "help", short: "h" };

/** What completes after a command: its options but --format (from COMMAND_LINES), and its arguments. */
type Completion = Omit<CommandSpec, "name" | "summary">;

const COMPLETIONS: Record<CommandName, Completion> = {
  render: {
    options: [
      { long: "output", short: "o", value: "dirs" },
      { long: "per-object" },
      { long: "values", short: "f", value: "files" },
      { long: "set", value: "none" },
      { long: "set-string", value: "none" },
      { long: "force" },
      { long: "values-root", value: "dirs" },
      { long: "kube-version", value: words(kubeVersions) },
      { long: "quiet", short: "q" },
      HELP,
    ],
    args: "files",
  },
  check: {
    options: [
      { long: "filename", short: "f", value: "files" },
      { long: "profile", short: "p", value: words(() => catalog.names()) },
      { long: "fail-on", value: words(() => ["error", "warning"]) },
      { long: "no-waivers" },
      { long: "source-root", value: "dirs" },
      { long: "sarif-category", value: "none" },
      { long: "passthrough" },
      { long: "refusal-on-stdout" },
      { long: "exclude", value: "none" },
      { long: "include", value: "none" },
      { long: "include-rule", value: words(ruleIds) },
      { long: "exclude-rule", value: words(ruleIds) },
      { long: "strict" },
      { long: "kube-version", value: words(kubeVersions) },
      HELP,
    ],
    args: "files",
  },
  explain: { options: [], args: words(() => [...new Set(catalog.requirements().map((r) => r.id))]) },
  rules: { options: [HELP], args: "none" },
  schema: { options: [HELP], args: words(() => kinds()) },
  init: { options: [{ long: "output", short: "o", value: "files" }, { long: "schema", value: "files" }, HELP], args: words(() => kinds()) },
  preflight: {
    options: [{ long: "timeout", value: "none" }, HELP],
    args: words(() => ["postgres", "tls", "nats"]),
    subcommands: {
      postgres: [
        { long: "url-env", value: "none" },
        { long: "url-file", value: "files" },
      ],
      tls: [
        { long: "server-name", value: "none" },
        { long: "secret", value: "files" },
        { long: "cert", value: "files" },
        { long: "key", value: "files" },
        { long: "ca", value: "files" },
        { long: "connect", value: "none" },
        { long: "min-days", value: "none" },
      ],
      nats: [
        { long: "secret", value: "files" },
        { long: "secret-key", value: "none" },
        { long: "password-file", value: "files" },
        { long: "password-env", value: "none" },
        { long: "user", value: "none" },
        { long: "ca", value: "files" },
      ],
    },
  },
  pin: {
    options: [
      { long: "check" },
      { long: "values", short: "f", value: "files" },
      { long: "update" },
      { long: "dry-run" },
      { long: "outdated" },
      { long: "timeout", value: "none" },
      HELP,
    ],
    args: "files",
  },
  diff: {
    options: [{ long: "field-manager", value: "none" }, { long: "kube-version", value: words(kubeVersions) }, HELP],
    args: "files",
  },
  fn: { options: [{ long: "values", short: "f", value: "files" }, { long: "values-root", value: "dirs" }, HELP], args: "none" },
  completion: { options: [HELP], args: words(() => SHELLS) },
};

/** Every command the CLI dispatches, in the help's order, with its options; test/ship/completion.test.ts holds it to each command's --help. */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMAND_LINES.map(({ name, summary }) => {
  const formats = formatsOf(name);
  const { options, ...rest } = COMPLETIONS[name];
  return { name, summary, options: [...(formats.length > 0 ? [{ long: "format", value: words(() => formats) }] : []), ...options], ...rest };
});

const TOP_LEVEL = ["help", "--help", "--version"];

export function completionCommand(args: string[], io: Io): number {
  if (args.includes("-h") || args.includes("--help")) return io.out(COMPLETION_HELP), 0;
  if (args.length !== 1 || !(SHELLS as readonly string[]).includes(args[0])) throw new UsageError(`completion takes one shell: ${SHELLS.join(", ")}`);
  io.out(completionScript(args[0] as Shell));
  return 0;
}

export function completionScript(shell: Shell): string {
  for (const word of allWords()) {
    // Every word goes into the scripts unquoted: keep them plain.
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$|^--?[a-z][a-z-]*$/.test(word)) throw new Error(`completion word ${JSON.stringify(word)} is not plain`);
  }
  for (const { summary } of COMMAND_SPECS) if (/['"\\$`]/.test(summary)) throw new Error(`summary ${JSON.stringify(summary)} would need quoting`);
  return shell === "bash" ? bash() : shell === "zsh" ? zsh() : fish();
}

function allWords(): string[] {
  return [
    ...TOP_LEVEL,
    ...COMMAND_SPECS.flatMap((c) => [c.name, ...optionWords(c), ...listOf(c.args), ...c.options.flatMap((o) => (o.value ? listOf(o.value) : []))]),
    ...COMMAND_SPECS.flatMap((c) => Object.values(c.subcommands ?? {}).flatMap((options) => optionWords({ ...c, options }))),
  ];
}

function listOf(values: Values): readonly string[] {
  return typeof values === "object" ? values.words() : [];
}

function optionWords(command: CommandSpec): string[] {
  return command.options.flatMap((o) => [...(o.short ? [`-${o.short}`] : []), `--${o.long}`]);
}

/** Options that take a value, the subcommands' included (one meaning per name across them). */
function takesValue(command: CommandSpec): Option[] {
  const all = [...command.options, ...Object.values(command.subcommands ?? {}).flat()];
  return [...new Map(all.filter((o) => o.value !== undefined).map((o) => [o.long, o])).values()];
}

function flags(o: Option, separator: string): string {
  return [...(o.short ? [`-${o.short}`] : []), `--${o.long}`].join(separator);
}

function bash(): string {
  const bashValues = (values: Values, indent: string) =>
    values === "files"
      ? `${indent}COMPREPLY=($(compgen -f -- "$cur"))`
      : values === "dirs"
        ? `${indent}COMPREPLY=($(compgen -d -- "$cur"))`
        : values === "none"
          ? `${indent}COMPREPLY=()`
          : `${indent}COMPREPLY=($(compgen -W "${values.words().join(" ")}" -- "$cur"))`;
  const cases = COMMAND_SPECS.map((c) => {
    const valued = takesValue(c).map((o) => `        ${flags(o, "|")})\n${bashValues(o.value!, "          ")}\n          return ;;`);
    const subs = Object.entries(c.subcommands ?? {}).map(
      ([sub, options]) => `        ${sub}) opts="${[...optionWords({ ...c, options }), ...optionWords(c)].join(" ")}" ;;`,
    );
    return [
      `    ${c.name})`,
      ...(valued.length > 0 ? ['      case "$prev" in', ...valued, "      esac"] : []),
      `      local opts="${optionWords(c).join(" ")}"`,
      ...(subs.length > 0 ? [`      case "\${COMP_WORDS[2]}" in`, ...subs, "      esac"] : []),
      `      if [[ "$cur" == -* ]]; then`,
      `        COMPREPLY=($(compgen -W "$opts" -- "$cur"))`,
      "      else",
      bashValues(c.args, "        "),
      "      fi",
      "      ;;",
    ].join("\n");
  });
  return `# bash completion for rigging: source <(rigging completion bash)
_rigging() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${[...COMMAND_SPECS.map((c) => c.name), ...TOP_LEVEL].join(" ")}" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
  esac
}
complete -o filenames -o bashdefault -F _rigging rigging
`;
}

function zsh(): string {
  const zshValues = (values: Values) =>
    values === "files" ? "_files" : values === "dirs" ? "_files -/" : values === "none" ? "_message 'a value'" : `compadd -- ${values.words().join(" ")}`;
  const cases = COMMAND_SPECS.map((c) => {
    const valued = takesValue(c).map((o) => `        ${flags(o, "|")}) ${zshValues(o.value!)}; return ;;`);
    const subs = Object.entries(c.subcommands ?? {}).map(([sub, options]) => `        ${sub}) opts+=(${optionWords({ ...c, options }).join(" ")}) ;;`);
    return [
      `    ${c.name})`,
      ...(valued.length > 0 ? ["      case $prev in", ...valued, "      esac"] : []),
      `      local -a opts=(${optionWords(c).join(" ")})`,
      ...(subs.length > 0 ? [`      case \${words[3]} in`, ...subs, "      esac"] : []),
      `      if [[ $cur == -* ]]; then compadd -- $opts; else ${zshValues(c.args)}; fi`,
      "      ;;",
    ].join("\n");
  });
  const described = COMMAND_SPECS.map((c) => `    '${c.name}:${c.summary}'`).join("\n");
  return `#compdef rigging
# zsh completion for rigging: source <(rigging completion zsh) after compinit,
# or save it as _rigging in a directory of $fpath.
_rigging() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  if (( CURRENT == 2 )); then
    local -a commands
    commands=(
${described}
    )
    _describe command commands
    compadd -- ${TOP_LEVEL.join(" ")}
    return
  fi
  case \${words[2]} in
${cases.join("\n")}
  esac
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _rigging "$@"
else
  compdef _rigging rigging
fi
`;
}

function fish(): string {
  const fishValues = (values: Values) =>
    values === "files"
      ? "-F -r"
      : values === "dirs"
        ? "-x -a '(__fish_complete_directories)'"
        : values === "none"
          ? "-x"
          : `-x -a '${values.words().join(" ")}'`;
  const lines = ["# fish completion for rigging: rigging completion fish > ~/.config/fish/completions/rigging.fish", "complete -c rigging -f"];
  for (const c of COMMAND_SPECS) lines.push(`complete -c rigging -n __fish_use_subcommand -a ${c.name} -d '${c.summary}'`);
  lines.push("complete -c rigging -n __fish_use_subcommand -l version -d 'print the version'");
  for (const c of COMMAND_SPECS) {
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    for (const o of c.options)
      lines.push(`complete -c rigging ${when}${o.short ? ` -s ${o.short}` : ""} -l ${o.long}${o.value ? ` ${fishValues(o.value)}` : ""}`);
    for (const [sub, options] of Object.entries(c.subcommands ?? {}))
      for (const o of options)
        lines.push(
          `complete -c rigging -n '__fish_seen_subcommand_from ${c.name}; and __fish_seen_subcommand_from ${sub}' -l ${o.long}${o.value ? ` ${fishValues(o.value)}` : ""}`,
        );
    if (c.args === "files") lines.push(`complete -c rigging ${when} -F`);
    else if (typeof c.args === "object") lines.push(`complete -c rigging ${when} -x -a '${c.args.words().join(" ")}'`);
  }
  return `${lines.join("\n")}\n`;
}
