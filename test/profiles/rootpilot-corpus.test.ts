// The hand-written Rootpilot corpus: valid.yaml raises no finding, and each
// broken/<ID>[-suffix].yaml (a small edit of it) raises exactly that ID.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { K8sObject } from "../../src/core/objects.ts";
import { CATALOG, checkObjects } from "../../src/rules/catalog.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const DIR = join(import.meta.dirname, "../fixtures/check/rootpilot-runner");

function load(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const idOf = (file: string) => /^([A-Z]+-\d+)/.exec(file)![1];
const brokenFiles = readdirSync(join(DIR, "broken")).filter((f) => f.endsWith(".yaml")).sort();

describe("rootpilot-runner corpus", () => {
  it("valid.yaml is schema-valid and raises no finding", () => {
    const objects = load(join(DIR, "valid.yaml"));
    expect(objects.map((o) => o.kind)).toEqual(["Namespace", "ServiceAccount", "Deployment", "NetworkPolicy"]);
    for (const object of objects) expect(validateStrict(object), object.kind).toEqual([]);
    expect(checkObjects(objects)).toEqual([]);
  });

  it("covers every RP rule that manifests can show", () => {
    const shown = CATALOG.filter((r) => r.id.startsWith("RP-") && !r.judgedFrom).map((r) => r.id);
    expect(shown.length).toBeGreaterThan(0);
    for (const id of shown) expect(brokenFiles.map(idOf), id).toContain(id);
    for (const id of ["G-06", "G-08"]) expect(brokenFiles.map(idOf)).toContain(id);
  });

  for (const file of brokenFiles) {
    it(`broken/${file} raises exactly ${idOf(file)}`, () => {
      const objects = load(join(DIR, "broken", file));
      for (const object of objects) expect(validateStrict(object), `${file} ${object.kind}`).toEqual([]);
      const ids = [...new Set(checkObjects(objects).map((f) => f.id))];
      expect(ids).toEqual([idOf(file)]);
    });
  }
});
