// Valid input within the limits never exhausts the stack: long values
// through the patterns that judge them, a values file with hundreds of
// thousands of problems, `check` of a file of 150,000 objects and a values
// file of millions of comment lines. Before, each ended in an internal
// error (exit 3) from "Maximum call stack size exceeded".
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ValuesError } from "../../src/core/errors.ts";
import { DNS1123_SUBDOMAIN } from "../../src/k8s/names.ts";
import { parseValuesFile, type SourceDocument } from "../../src/parse/source.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { validateValues } from "../../src/values/values.ts";
import { ROLE_ARN } from "../../src/systems/rootpilot-runner/interface.ts";
import { fallsBack } from "../../src/parse/fast-yaml.ts";
import { tempFile } from "../support/cli.ts";
import { runCliAsync } from "../support/run-async.ts";
import { valuesKindOf } from "../../src/systems/registry.ts";

const RUNNER = readFileSync("examples/compass-runner.yaml", "utf8");
const NEAR_LIMIT = LIMITS.fileBytes - 64 * 1024;

/** Apimachinery's DNS-1123 subdomain pattern, as validation.go writes it. */
const APIMACHINERY_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Every string of up to `length` characters of `alphabet`. */
function* strings(alphabet: string, length: number): Generator<string> {
  yield "";
  for (let n = 1; n <= length; n++) {
    const count = alphabet.length ** n;
    for (let i = 0; i < count; i++) {
      let s = "";
      for (let x = i, k = 0; k < n; k++, x = Math.floor(x / alphabet.length)) s += alphabet[x % alphabet.length];
      yield s;
    }
  }
}

describe("patterns on values of a few MiB", () => {
  const long = `${"a.".repeat(NEAR_LIMIT / 2)}a`;

  it("the DNS-1123 subdomain pattern matches as apimachinery's does", () => {
    for (const s of strings("a-.", 9)) expect(DNS1123_SUBDOMAIN.test(s), JSON.stringify(s)).toBe(APIMACHINERY_SUBDOMAIN.test(s));
  });

  it("the DNS-1123 subdomain pattern judges 8 MiB of labels without exhausting the stack", () => {
    expect(DNS1123_SUBDOMAIN.test(long)).toBe(true);
    expect(DNS1123_SUBDOMAIN.test(`${long}-`)).toBe(false);
  });

  it("the IAM role ARN pattern judges a path of millions of segments", () => {
    const arn = `arn:aws:iam::123456789012:role/${"a/".repeat(NEAR_LIMIT / 2)}`;
    expect(ROLE_ARN.test(`${arn}name`)).toBe(true);
    expect(ROLE_ARN.test(`${arn}/name`)).toBe(false);
  });

  it("a ConfigMap name of 8 MiB of labels is refused as too long, with exit 1", async () => {
    const text = RUNNER.replace("    name: compass-server-ca", `    name: ${long}`);
    expect(text.length).toBeLessThan(LIMITS.fileBytes);
    const result = await runCliAsync(["render", tempFile(text)]);
    expect(result.code, result.err.slice(0, 300)).toBe(1);
    expect(result.err).toMatch(/serverCA\.configMap\.name: .*is longer than 253 characters/);
    expect(result.err).not.toContain("internal error");
  });

  it("millions of comment lines after a flow list send the text to the positioned parser, without exhausting the stack", () => {
    expect(fallsBack(`x: [a]\n${"#\n".repeat(NEAR_LIMIT / 2)}y: 1\n`)).toBe(true);
  });
});

describe("many problems", () => {
  it("a list of 150,000 bad items is reported as far as it can be, and says the rest was not checked", () => {
    const values = parseValuesFile(RUNNER, "values.yaml").data as Record<string, unknown>;
    const data = { ...values, egressAllow: Array.from({ length: 150_000 }, () => ({ host: "A", cidr: "x" })) };
    const source: SourceDocument = { file: "values.yaml", data, locate: () => ({ file: "values.yaml" }) };
    let error: unknown;
    try {
      validateValues(valuesKindOf("CompassRunner")!.schema(), source, "CompassRunner");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValuesError);
    const { diagnostics } = error as ValuesError;
    expect(diagnostics.some((d) => d.path === "egressAllow[0].cidr")).toBe(true);
    expect(diagnostics).toContainEqual(
      expect.objectContaining({ id: "G-01", path: "egressAllow", message: expect.stringMatching(/^holds 150000 items, .*only the first \d+ were checked/) }),
    );
  });
});

describe("check of one file of 150,000 objects", () => {
  it("ends in a report, and --format json prints JSON", async () => {
    // A kind the API serves, so that the schema rule passes every object.
    const text = "---\n{kind: Node, apiVersion: v1, metadata: {name: a}}\n".repeat(150_000);
    expect(text.length).toBeLessThan(LIMITS.fileBytes);
    const result = await runCliAsync(["check", tempFile(text, "objects.yaml"), "--format", "json"]);
    expect(result.err).not.toContain("internal error");
    expect(result.code).toBe(0);
    // One object given 150,000 times: one warning names it.
    expect(JSON.parse(result.out)).toMatchObject([{ ruleId: "objects", severity: "warning", message: "Node a is given 150000 times: judged once" }]);
  }, 120_000);
});
