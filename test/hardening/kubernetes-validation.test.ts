// Values are validated as Kubernetes validates them: a Secret key the API
// server refuses is refused here, and a URL whose text holds control
// characters (which the URL parser drops without a word) is refused
// instead of being rendered with them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { ValuesError } from "../../src/core/errors.ts";
import { objectKeyProblem } from "../../src/k8s/names.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";

/** The example with one key set (the `yaml` package edits it, comments kept). */
function exampleWith(file: string, path: string[], value: unknown): string {
  const doc = parseDocument(readFileSync(file, "utf8"));
  expect(doc.hasIn(path), `${path.join(".")} is in ${file}`).toBe(true);
  doc.setIn(path, value);
  return doc.toString();
}

/** The diagnostics of a render, or [] when it renders. */
function diagnosticsOf(text: string): { path: string; message: string; id: string }[] {
  try {
    renderSource(parseValuesFile(text, "values.yaml"));
    return [];
  } catch (error) {
    if (error instanceof ValuesError) return error.diagnostics;
    throw error;
  }
}

describe("Secret and ConfigMap keys follow Kubernetes' rule (apimachinery IsConfigMapKey)", () => {
  it.each([
    ["..data", "starts with `..`"],
    ["..", "is `..`"],
    [".", "is `.`"],
    ["..x", "starts with `..`"],
    ["k".repeat(254), "is longer than 253 characters"],
    ["a/b", "holds a character other than [-._a-zA-Z0-9]"],
    ["", "is empty"],
  ])("a Secret key %j is refused: %s", (key, problem) => {
    expect(objectKeyProblem(key)).toBe(problem);
    const diagnostics = diagnosticsOf(exampleWith("examples/compass-server.yaml", ["masterKey", "key"], key));
    expect(diagnostics.map((d) => [d.path, d.message])).toContainEqual(["masterKey.key", expect.stringContaining(problem)]);
  });

  it.each(["a", "master-key", "tls.crt", "a..b", ".hidden", "_x", "k".repeat(253)])("a Secret key %j is accepted", (key) => {
    expect(objectKeyProblem(key)).toBeUndefined();
    expect(diagnosticsOf(exampleWith("examples/compass-server.yaml", ["masterKey", "key"], key))).toEqual([]);
  });
});

describe("URL values with control characters or white space are refused", () => {
  it.each([
    ["a newline at the end", "https://compass.example.com\n", "a line break (U+000A)"],
    ["a tab inside", "https://compass.\texample.com", "a tab (U+0009)"],
    ["a carriage return", "https://compass.example.com/\r", "a line break (U+000D)"],
    ["a space at the start", " https://compass.example.com", "a space"],
    ["an escape", "https://compass.example.com/\u001b[2J", "a control character (U+001B)"],
  ])("%s", (_, url, what) => {
    // The URL parser reads each of these as https://compass.example.com (or near it).
    expect(() => new URL(url)).not.toThrow();
    const diagnostics = diagnosticsOf(exampleWith("examples/compass-runner.yaml", ["serverAddr"], url));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ id: "CR-02", path: "serverAddr" });
    expect(diagnostics[0].message).toContain(`holds ${what}`);
  });

  it("the same URL without them renders", () => {
    expect(diagnosticsOf(exampleWith("examples/compass-runner.yaml", ["serverAddr"], "https://compass.example.com"))).toEqual([]);
  });
});
