// Two keys that name one property are refused with both positions, however
// they are spelled: `"1"` and `1`, `true` and `"true"`, `0x10` and `16`,
// and in a values file also the YAML 1.1 spellings kubectl reads as one
// (`yes` and `true`). Before, the last value silently won in rigging, and
// kubectl kept one of the two at random.
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Schema } from "yaml";
import { parseManifests } from "../../src/check/kube-yaml.ts";
import { MAY_RESOLVE } from "../../src/parse/duplicate-keys.ts";
import { UsageError } from "../../src/core/errors.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { runInProcess, tempFile } from "../support/cli.ts";
import { runs } from "../support/runs.ts";

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  return "accepted";
}

const CONFIG_MAP = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: ns\ndata:\n${data}`;

describe("kubectl makes one key of them", () => {
  it('"1" and 1, yes and "true": kubectl keeps one value of each pair', () => {
    const file = tempFile(CONFIG_MAP('  "1": a\n  1: b\n  yes: c\n  "true": d\n'), "cm.yaml");
    const read = JSON.parse(execFileSync("kubectl", ["label", "--local", "-f", file, "probe=1", "-o", "json"], { encoding: "utf8" }));
    expect(Object.keys(read.data).sort()).toEqual(["1", "true"]);
  });
});

describe.each([
  ['"1" and 1', '"1": a\n1: b\n', '2:1 not valid YAML: Map keys must be unique: 1 repeats "1" of line 1, column 1'],
  ["true and 'true'", "true: a\n'true': b\n", '2:1 not valid YAML: Map keys must be unique: "true" repeats true of line 1, column 1'],
  ["0x10 and 16", "0x10: a\n16: b\n", "2:1 not valid YAML: Map keys must be unique: 16 repeats 0x10 of line 1, column 1"],
  ["1.0 and 1", "1.0: a\n1: b\n", "2:1 not valid YAML: Map keys must be unique: 1 repeats 1.0 of line 1, column 1"],
  ["null and ~", "null: a\n~: b\n", "2:1 not valid YAML: Map keys must be unique: ~ repeats null of line 1, column 1"],
])("%s", (_, keys, message) => {
  it("in a values file", () => {
    expect(refusal(() => parseValuesFile(`kind: CompassRunner\nlabels:\n${keys.replace(/^/gm, "  ")}`, "v.yaml"))).toMatch(
      new RegExp(
        `^v\\.yaml:${message
          .replace(/^(\d+):(\d+)/, (_, l, c) => `${Number(l) + 2}:${Number(c) + 2}`)
          .replace(/line 1, column 1/, "line 3, column 3")
          .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
      ),
    );
  });

  it("in a manifest `check` reads", () => {
    expect(refusal(() => parseManifests(keys, "m.yaml"))).toMatch(new RegExp(`^m\\.yaml:${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  });
});

describe("YAML 1.1 spellings", () => {
  it.each([
    ["yes and true", "yes: a\ntrue: b\n", "true repeats yes of line 1, column 1"],
    ["on and 'true'", "on: a\n'true': b\n", '"true" repeats on of line 1, column 1'],
    ["010 and 8", "010: a\n8: b\n", "8 repeats 010 of line 1, column 1"],
  ])("%s: refused in a values file, naming YAML 1.1", (_, keys, message) => {
    expect(refusal(() => parseValuesFile(keys, "v.yaml"))).toBe(
      `v.yaml:2:1 not valid YAML: Map keys must be unique: ${message}, which YAML 1.1 (kubectl) reads as the same key`,
    );
  });

  it("yes and true: refused by check, where kubectl's reading is the one", () => {
    const result = runInProcess(["check", tempFile(CONFIG_MAP("  yes: c\n  true: d\n"), "cm.yaml")]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/cm\.yaml:8:3 not valid YAML: Map keys must be unique: true repeats yes of line 7, column 3/);
  });

  it("a quoted 'yes' and true are two keys in both readings", () => {
    expect(refusal(() => parseValuesFile("kind: CompassRunner\n'yes': a\ntrue: b\n", "v.yaml"))).toBe("accepted");
  });
});

describe("the words YAML 1.1 may read as something else", () => {
  // The oracle is the yaml package's own YAML 1.1 schema: every scalar it resolves to a null, boolean or number must pass the quick test.
  const resolving = (text: string) =>
    new Schema({ schema: "yaml-1.1" }).tags.some(
      (tag) => tag.default && tag.test?.test(text) && tag.tag !== "tag:yaml.org,2002:timestamp" && tag.tag !== "tag:yaml.org,2002:merge",
    );
  it("the quick test lets through every scalar the schema resolves", () => {
    const texts = [
      "",
      "~",
      "y",
      "Yes",
      "NO",
      "on",
      "Off",
      "null",
      "NULL",
      "0x1F",
      "010",
      "-1",
      "+.5",
      ".inf",
      "-.NaN",
      "1:20",
      "0b101",
      "1_000",
      "namespace",
      "x1",
      "yes2",
    ];
    for (const text of texts) if (resolving(text)) expect(MAY_RESOLVE.test(text), text).toBe(true);
    expect(texts.filter(resolving).length).toBeGreaterThan(10);
    fc.assert(
      fc.property(fc.stringMatching(/^[-+.0-9a-zA-Z_:~]{0,6}$/), (text) => {
        if (resolving(text)) expect(MAY_RESOLVE.test(text), text).toBe(true);
      }),
      { numRuns: runs(3000) },
    );
  });
});
