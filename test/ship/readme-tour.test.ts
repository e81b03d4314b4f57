// The README as a new user meets it: in a copy of the clone (its tracked
// files, with what `npm ci` leaves: node_modules and dist/), after the two
// set-up commands and the `npm link` the tour asks for, every command of
// the tour's first block runs as written and exits 0 (none is missing: no
// 127). Every command of the second block names what it needs on its line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.ts";
import { cloneCopy } from "./clone-copy.ts";
import { run } from "./run.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const tour = README.slice(README.indexOf("## A short tour"));

/** The lines of the n-th ```sh block of the tour. */
function block(n: number): string[] {
  const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks[n].split("\n").filter((line) => line.trim() !== "");
}

let copy: string;
let env: Record<string, string>;

beforeAll(() => {
  const clone = cloneCopy();
  ({ copy, env } = clone);
  return clone.remove;
});
describe("the README's set-up", () => {
  it("keeps its first two commands, and the tour asks for npm link first", () => {
    const first = [...README.matchAll(/```sh\n([\s\S]*?)```/g)][0][1];
    expect(first).toMatch(/^npm ci && npm run render -- examples\/compass-runner\.yaml /m);
    expect(first).toMatch(/^npm ci && npm run test:deps && npm test /m);
    expect(tour.slice(0, tour.indexOf("```sh"))).toContain("`npm link`");
  });

  it("npm run render -- examples/compass-runner.yaml renders in the copy", async () => {
    const r = await run("bash", ["-c", "npm run --silent render -- examples/compass-runner.yaml"], { cwd: copy, env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^---\napiVersion: v1\nkind: Namespace\n/);
  });
});

describe("the README's tour, run as written after npm ci and npm link", () => {
  it.each(block(0).map((line) => [line.replace(/\s+#.*$/, "")]))("%s", async (command) => {
    const r = await run("bash", ["-c", command], { cwd: copy, env });
    expect(r.code, `${command}\n${r.err}`).not.toBe(127);
    expect(r.code, `${command}\n${r.err}`).toBe(0);
  });
});

describe("the tour's commands that need more say what", () => {
  it.each(block(1).map((line) => [line]))("%s", (line) => {
    const [command, comment = ""] = line.split(/\s+#\s/, 2);
    expect(comment).toMatch(/^needs /);
    // Every program of the pipeline other than rigging is named there.
    const programs = command.split("|").map((part) => part.trim().split(/\s+/)[0]);
    for (const program of programs.filter((p) => p !== "rigging")) expect(comment).toContain(program);
  });
});
