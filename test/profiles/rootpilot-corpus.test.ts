// The hand-written Rootpilot corpus, judged by the catalog directly: each
// valid*.yaml raises nothing; each broken/<ID>[-suffix].yaml (a small edit of
// valid.yaml) raises errors of exactly that ID; each opinion/<ID>[-key].yaml
// raises warnings of exactly that ID and no error: what seed 002 allows is
// never an error.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { K8sObject } from "../../src/core/objects.ts";
import { allRules, checkObjects } from "../../src/rules/catalog.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const DIR = join(import.meta.dirname, "../fixtures/check/rootpilot-runner");

function load(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const idOf = (file: string) => /^([A-Z]+-\d+)/.exec(file)![1];
const yamlIn = (dir: string) =>
  readdirSync(join(DIR, dir))
    .filter((f) => f.endsWith(".yaml"))
    .sort();
const valid = readdirSync(DIR)
  .filter((f) => /^valid.*\.yaml$/.test(f))
  .sort();
const broken = yamlIn("broken");
const opinions = yamlIn("opinion");

describe("rootpilot-runner corpus", () => {
  it("holds a GKE set, an EKS set and a set with a custom token path", () => {
    expect(valid).toEqual(["valid-eks.yaml", "valid-token-path.yaml", "valid.yaml"]);
    expect(load(join(DIR, "valid.yaml")).map((o) => o.kind)).toEqual(["Namespace", "ServiceAccount", "Deployment", "NetworkPolicy"]);
  });

  it.each(valid)("%s is schema-valid and raises no finding", (file) => {
    const objects = load(join(DIR, file));
    for (const object of objects) expect(validateStrict(object), object.kind).toEqual([]);
    expect(checkObjects(objects)).toEqual([]);
  });

  it("covers every RP rule that manifests can show with a broken fixture", () => {
    const shown = allRules()
      .filter((r) => r.id.startsWith("RP-") && !r.judgedFrom)
      .map((r) => r.id);
    expect(shown.length).toBeGreaterThan(0);
    for (const id of shown) expect(broken.map(idOf), id).toContain(id);
  });

  it.each(broken)("broken/%s raises errors of exactly its ID", (file) => {
    const objects = load(join(DIR, "broken", file));
    for (const object of objects) expect(validateStrict(object), `${file} ${object.kind}`).toEqual([]);
    const errors = checkObjects(objects).filter((f) => f.severity === "error");
    expect([...new Set(errors.map((f) => f.id))]).toEqual([idOf(file)]);
  });

  it.each(opinions)("opinion/%s raises warnings of exactly its ID and no error", (file) => {
    const objects = load(join(DIR, "opinion", file));
    for (const object of objects) expect(validateStrict(object), `${file} ${object.kind}`).toEqual([]);
    const findings = checkObjects(objects);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect([...new Set(findings.map((f) => f.id))]).toEqual([idOf(file)]);
  });

  it("seed 002's allowances are not errors: another uid with its own $HOME, ~/.aws at $HOME, no NetworkPolicy, a port-only egress rule", () => {
    for (const file of ["RP-01-uid.yaml", "RP-07-aws-mount.yaml", "RP-08-no-policy.yaml", "RP-08-port-only.yaml"]) {
      const findings = checkObjects(load(join(DIR, "opinion", file)));
      expect(
        findings.map((f) => f.severity),
        file,
      ).toEqual(findings.map(() => "warning"));
    }
  });
});
