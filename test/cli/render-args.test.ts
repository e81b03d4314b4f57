// renderArgs (src/cli/render.ts) answers a list of files alone without
// util.parseArgs: its answer must be parseArgs's own, and every other list
// (options, `--`, a mistake) must still reach parseArgs and its errors.
import { parseArgs } from "node:util";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { describe, expect, it } from "vitest";
import { renderArgs } from "../../src/cli/render.ts";
import { runs } from "../support/runs.ts";

/** util.parseArgs with the options `rigging render --help` lists. */
function reference(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: "string", short: "o" },
      values: { type: "string", short: "f", multiple: true },
      set: { type: "string", multiple: true },
      "set-string": { type: "string", multiple: true },
      format: { type: "string", default: "yaml" },
      quiet: { type: "boolean", short: "q", default: false },
      "per-object": { type: "boolean", default: false },
      force: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
}

/** The answer or the error code, as plain data. */
function outcome(parse: (args: string[]) => unknown, args: string[]): unknown {
  try {
    return JSON.parse(JSON.stringify(parse(args)));
  } catch (error) {
    return { error: (error as { code?: string }).code, message: (error as Error).message };
  }
}

// Words a render's argument list is made of, near misses of options included.
const word = fc.oneof(
  fc.constantFrom(
    "-",
    "--",
    "-o",
    "-q",
    "-h",
    "-f",
    "--output",
    "--output=out",
    "--format=json",
    "--set",
    "--set=a=1",
    "-fvalues.yaml",
    "--per-object",
    "--force",
    "--quiet",
    "--help",
    "-x",
    "--nope",
    "-oout",
    "-qh",
  ),
  fc.constantFrom("", " ", "a b", "values.yaml", "dir/", "yaml", "json", "\u00e9", "- ", " -o"),
  fc.string({ maxLength: 6 }),
);

describe("renderArgs answers as util.parseArgs does", () => {
  it("for files alone, without parseArgs", () => {
    for (const args of [[], ["values.yaml"], ["-"], ["a", "-", "b"], [""], ["a b"]]) expect(outcome(renderArgs, args)).toEqual(outcome(reference, args));
    expect(renderArgs(["values.yaml"])).toEqual({
      values: { format: "yaml", quiet: false, "per-object": false, force: false, help: false },
      positionals: ["values.yaml"],
    });
  });

  it("for every list, options and mistakes included (generated)", async () => {
    await fc.assert(
      loopProperty(fc.array(word, { maxLength: 5 }), (args) => {
        expect(outcome(renderArgs, args)).toEqual(outcome(reference, args));
      }),
      { numRuns: runs(2000) },
    );
  });

  it("leaves the caller's list alone", () => {
    const args = ["a", "b"];
    const { positionals } = renderArgs(args);
    positionals.push("c");
    expect(args).toEqual(["a", "b"]);
  });
});
