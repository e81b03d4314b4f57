// The manifest corpus, one folder per system of the registry under
// test/fixtures/check/<system>/ (test/fixtures/README.md), with the G- cases
// generated from each valid.yaml (test/support/general-breakages.ts):
// - every valid*.yaml (valid.yaml, and variants such as valid-flags.yaml)
//   is schema-valid, raises no finding at all and exits 0;
// - every broken/<RULE-ID>[-suffix].yaml raises errors of exactly its rule
//   and exits 1; a warning of another rule is allowed only where the
//   fixture's leading comments declare it (`# also warns: CR-20 (...)`),
//   and an error of another only where they declare that (`# also errs:`);
// - every warn/<RULE-ID>[-suffix].yaml raises warnings of exactly its
//   rule, no error, and exits 0.
// Its layout and headers: corpus-layout.test.ts. Whether every requirement
// has its fixture: requirement-coverage.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  brokenFiles,
  CORPUS,
  CORPUS_SYSTEMS,
  checkJson,
  cleanFiles,
  corpusName,
  declaredErrors,
  declaredWarnings,
  expectedId,
  ids,
  objectsOf,
  validFiles,
  warnFiles,
  yamlFiles,
  corpusDir,
} from "../support/corpus.ts";
import { validateStrict } from "../support/k8s-schema.ts";
import { catalog } from "../../src/systems/registry.ts";

it("has one corpus folder for each system of the registry, and no other", () => {
  const folders = readdirSync(CORPUS)
    .filter((name) => statSync(join(CORPUS, name)).isDirectory())
    .sort();
  expect(folders).toEqual(CORPUS_SYSTEMS.filter((s) => corpusDir(s) === join(CORPUS, s)).sort());
  for (const system of CORPUS_SYSTEMS) expect(existsSync(join(corpusDir(system), "valid.yaml")), system).toBe(true);
});

describe.each(CORPUS_SYSTEMS)("corpus %s", (system) => {
  const valid = validFiles(system);
  const broken = brokenFiles(system);
  const warned = warnFiles(system);

  it("has valid.yaml", () => {
    expect(valid.map((f) => basename(f))).toContain("valid.yaml");
  });

  it.each([...valid, ...broken, ...warned].map((f) => [corpusName(f), f]))("%s is YAML without errors", (_name, file) => {
    for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) expect(doc.errors).toEqual([]);
  });

  it.each(valid.map((f) => [basename(f), f]))("%s raises no finding and exits 0", (_name, file) => {
    const { code, findings, err } = checkJson(file);
    expect(findings).toEqual([]);
    expect(code, err).toBe(0);
    expect(err).not.toMatch(/not recognised/);
  });

  it.each(valid.map((f) => [basename(f), f]))("%s passes strict upstream schema validation", (_name, file) => {
    for (const object of objectsOf(file)) {
      expect(validateStrict(object), `${object.kind}/${object.metadata?.name}`).toEqual([]);
    }
  });

  it.each(broken.map((f) => [corpusName(f), f]))("%s raises exactly its rule and exits 1", (_name, file) => {
    const id = expectedId(file);
    const warns = declaredWarnings(file);
    const errs = declaredErrors(file);
    const { code, findings, err } = checkJson(file);
    expect(code, err).toBe(1);
    expect(ids(findings, "error")).toEqual([id, ...errs].sort());
    // Warnings: none but its own rule's and those the fixture declares, each declared one raised.
    expect(ids(findings, "warning").filter((w) => w !== id && !warns.includes(w))).toEqual([]);
    expect(ids(findings, "warning")).toEqual(expect.arrayContaining(warns));
    const lines = readFileSync(file, "utf8").split("\n").length;
    for (const f of findings) expect(f.line).toBeGreaterThanOrEqual(1), expect(f.line).toBeLessThanOrEqual(lines);
  });

  it.each(warned.map((f) => [corpusName(f), f]))("%s raises warnings of exactly its rule, no error, and exits 0", (_name, file) => {
    const { code, findings, err } = checkJson(file);
    expect(findings.length).toBeGreaterThan(0);
    expect(ids(findings, "error")).toEqual([]);
    expect(ids(findings, "warning")).toEqual([expectedId(file)]);
    for (const f of findings) expect(f.because, "a warning says why rigging asks for it").toMatch(/\w{3}/);
    expect(code, err).toBe(0);
    expect(checkJson(file, "--fail-on", "warning").code).toBe(1);
  });

  it.each(cleanFiles(system).map((f) => [corpusName(f), f]))("%s raises no finding: the rule does not ask it of this system", (_name, file) => {
    const { code, findings, err } = checkJson(file);
    expect(findings).toEqual([]);
    expect(code, err).toBe(0);
  });
});

