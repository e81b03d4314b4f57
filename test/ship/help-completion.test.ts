// Every command rigging dispatches, and every value its --format takes, is
// named by the top-level help and offered by each completion script. The
// truth is asked of the CLI, not of the tables help and completion are
// written from: the commands from its refusal of an unknown one ("expected
// one of ..."), each command's formats from its refusal of `--format bogus`
// ("expected A, B or C"); none when its --help names no --format.
// Help: a `rigging COMMAND` usage line, with `--format A|B|C` on it. bash and
// fish: what the shell completes after `rigging ` and `rigging COMMAND
// --format `. zsh (no completion outside an interactive shell): the command
// in its `_describe` list and the formats in the command's `--format)` case.
// (`-o` takes a directory wherever it exists, so it has no values to name.)
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runInProcess } from "../support/cli.ts";
import { bashComplete, fishComplete, saved, script } from "./completion-shells.ts";

/** Arguments that carry a command past its own argument checks to its --format check. */
const REACHES_FORMAT: Record<string, string[]> = {
  render: [join(ROOT, "examples/compass-runner.yaml")],
  diff: [join(ROOT, "examples/compass-runner.yaml"), join(ROOT, "examples/compass-runner.yaml")],
  pin: [join(ROOT, "examples/compass-runner.yaml")],
  preflight: ["postgres"],
};

/** The words of "expected a, b, c" or "expected a or b". */
function expectedList(text: string): string[] | undefined {
  const list = /expected (?:one of )?([\w-]+(?:(?:, | or )[\w-]+)*)/.exec(text)?.[1];
  return list?.split(/, | or /);
}

const unknown = runInProcess(["no-such-command"]);
const COMMANDS = expectedList(unknown.err) ?? [];

/** The formats a command's --format takes, as the command itself says. */
function formatsOf(command: string): string[] {
  if (!/--format\b/.test(runInProcess([command, "--help"]).out)) return [];
  const r = runInProcess([command, ...(REACHES_FORMAT[command] ?? []), "--format", "bogus"]);
  expect(r.code, r.err).toBe(2);
  expect(r.err, `${command} --format bogus: give it arguments in REACHES_FORMAT that reach its --format check`).toMatch(/--format bogus: expected /);
  return expectedList(r.err.slice(r.err.indexOf("--format bogus")))!;
}

const FORMATS = new Map(COMMANDS.map((command) => [command, formatsOf(command)]));
const withFormats = [...FORMATS].filter(([, formats]) => formats.length > 0);
const help = runInProcess(["--help"]).out;

describe("what the CLI dispatches and takes", () => {
  it("names its commands and the formats each takes", () => {
    expect(COMMANDS).toEqual(expect.arrayContaining(["render", "check", "rules", "diff", "completion"]));
    expect(FORMATS.get("check")).toEqual(expect.arrayContaining(["text", "json", "sarif", "junit"]));
    expect(FORMATS.get("render")).toEqual(["yaml", "json"]);
    expect(FORMATS.get("init")).toEqual([]);
  });
});

describe("rigging --help", () => {
  it.each(COMMANDS)("has a usage line for %s", (command) => {
    expect(help).toMatch(new RegExp(`^ {2}rigging ${command}\\b`, "m"));
  });

  it.each(withFormats)("names every format of %s on its usage line: %j", (command, formats) => {
    const line = help.split("\n").find((l) => new RegExp(`^ {2}rigging ${command}\\b`).test(l)) ?? "";
    expect(line).toContain(`--format ${formats.join("|")}`);
  });
});

describe("bash completion", () => {
  it("offers every command", async () => {
    expect(await bashComplete(["rigging", ""])).toEqual(expect.arrayContaining(COMMANDS));
  });

  it.each(withFormats)("offers every format after %s --format: %j", async (command, formats) => {
    expect((await bashComplete(["rigging", command, "--format", ""])).sort()).toEqual([...formats].sort());
  });
});

describe("fish completion", () => {
  const file = saved("fish");
  it("offers every command", async () => {
    expect(await fishComplete("rigging ", file)).toEqual(expect.arrayContaining(COMMANDS));
  });

  it.each(withFormats)("offers every format after %s --format: %j", async (command, formats) => {
    expect((await fishComplete(`rigging ${command} --format `, file)).sort()).toEqual([...formats].sort());
  });
});

describe("zsh completion", () => {
  const zsh = script("zsh");
  it.each(COMMANDS)("describes %s", (command) => {
    expect(zsh).toMatch(new RegExp(`^ {4}'${command}:[^']+'$`, "m"));
  });

  it.each(withFormats)("offers every format after %s --format: %j", (command, formats) => {
    const start = zsh.indexOf(`\n    ${command})\n`);
    expect(start, command).toBeGreaterThan(0);
    const section = zsh.slice(start, zsh.indexOf("\n      ;;", start));
    expect(section).toMatch(new RegExp(`--format\\) compadd -- ${formats.join(" ")};`));
  });
});
