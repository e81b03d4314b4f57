// `rigging completion bash|zsh|fish`: each script parses in its shell (npm
// test installs zsh and fish: scripts/test-deps.mjs), bash's and fish's complete what the code
// knows (commands, kinds, rule IDs, option values), and every option they
// offer is one the command's own --help documents.
import { describe, expect, it } from "vitest";
import { COMMAND_SPECS } from "../../src/cli/completion.ts";
import { runInProcess } from "../support/cli.ts";
import { bashComplete, fishComplete, saved, script } from "./completion-shells.ts";
import { run } from "./run.ts";
import { catalog, kinds } from "../../src/systems/registry.ts";

describe("completion scripts", () => {
  it("bash: the script parses (bash -n)", async () => {
    const r = await run("bash", ["-n"], { input: script("bash") });
    expect(r.code, r.err).toBe(0);
  });

  it("zsh: the script parses (zsh -n)", async () => {
    const r = await run("zsh", ["-n"], { input: script("zsh") });
    expect(r.code, r.err).toBe(0);
  });

  it("fish: the script parses (fish -n)", async () => {
    const r = await run("fish", ["-n", saved("fish")]);
    expect(r.code, r.err).toBe(0);
  });

  it("bash completes commands, kinds, profiles, formats and rule IDs", async () => {
    expect(await bashComplete(["rigging", ""])).toEqual(expect.arrayContaining(["render", "check", "fn", "completion", "schema", "init"]));
    expect(await bashComplete(["rigging", "in"])).toEqual(["init"]);
    expect((await bashComplete(["rigging", "init", ""])).sort()).toEqual([...kinds()].sort());
    expect(await bashComplete(["rigging", "schema", "Root"])).toEqual(["RootpilotRunner"]);
    expect((await bashComplete(["rigging", "check", "--profile", ""])).sort()).toEqual([...catalog.names()].sort());
    expect(await bashComplete(["rigging", "check", "--format", "s"])).toEqual(["sarif"]);
    expect(await bashComplete(["rigging", "check", "--pa"])).toEqual(["--passthrough"]);
    expect(await bashComplete(["rigging", "explain", "CR-0"])).toEqual(expect.arrayContaining(["CR-03", "CR-09"]));
    expect(await bashComplete(["rigging", "completion", ""])).toEqual(["bash", "zsh", "fish"]);
  });

  it("bash and fish offer a preflight check's own options after it: tls --secret and --server-name", async () => {
    expect((await bashComplete(["rigging", "preflight", "tls", "--se"])).sort()).toEqual(["--secret", "--server-name"]);
    expect(await bashComplete(["rigging", "preflight", "postgres", "--se"])).toEqual([]);
    expect(await bashComplete(["rigging", "preflight", "tls", "--ti"])).toEqual(["--timeout"]);
    expect((await fishComplete("rigging preflight tls --se")).sort()).toEqual(["--secret", "--server-name"]);
  });

  it.each(
    Object.entries(COMMAND_SPECS.find((c) => c.name === "preflight")!.subcommands!),
  )("every option offered for preflight %s is in its --help", (sub, options) => {
    const help = runInProcess(["preflight", sub, "--help"]);
    expect(help.code).toBe(0);
    for (const option of options) expect(help.out, `--${option.long}`).toMatch(new RegExp(`--${option.long}\\b`));
  });

  it("fish completes kinds after init and formats after check --format", async () => {
    expect((await fishComplete("rigging init ")).sort()).toEqual([...kinds()].sort());
    expect((await fishComplete("rigging check --format ")).sort()).toEqual(["json", "junit", "sarif", "text"]);
  });

  it.each(COMMAND_SPECS.map((c) => [c.name, c] as const))("every option offered for %s is in its --help", (name, spec) => {
    const help = runInProcess([name, "--help"]);
    expect(help.code).toBe(0);
    for (const option of spec.options) {
      expect(help.out, `--${option.long}`).toMatch(new RegExp(`--${option.long}\\b`));
      if (option.short) expect(help.out, `-${option.short}`).toMatch(new RegExp(`-${option.short}, --${option.long}\\b`));
    }
  });

  it("refuses an unknown shell (exit 2)", () => {
    const r = runInProcess(["completion", "tcsh"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("bash, zsh, fish");
  });
});
