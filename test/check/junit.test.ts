// `--format junit`: JUnit XML as GitLab reads it, parsed back by a real XML
// parser (fast-xml-parser's validator and parser), never by string matching.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { xml } from "../../src/check/format.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { generatedFile } from "../support/corpus.ts";

const RP = join(ROOT, "test", "fixtures", "check", "rootpilot-runner");
/** The corpus's G-07 case: the Deployment lacks its version label. */
const G07 = generatedFile("rootpilot-runner", "G-07.yaml");
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  processEntities: true,
  htmlEntities: true,
  trimValues: false,
  isArray: (name) => ["testsuite", "testcase"].includes(name),
});

function junit(...args: string[]) {
  const r = runInProcess(["check", "--format", "junit", ...args]);
  expect(XMLValidator.validate(r.out)).toBe(true);
  return { code: r.code, doc: parser.parse(r.out), out: r.out };
}

describe("JUnit XML", () => {
  it("a clean set: one passing test case per rule of the profile, skipped ones for rules not judged", () => {
    const { code, doc } = junit(join(RP, "valid.yaml"));
    expect(code).toBe(0);
    const [suite] = doc.testsuites.testsuite;
    expect(suite["@name"]).toBe("rigging check: rootpilot-runner");
    expect(suite["@failures"]).toBe("0");
    const names = suite.testcase.map((c: any) => c["@name"]);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^RP-08: /), expect.stringMatching(/^G-05: /)]));
    const rp09 = suite.testcase.find((c: any) => c["@name"].startsWith("RP-09"));
    expect(rp09.skipped["@message"]).toMatch(/^not judged from manifests/);
    expect(Number(suite["@tests"])).toBe(suite.testcase.length);
    expect(doc.testsuites["@tests"]).toBe(suite["@tests"]);
  });

  it("an error is a failed test case of type error, naming the file", () => {
    const file = join(RP, "broken", "RP-10.yaml");
    const { code, doc } = junit(file);
    expect(code).toBe(1);
    const failed = doc.testsuites.testsuite[0].testcase.filter((c: any) => c.failure);
    expect(failed).toHaveLength(1);
    expect(failed[0]["@name"]).toMatch(/^RP-10 Deployment\/rootpilot\/runner-eu spec\.template\.spec\.containers\[0\]\.env\[\d\]\.value$/);
    expect(failed[0]["@file"]).toBe(file);
    expect(failed[0].failure["@type"]).toBe("error");
    expect(failed[0].failure["#text"]).toMatch(/RP-10\.yaml:\d+: OTEL_EXPORTER_OTLP_ENDPOINT .*\nFix: /);
    expect(doc.testsuites.testsuite[0]["@failures"]).toBe("1");
  });

  it("a warning passes by default, saying the warning in <system-out>; a waived one is skipped with its reason", () => {
    const { code, doc } = junit(G07);
    expect(code).toBe(0);
    const [suite] = doc.testsuites.testsuite;
    expect(suite["@failures"]).toBe("0");
    expect(doc.testsuites["@failures"]).toBe("0");
    const warned = suite.testcase.filter((c: any) => c["@name"].startsWith("G-07 "));
    expect(warned).toHaveLength(1);
    expect(warned[0].failure).toBeUndefined();
    expect(warned[0]["system-out"]).toMatch(/^warning: \S+G-07\.yaml:\d+: missing label\(s\) .*\nFix: .*\nWhy a warning: /s);
    const objects = parseAllDocuments(readFileSync(G07, "utf8")).map((d) => d.toJS());
    objects.find((o) => o.kind === "Deployment").metadata.annotations = { "rigging.dev/waive": 'G-07: labels <from> "our" chart & library' };
    const waived = junit(tempFile(objects.map((o) => stringify(o)).join("---\n"), "set.yaml"));
    const cases = waived.doc.testsuites.testsuite[0].testcase.filter((c: any) => c["@name"].startsWith("G-07 "));
    expect(cases.map((c: any) => c.skipped["@message"])).toEqual(['waived: labels <from> "our" chart & library']);
  });

  it("with --fail-on warning, a warning is a failure of type warning, as it fails the run", () => {
    const { code, doc } = junit("--fail-on", "warning", G07);
    expect(code).toBe(1);
    const failed = doc.testsuites.testsuite[0].testcase.filter((c: any) => c.failure);
    expect(failed.map((c: any) => [c["@name"].split(" ")[0], c.failure["@type"]])).toEqual([["G-07", "warning"]]);
    expect(failed[0].failure["#text"]).toMatch(/\nWhy a warning: /);
    expect(doc.testsuites["@failures"]).toBe("1");
  });

  it.each([
    ["a clean set", join(RP, "valid.yaml")],
    ["a warning", G07],
    ["an error", join(RP, "broken", "RP-10.yaml")],
  ])("%s: the failures JUnit counts agree with the exit code, with either --fail-on", (_, file) => {
    for (const failOn of ["error", "warning"]) {
      const { code, doc } = junit("--fail-on", failOn, file);
      const counted = doc.testsuites.testsuite.reduce((n: number, s: any) => n + Number(s["@failures"]), 0);
      const cases = doc.testsuites.testsuite.flatMap((s: any) => s.testcase).filter((c: any) => c.failure).length;
      expect(Number(doc.testsuites["@failures"])).toBe(counted);
      expect(cases).toBe(counted);
      expect(code, `--fail-on ${failOn}`).toBe(counted > 0 ? 1 : 0);
    }
  });

  it("escapes what XML cannot hold, and the output parses back to the same text", () => {
    const nasty = "a<b>&\"c'\u0001\u0000 line\nnext\ttab \uD800 \uFFFF é 😀";
    const doc = `<?xml version="1.0"?><r a="${xml(nasty)}">${xml(nasty)}</r>`;
    expect(XMLValidator.validate(doc)).toBe(true);
    const back = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", processEntities: true, htmlEntities: true, trimValues: false }).parse(doc);
    const expected = "a<b>&\"c'\uFFFD\uFFFD line\nnext\ttab \uFFFD \uFFFD é 😀";
    expect(back.r["#text"]).toBe(expected);
    expect(back.r["@a"]).toBe(expected);
  });
});
