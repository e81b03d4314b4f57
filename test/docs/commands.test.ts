// Every command the README and docs/ show runs, or says what it needs.
// The shell blocks (```sh, ```bash, ```shell, ```console: its `$ ` lines)
// of README.md and docs/**/*.md, as marked reads them; a line ending in `\`
// goes on on the next; comment lines are prose. Each command line either
//  - is marked: the block by `<!-- needs: WHAT -->` or `<!-- tested: FILE -->`
//    (another test runs it) right before it, or the line by a trailing
//    `# needs WHAT` (or `# needs: WHAT`) comment; or
//  - runs here, with bash -o pipefail, in its page's own directory (a copy of
//    the clone after npm ci, as test/ship/readme-tour.test.ts makes it), with
//    `rigging` the built dist/rigging.cjs, HOME that directory, and on PATH
//    only node, npx and a few programs that touch nothing outside it
//    (HARMLESS), and exits 0. A command that needs anything else (kubectl, a
//    cluster, npm, the network, a file the page does not make) fails: mark it.
// A page's commands run in its order, each distinct one once.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloneCopy, type CloneCopy } from "../ship/clone-copy.ts";
import { run } from "../ship/run.ts";
import { ROOT } from "../support/cli.ts";
import { type CodeBlock, codeBlocks, docPages } from "./markdown.ts";

const SHELL_LANGS = ["sh", "bash", "shell", "console"];
/** Programs a documented command may use unmarked: they read and write only where they are told. */
const HARMLESS = ["sh", "bash", "cat", "chmod", "cp", "echo", "grep", "head", "ls", "mkdir", "printf", "sed", "sort", "tail", "tr", "wc"];
const LINE_NEEDS = /\s#\s*needs\b:?\s*(\S.*)$/;

interface CommandLine {
  block: CodeBlock;
  command: string;
  /** What the line or its block says it needs, or the test that runs it. */
  marked?: string;
}

/** The command lines of a shell block: continuations joined, comment lines and blanks left out. */
function commandLines(block: CodeBlock): CommandLine[] {
  const physical = block.text.split("\n");
  const lines = block.lang === "console" ? physical.filter((l) => l.startsWith("$ ")).map((l) => l.slice(2)) : physical;
  const joined: string[] = [];
  let open = "";
  for (const line of lines) {
    if (line.endsWith("\\")) {
      open += `${line}\n`;
      continue;
    }
    joined.push(open + line);
    open = "";
  }
  if (open) joined.push(open);
  return joined
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"))
    .map((command) => ({
      block,
      command,
      marked: block.marker ? `${block.marker.kind}: ${block.marker.what}` : LINE_NEEDS.exec(command)?.[1],
    }));
}

const blocks = docPages().flatMap((page) => codeBlocks(page).filter((b) => SHELL_LANGS.includes(b.lang)));
const lines = blocks.flatMap(commandLines);
const runnable = lines.filter((l) => l.marked === undefined);
const pages = [...new Set(runnable.map((l) => l.block.page))];

let clone: CloneCopy;
let tools: string;
beforeAll(() => {
  clone = cloneCopy();
  tools = join(clone.work, "tools");
  mkdirSync(tools);
  symlinkSync(process.execPath, join(tools, "node"));
  for (const name of ["npx", ...HARMLESS]) symlinkSync(realpathSync(programPath(name)), join(tools, name));
});
afterAll(() => clone?.remove());

/** A page's environment: rigging, node, npx and HARMLESS on PATH; HOME its own directory. */
function pageEnv(dir: string): Record<string, string> {
  return { PATH: [clone.bin, tools].join(":"), HOME: dir, RIGGING_FROM_SOURCES: "" };
}

/** Where this machine's PATH finds a program. */
function programPath(name: string): string {
  return execFileSync("which", [name], { encoding: "utf8" }).trim();
}

describe("the docs' shell blocks, as a markdown parser finds them", () => {
  it("are found: the README's and the pages' blocks, with their command lines", () => {
    expect(blocks.filter((b) => b.page === "README.md").length).toBeGreaterThanOrEqual(3);
    expect(new Set(blocks.map((b) => b.page)).size).toBeGreaterThanOrEqual(10);
    expect(lines.some((l) => l.command.startsWith("rigging render"))).toBe(true);
  });

  it("runs rigging, and nothing a line would need to mark (kubectl, npm)", async () => {
    const env = pageEnv(clone.work);
    expect((await run("bash", ["-c", "rigging --version"], { cwd: clone.work, env })).code).toBe(0);
    for (const program of ["kubectl version --client", "npm --version"])
      expect((await run("bash", ["-c", program], { cwd: clone.work, env })).code, program).toBe(127);
  });

  it.each(
    blocks.filter((b) => b.marker?.kind === "tested").map((b) => [`${b.page}:${b.line}`, b] as const),
  )("%s: the test its marker names exists and reads that page", (_, block) => {
    const file = join(ROOT, block.marker!.what);
    expect(existsSync(file), block.marker!.what).toBe(true);
    expect(readFileSync(file, "utf8")).toContain(block.page.split("/").at(-1));
  });
});

describe.each(pages)("%s: every unmarked command runs and exits 0", (page) => {
  let dir: string;
  beforeAll(() => {
    // The page's own working copy: the clone's entries linked, what its commands write kept apart.
    dir = join(clone.work, "pages", page.replace(/[/.]/g, "-"));
    mkdirSync(dir, { recursive: true });
    for (const entry of readdirSync(clone.copy)) symlinkSync(join(clone.copy, entry), join(dir, entry));
  });

  const distinct = [...new Map(runnable.filter((l) => l.block.page === page).map((l) => [l.command, l])).values()];
  it.each(distinct.map((l) => [`${l.block.page}:${l.block.line}: ${l.command}`, l] as const))("%s", async (_, line) => {
    const env = pageEnv(dir);
    // A command sent to the background is waited for: its exit is the line's.
    const script = `${line.command}\nstatus=$?; [ -z "$!" ] || wait "$!" || exit; exit $status`;
    const r = await run("bash", ["--norc", "--noprofile", "-o", "pipefail", "-c", script], { cwd: dir, env });
    const hint = `${line.block.page}:${line.block.line}: \`${line.command}\` exited ${r.code}; it runs in a copy of the files git tracks: \`git add\` a new file it reads; if it cannot run here, say what it needs (# needs WHAT, or <!-- needs: WHAT --> before the block)\n${r.err}`;
    expect(r.code, hint).toBe(0);
  });
});
