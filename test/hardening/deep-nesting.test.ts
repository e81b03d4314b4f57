// The nesting limit holds before any parser runs: 8 MiB of openers (just
// under the size limit) is refused with the documented message and exit
// 2, as a values file, as `check` input, and as one file of a fleet, where
// the other files are still rendered. Before, such a file ran Node out of
// memory (gigabytes, then an abort with V8's native stack).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../src/parse/limits.ts";
import { runCli, tempDir } from "../support/cli.ts";

const TOO_DEEP = `nested deeper than the limit of ${LIMITS.depth} levels`;
const EXAMPLE = "examples/rootpilot-eks.yaml";

/** `unit` repeated to just under the 8 MiB input limit. */
const nearLimit = (prefix: string, unit: string) => prefix + unit.repeat(Math.floor((LIMITS.fileBytes - prefix.length - 64) / unit.length));

const DEEP: [string, string][] = [
  ["a flow sequence", nearLimit("", "[")],
  ["a flow sequence as a value", nearLimit("kind: RootpilotRunner\nx: ", "[")],
  ["a flow mapping", nearLimit("x: ", "{a: ")],
  ["JSON arrays", nearLimit("", "[[1,")],
  ["block sequences on one line", nearLimit("x:\n  ", "- ")],
  ["explicit keys on one line", nearLimit("", "? ")],
];

let dir: string;
beforeAll(() => void (dir = tempDir()));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** One clear line, the documented message, no stack and nothing on stdout. */
function expectRefusedAsTooDeep(result: { code: number; out: string; err: string }, file: string, code = 2): void {
  expect(result.code, result.err.slice(0, 2000)).toBe(code);
  expect(result.out).toBe("");
  expect(result.err).toContain(`${file}: ${TOO_DEEP}`);
  expect(result.err).not.toMatch(/internal error|heap out of memory| {4}at |FATAL/);
}

describe("8 MiB of nesting, refused before any parser", () => {
  it.each(DEEP)("render: %s", (_, text) => {
    expect(text.length).toBeGreaterThan(LIMITS.fileBytes - 100);
    const file = write("deep.yaml", text);
    expectRefusedAsTooDeep(runCli(["render", file]), file);
  });

  it.each(DEEP)("check: %s", (_, text) => {
    const file = write("deep.yaml", text);
    expectRefusedAsTooDeep(runCli(["check", file]), file);
  });

  it("check: from stdin", () => {
    expectRefusedAsTooDeep(runCli(["check", "-"], DEEP[0][1]), "<stdin>");
  });

  it("a fleet reports the deep file as its failure and renders the others", () => {
    const input = join(dir, "fleet");
    const output = join(dir, "fleet-out");
    mkdirSync(input);
    writeFileSync(join(input, "a-good.yaml"), readFileSync(EXAMPLE));
    writeFileSync(join(input, "b-deep.yaml"), DEEP[0][1]);
    writeFileSync(join(input, "c-good.yaml"), readFileSync(EXAMPLE));
    const result = runCli(["render", input, "-o", output]);
    expect(result.code, result.err).toBe(1);
    expect(result.err).toContain(`${join(input, "b-deep.yaml")}: ${TOO_DEEP}; not rendered`);
    expect(result.err).toContain("rendered 2 of 3 values files");
    expect(readdirSync(output).sort()).toEqual([".a-good.1", ".c-good.1", "a-good", "c-good"]); // each NAME links to its generation
  });

  it("a check of a directory reports the deep file and reads the others", () => {
    const input = join(dir, "manifests");
    mkdirSync(input);
    writeFileSync(join(input, "deep.yaml"), DEEP[4][1]);
    writeFileSync(join(input, "good.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    const result = runCli(["check", input]);
    // A walked file that is not read is skipped with its reason; named, it is an input problem.
    expect(result.code).toBe(0);
    expect(result.err).toContain(`skipped ${join(input, "deep.yaml")}: ${TOO_DEEP}`);
    expect(result.err).toContain("in 1 object(s) of 2 file(s)");
    const named = runCli(["check", join(input, "deep.yaml")]);
    expect(named.code).toBe(2);
    expect(named.err).toContain(`${join(input, "deep.yaml")}: ${TOO_DEEP}`);
  });
});

describe("within the limit, nothing is refused for depth", () => {
  it.each([
    ["flow", `x: ${"[".repeat(LIMITS.depth - 1)}${"]".repeat(LIMITS.depth - 1)}\n`],
    ["block sequences on one line", `x:\n  ${"- ".repeat(LIMITS.depth - 1)}a\n`],
    ["many flow collections side by side", `x: [${"[1], {a: 2}, ".repeat(5_000)}]\n`],
    ["brackets and dashes as text", `x: '${"[{-?".repeat(5_000)}'\ny: ${"a[b-c ".repeat(1_000)}\n# ${"[".repeat(1_000)}\n`],
  ])("%s", (_, text) => {
    const result = runCli(["check", write("ok.yaml", text)]);
    expect(result.err).not.toContain(TOO_DEEP);
    expect(result.err).toContain("not a Kubernetes object"); // parsed, then judged as data
  });
});
