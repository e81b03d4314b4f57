// Every rendered name, label and annotation passes the API server's own
// validation (apimachinery: ValidateAnnotations, IsQualifiedName,
// IsValidLabelValue, 256 KiB of annotations per object), and values that
// would make one fail are refused at values time, with the fix. Before,
// Service annotations were rendered unchecked (render exited 0 and apply
// failed), and a tag longer than 63 characters became a label value.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { ValuesError } from "../../src/core/errors.ts";
import { ANNOTATIONS_BYTES, annotationsBytes, DNS1123_SUBDOMAIN, isAnnotationKey, isLabelKey, isLabelValue } from "../../src/k8s/names.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";

const SERVER = "examples/compass-server.yaml";
const EXAMPLES = ["examples/compass-runner.yaml", SERVER, "examples/compass.yaml", "examples/rootpilot-eks.yaml", "examples/rootpilot-gke.yaml"];

function withValue(file: string, path: string[], value: unknown): string {
  const doc = parseDocument(readFileSync(file, "utf8"));
  doc.setIn(path, value);
  return doc.toString();
}

function outcome(text: string): { objects: K8sObject[]; diagnostics: { id: string; path: string; message: string; fix: string }[] } {
  try {
    return { objects: renderSource(parseValuesFile(text, "values.yaml")).objects, diagnostics: [] };
  } catch (error) {
    if (error instanceof ValuesError) return { objects: [], diagnostics: error.diagnostics };
    throw error;
  }
}

/** What the API server would refuse in an object's metadata. */
function metadataProblems(object: K8sObject): string[] {
  const { name, labels = {}, annotations = {} } = object.metadata as { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  const problems: string[] = [];
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) problems.push(`name ${name}`);
  for (const [key, value] of Object.entries(labels)) {
    if (!isLabelKey(key)) problems.push(`label key ${key}`);
    if (!isLabelValue(value)) problems.push(`label ${key} value ${value}`);
  }
  for (const key of Object.keys(annotations)) if (!isAnnotationKey(key)) problems.push(`annotation key ${key}`);
  if (annotationsBytes(annotations) > ANNOTATIONS_BYTES) problems.push("annotations over 256 KiB");
  return problems;
}

describe("the metadata of every rendered object", () => {
  it.each(EXAMPLES)("%s", (file) => {
    const { objects } = outcome(readFileSync(file, "utf8"));
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) expect(metadataProblems(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
  });

  it("a tag of 100 characters stays out of the version label, and in the tag annotation", () => {
    const tag = `v${"1".repeat(99)}`;
    const text = readFileSync(SERVER, "utf8").replace(/^image: ([^:@\n]+):[^@\n]+@/m, `image: $1:${tag}@`);
    const { objects, diagnostics } = outcome(text);
    expect(diagnostics).toEqual([]);
    for (const object of objects) expect(metadataProblems(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
    expect(JSON.stringify(objects)).toContain(`"rigging.dev/image-tag":"${tag}"`);
  });
});

describe("Service annotations are judged as the API server judges them", () => {
  const annotations = (value: Record<string, string>) => outcome(withValue(SERVER, ["service", "annotations"], value));

  it.each([["bad key!"], ["example.com/"], ["a/b/c"], [`${"x".repeat(64)}`], ["-lead"]])("the key %s is refused under CS-08", (key) => {
    const { diagnostics } = annotations({ [key]: "1" });
    expect(diagnostics).toContainEqual(expect.objectContaining({ id: "CS-08", message: expect.stringContaining("is not a valid annotation key") }));
    expect(diagnostics[0].fix).toMatch(/optional DNS prefix and '\/'/);
  });

  it.each([["service.beta.kubernetes.io/aws-load-balancer-type"], ["Example.COM/Mixed_Case.key"], ["plain"]])("the key %s renders", (key) => {
    const { objects, diagnostics } = annotations({ [key]: "x" });
    expect(diagnostics).toEqual([]);
    expect(objects.find((o) => o.kind === "Service")?.metadata.annotations).toEqual({ [key]: "x" });
  });

  it("more than 256 KiB of annotations is refused with the limit; 256 KiB renders", () => {
    const over = annotations({ a: "x".repeat(ANNOTATIONS_BYTES / 2), b: "x".repeat(ANNOTATIONS_BYTES / 2) });
    expect(over.diagnostics).toHaveLength(1);
    expect(over.diagnostics[0]).toMatchObject({ id: "CS-08", path: "service.annotations" });
    expect(over.diagnostics[0].message).toMatch(/take 262146 bytes, over the API server's limit of 262144 bytes/);
    expect(annotations({ a: "x".repeat(ANNOTATIONS_BYTES - 2) }).diagnostics).toEqual([]);
  });

  it("bytes are counted as UTF-8, as Go counts them", () => {
    expect(annotations({ a: "é".repeat(ANNOTATIONS_BYTES / 2) }).diagnostics).toHaveLength(1);
  });
});
