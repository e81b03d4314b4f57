// The hand-written Compass Server corpus: valid.yaml raises no finding and
// each broken/<ID>[-suffix].yaml, a small edit of it, raises exactly <ID>.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { K8sObject } from "../../src/core/objects.ts";
import { allRules, checkObjects } from "../../src/rules/catalog.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const DIR = "test/fixtures/check/compass-server";

function load(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8")).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as K8sObject;
  });
}

describe("compass-server corpus", () => {
  it("valid.yaml is schema-valid and raises no finding", () => {
    const objects = load(join(DIR, "valid.yaml"));
    expect(objects.length).toBeGreaterThan(5);
    for (const object of objects) expect(validateStrict(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
    expect(checkObjects(objects)).toEqual([]);
  });

  const broken = readdirSync(join(DIR, "broken"))
    .filter((f) => f.endsWith(".yaml"))
    .sort();

  for (const file of broken) {
    const id = /^([A-Z]+-\d+)/.exec(file)![1];
    it(`broken/${file} raises exactly ${id}`, () => {
      const findings = checkObjects(load(join(DIR, "broken", file)));
      expect([...new Set(findings.map((f) => f.id))]).toEqual([id]);
    });
  }

  const warned = readdirSync(join(DIR, "warn")).filter((f) => f.endsWith(".yaml"));

  for (const file of warned) {
    const id = /^([A-Z]+-\d+)/.exec(file)![1];
    it(`warn/${file} raises exactly ${id}, as warnings`, () => {
      const findings = checkObjects(load(join(DIR, "warn", file)));
      expect([...new Set(findings.map((f) => f.id))]).toEqual([id]);
      expect(findings.every((f) => f.severity === "warning")).toBe(true);
    });
  }

  it("covers every CS rule that manifests can show, and G-04, G-05, G-06", () => {
    const judged = allRules()
      .filter((r) => r.id.startsWith("CS-") && !r.judgedFrom)
      .map((r) => r.id);
    const covered = new Set([...broken, ...warned].map((f) => /^([A-Z]+-\d+)/.exec(f)![1]));
    for (const id of [...judged, "G-04", "G-05", "G-06"]) expect(covered, id).toContain(id);
  });

  it("CS-12 is judged from a live database, not from manifests", () => {
    const rule = allRules().find((r) => r.id === "CS-12")!;
    expect(rule.judgedFrom).toMatch(/database/);
  });
});
