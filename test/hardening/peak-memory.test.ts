// Peak memory within the documented bound (docs/limits.md): at most
// 200 MiB plus 2 KiB per node of the largest document, and a document holds
// at most LIMITS.nodes nodes, each at least one byte of text, so the bound
// grows linearly with the input up to a cap. The child's peak RSS is read
// from GNU time. Before, 8 MiB of nested lists under the size limit ran out
// of heap at over 4 GB.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/parse/limits.ts";
import { CLI, ROOT, tempFile } from "../support/cli.ts";

const TIME = "/usr/bin/time";
const MiB = 1024 * 1024;

/** The documented bound for an input whose largest document has `nodes` nodes. */
const boundBytes = (nodes: number) => 200 * MiB + 2 * 1024 * Math.min(nodes, LIMITS.nodes);

/** Exit code, stderr and peak RSS in bytes of `rigging ARGS`, measured by GNU time. */
function measured(args: string[]): Promise<{ code: number; err: string; peak: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ["-f", "peak-rss-kb=%M", process.execPath, CLI, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const kb = /peak-rss-kb=(\d+)/.exec(err);
      resolve({ code: code ?? -1, err, peak: kb ? Number(kb[1]) * 1024 : Number.NaN });
    });
  });
}

const RUNNER = readFileSync("examples/compass-runner.yaml", "utf8");
/** One list item of ten nested lists: eleven nodes in 24 bytes. */
const NESTED = "[[[[[[[[[[1]]]]]]]]]], ";
const nestedList = (bytes: number) => `${RUNNER}x: [${NESTED.repeat(Math.floor((bytes - RUNNER.length - 8) / NESTED.length))}]\n`;

describe.skipIf(!existsSync(TIME))("peak memory (GNU time)", () => {
  it("8 MiB of nested lists: refused at the node limit, within the bound", async () => {
    const text = nestedList(LIMITS.fileBytes - 1024);
    expect(text.length).toBeLessThan(LIMITS.fileBytes);
    const result = await measured(["render", tempFile(text)]);
    expect(result.code, result.err.slice(0, 300)).toBe(2);
    expect(result.err).toContain(`holds more than ${LIMITS.nodes} nodes`);
    expect(result.peak).toBeLessThanOrEqual(boundBytes(LIMITS.nodes));
  }, 300_000);

  it("0.9 MiB of nested lists, under the node limit: reported, within the bound", async () => {
    const text = nestedList(0.9 * MiB);
    const nodes = (text.length / NESTED.length) * 11;
    expect(nodes).toBeLessThan(LIMITS.nodes);
    const result = await measured(["render", tempFile(text)]);
    expect(result.code, result.err.slice(0, 300)).toBe(1);
    expect(result.peak).toBeLessThanOrEqual(boundBytes(nodes));
  }, 300_000);

  it("a values file at the size limit holding one long value: within the bound", async () => {
    const text = `${RUNNER}x: ${"a".repeat(LIMITS.fileBytes - RUNNER.length - 64)}\n`;
    const result = await measured(["render", tempFile(text)]);
    expect(result.code, result.err.slice(0, 300)).toBe(1);
    expect(result.peak).toBeLessThanOrEqual(boundBytes(1000));
  }, 300_000);
});
