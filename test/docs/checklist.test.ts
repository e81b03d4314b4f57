// The checklist docs/compass-runner.md shows is the one a render prints:
// with the example's values in place of the placeholders, line for line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checklistBlock } from "../../src/docs/checklist.ts";
import { ROOT, runInProcess } from "../support/cli.ts";

describe("the Compass Runner checklist in the docs", () => {
  it("is the example render's checklist, placeholders for its values", () => {
    const example = parse(readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8"));
    expect(example.admission.deployers).toHaveLength(1);
    const filled: Record<string, string> = {
      "<node>": example.nodeSelector.value,
      "<kvmResourceName>": example.kvmResourceName,
      "<seccompProfilePath>": example.seccompProfilePath ?? "profiles/compass-runner.json",
      "<sessionVolumeRoot>": example.hostPaths.sessionVolumeRoot,
      "<runtimeRoot>": example.hostPaths.runtimeRoot,
      "<deployer>": example.admission.deployers[0],
    };
    const block = checklistBlock().split("\n");
    expect(block[0]).toBe("```text");
    expect(block.at(-1)).toBe("```");
    const shown = block.slice(1, -1).map((line) => line.replace(/<[A-Za-z]+>/g, (p) => filled[p] ?? p));

    const r = runInProcess(["render", join(ROOT, "examples/compass-runner.yaml")]);
    expect(r.code, r.err).toBe(0);
    const printed = r.err.split("\n");
    const first = printed.findIndex((line) => line.startsWith("Before applying, on node"));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(printed.slice(first, first + shown.length)).toEqual(shown);
    expect(printed[first + shown.length]).not.toMatch(/^ {2}\[ \]/);
  });
});
