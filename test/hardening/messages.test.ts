// Messages a person can act on: the value named once, numbers YAML reads
// as infinite or not a number called what they are, and a missing key
// reported where it has to be added, by name.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { z } from "zod";
import { bounded, formatDiagnostic, QUOTE_LIMIT, type Diagnostic } from "../../src/core/diagnostic.ts";
import { ValuesError } from "../../src/core/errors.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { fail, toDiagnostics } from "../../src/values/values.ts";
import { renderSource } from "../../src/pipeline.ts";

const EKS = "examples/rootpilot-eks.yaml";

function diagnosticsOf(text: string): Diagnostic[] {
  try {
    renderSource(parseValuesFile(text, "values.yaml"));
    return [];
  } catch (error) {
    if (error instanceof ValuesError) return error.diagnostics;
    throw error;
  }
}

/** The line (1-based) of the first line of `text` that starts with `start`. */
function lineOf(text: string, start: string): number {
  return text.split("\n").findIndex((line) => line.startsWith(start)) + 1;
}

describe("the value is named once", () => {
  // A check whose message names the value itself, as cross-field checks do.
  const schema = z.strictObject({ limit: z.number(), seconds: z.number(), arch: z.string() }).superRefine((v, ctx) => {
    if (v.seconds > v.limit) fail(ctx, ["seconds"], "X-01", `${v.seconds} is above limit ${v.limit}`, "lower it");
    fail(ctx, ["arch"], "X-02", `pins the pod to ${v.arch}`, "remove it");
  });

  it("when the message already holds it, it is not put in front again", () => {
    const source = parseValuesFile("limit: 86400\nseconds: 172800\narch: amd64\n", "v.yaml");
    const result = schema.safeParse(source.data);
    const lines = toDiagnostics(result.error!.issues, source, schema, "X").map(formatDiagnostic);
    expect(lines).toEqual(["v.yaml:2:10 seconds: 172800 is above limit 86400 (X-01: lower it)", "v.yaml:3:7 arch: pins the pod to amd64 (X-02: remove it)"]);
  });

  it("when it does not, it is shown once in front", () => {
    const text = readFileSync(EKS, "utf8").replace(/^replicas: .*$/m, "replicas: 0");
    const [d] = diagnosticsOf(text);
    expect(formatDiagnostic(d)).toMatch(/ replicas: 0 is below 1 /);
  });
});

describe("numbers that are not finite", () => {
  it.each([
    ["1e400", "is out of range (not a finite number)"],
    ["-1e400", "is out of range (not a finite number)"],
    [".inf", "is out of range (not a finite number)"],
    ["-.Inf", "is out of range (not a finite number)"],
    [".nan", "is not a number (.nan)"],
  ])("%s is reported as %s, not as null", (written, message) => {
    const text = readFileSync(EKS, "utf8").replace(/^drainTimeoutMs: .*$/m, `drainTimeoutMs: ${written}`);
    const diagnostics = diagnosticsOf(text);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ path: "drainTimeoutMs", message, location: { line: lineOf(text, "drainTimeoutMs:") } });
    expect(formatDiagnostic(diagnostics[0])).not.toContain("null");
  });
});

describe("a missing required key", () => {
  it("is reported at its parent's line, by name, with the requirement's reason", () => {
    const doc = parseDocument(readFileSync(EKS, "utf8"));
    doc.deleteIn(["attestation", "region"]);
    const text = doc.toString();
    const [d] = diagnosticsOf(text);
    expect(d).toMatchObject({ id: "RP-06", path: "attestation.region", location: { line: lineOf(text, "attestation:") } });
    expect(d.message).toMatch(/^missing required key `region`: without it the runner fails at boot/);
  });

  it("at the top level is reported by name, not with the schema library's words", () => {
    const text = readFileSync(EKS, "utf8").replace(/^image: .*\n/m, "");
    const [d] = diagnosticsOf(text);
    expect(d).toMatchObject({ id: "G-05", path: "image", message: "missing required key `image`" });
    expect(formatDiagnostic(d)).toMatch(/^values\.yaml:\d+:1 image: missing required key `image` \(G-05: /);
  });

  it("without a requirement of its own, says how to find the shape", () => {
    const doc = parseDocument(readFileSync(EKS, "utf8"));
    doc.deleteIn(["controlPlane", "cidr"]);
    const text = doc.toString();
    const found = diagnosticsOf(text).find((d) => d.message.startsWith("missing required key"));
    expect(found).toMatchObject({ path: "controlPlane.cidr", message: "missing required key `cidr`", location: { line: lineOf(text, "controlPlane:") } });
    expect(JSON.stringify(diagnosticsOf(text))).not.toMatch(/received undefined|Invalid input/);
  });
});

describe("a huge value", () => {
  it("is quoted up to a bound, with its length, however many messages quote it", () => {
    const tag = "a".repeat(3_500_000);
    const text = readFileSync(EKS, "utf8").replace(/^image: ([^:@\n]+).*$/m, `image: $1:${tag}@sha256:${"0".repeat(64)}`);
    const lines = diagnosticsOf(text).map(formatDiagnostic);
    const line = lines.find((l) => l.includes("image:"));
    expect(line).toMatch(/aaaa… \(\d{7} characters\)/);
    expect(lines.join("\n").length).toBeLessThan(4096);
  });

  it("keeps a run of white-space-free text up to the bound whole", () => {
    const name = "b".repeat(QUOTE_LIMIT);
    expect(bounded(`x ${name} y`)).toBe(`x ${name} y`);
    expect(bounded(`x ${name}c y`)).toBe(`x ${"b".repeat(100)}… (${QUOTE_LIMIT + 1} characters) y`);
  });
});