describe("the rootpilot-runner corpus", () => {
  const dir = join(CORPUS, "rootpilot-runner");

  it("holds a GKE set, an EKS set and a set with a custom token path", () => {
    expect(validFiles("rootpilot-runner").map((f) => basename(f))).toEqual(["valid-eks.yaml", "valid-token-path.yaml", "valid.yaml"]);
    expect(objectsOf(join(dir, "valid.yaml")).map((o) => o.kind)).toEqual(["Namespace", "ServiceAccount", "Deployment", "NetworkPolicy"]);
  });

  it.each(
    [...brokenFiles("rootpilot-runner"), ...warnFiles("rootpilot-runner")].map((f) => [corpusName(f), f]),
  )("%s breaks a rule, not the upstream schema", (_name, file) => {
    for (const object of objectsOf(file)) expect(validateStrict(object), object.kind).toEqual([]);
  });

  it("every Rootpilot opinion has its warn/<ID>-<key>.yaml fixture", () => {
    const have = new Set(yamlFiles(join(dir, "warn")).map((f) => basename(f, ".yaml")));
    const missing = catalog
      .allRules()
      .filter((r) => r.id.startsWith("RP-"))
      .flatMap((r) => Object.keys(r.opinions ?? {}).map((key) => `${r.id}-${key}`))
      .filter((name) => !have.has(name));
    expect(missing).toEqual([]);
  });

  it("the Rootpilot Kubernetes guide's allowances are not errors: another uid with its own $HOME, ~/.aws at $HOME, no NetworkPolicy, a port-only egress rule", () => {
    for (const file of ["RP-01-uid.yaml", "RP-07-aws-mount.yaml", "RP-08-no-policy.yaml", "RP-08-port-only.yaml"]) {
      const { findings } = checkJson(join(dir, "warn", file));
      expect(findings.length, file).toBeGreaterThan(0);
      expect(
        findings.map((f) => f.severity),
        file,
      ).toEqual(findings.map(() => "warning"));
    }
  });
});

it("the compass-server corpus's valid.yaml is a whole installation", () => {
  expect(objectsOf(join(CORPUS, "compass-server", "valid.yaml")).length).toBeGreaterThan(5);
});

describe("the compass-runner corpus follows its conventions (test/fixtures/README.md)", () => {
  const dir = join(CORPUS, "compass-runner");
  const valid = validFiles("compass-runner");
  const variants = [...brokenFiles("compass-runner"), ...warnFiles("compass-runner")];

  it("has the flag form beside the variable form", () => {
    expect(valid.map((f) => basename(f))).toEqual(expect.arrayContaining(["valid.yaml", "valid-flags.yaml"]));
    const words = (file: string) => JSON.stringify(objectsOf(file).find((o) => o.kind === "DaemonSet"));
    expect(words(join(dir, "valid.yaml"))).toMatch(/"COMPASS_SERVER_ADDR"/);
    expect(words(join(dir, "valid.yaml"))).not.toMatch(/--server[=",]/);
    expect(words(join(dir, "valid-flags.yaml"))).toMatch(/"--server=https:/);
    expect(words(join(dir, "valid-flags.yaml"))).not.toMatch(/"COMPASS_(SERVER_ADDR|RUNNER_TOKEN_FILE|MICROVM_\w+)"/);
  });

  it("no valid set is rigging's own output", () => {
    for (const file of valid) expect(readFileSync(file, "utf8"), basename(file)).not.toMatch(/rigging\.dev\/|managed-by: rigging/);
  });

  it.each(variants.map((f) => [corpusName(f), f]))("%s is one valid set with one object changed, added or removed", (_name, file) => {
    const mine = objectsOf(file).map((o) => JSON.stringify(o));
    const distance = (base: string) => {
      const theirs = objectsOf(base).map((o) => JSON.stringify(o));
      return mine.filter((o) => !theirs.includes(o)).length + theirs.filter((o) => !mine.includes(o)).length;
    };
    // A changed object counts twice (its old and its new form).
    expect(Math.min(...valid.map(distance))).toBeGreaterThan(0);
    expect(Math.min(...valid.map(distance))).toBeLessThanOrEqual(2);
  });
});
