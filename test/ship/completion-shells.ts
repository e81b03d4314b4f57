// What each shell's completion script offers, asked of the shell itself
// (zsh and fish come from scripts/test-deps.mjs).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runInProcess } from "../support/cli.ts";
import { run } from "./run.ts";

/** `rigging completion SHELL`, which must succeed. */
export function script(shell: string): string {
  const r = runInProcess(["completion", shell]);
  expect(r.code, r.err).toBe(0);
  return r.out;
}

/** The script in a file of its own. */
export function saved(shell: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "rigging-completion-")), `rigging.${shell}`);
  writeFileSync(file, script(shell));
  return file;
}

/** What bash's completion function offers for the words typed so far (the last one being completed). */
export async function bashComplete(words: string[]): Promise<string[]> {
  const program = `${script("bash")}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}
_rigging; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = await run("bash", ["--norc", "--noprofile", "-c", program], { cwd: "/" });
  expect(r.code, r.err).toBe(0);
  return r.out.split("\n").filter(Boolean);
}

/** What fish offers for a command line (`complete -C`), words only. */
export async function fishComplete(line: string, file = saved("fish")): Promise<string[]> {
  const r = await run("fish", ["--no-config", "-c", `source ${file}; complete -C '${line}'`]);
  expect(r.code, r.err).toBe(0);
  return r.out
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0]);
}
