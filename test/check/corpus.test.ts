// The hand-written manifest corpus: test/fixtures/check/<profile>/valid*.yaml
// pass, every broken/<RULE-ID>[-suffix].yaml raises exactly its rule, and
// every opinion/<RULE-ID>[-suffix].yaml raises exactly its rule as warnings
// only (rigging's own hardening: exit 0, exit 1 with --fail-on warning).
// Profiles are found by globbing, so every profile's fixtures are checked.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import { CATALOG } from "../../src/rules/catalog.ts";
import { ROOT, runCli, runInProcess } from "../support/cli.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check");
const profiles = readdirSync(CORPUS).filter((name) => statSync(join(CORPUS, name)).isDirectory()).sort();

function fixtureFiles(profile: string, kind: "broken" | "opinion"): string[] {
  const dir = join(CORPUS, profile, kind);
  return existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(dir, f)) : [];
}
const brokenFiles = (profile: string) => fixtureFiles(profile, "broken");
const validFiles = (profile: string) => readdirSync(join(CORPUS, profile)).filter((f) => /^valid.*\.ya?ml$/.test(f)).sort().map((f) => join(CORPUS, profile, f));

/**
 * Broken fixtures of the Compass corpora whose rule became rigging's own
 * opinion (a warning): G-06's read-only root filesystem (the Compass
 * Runner's), G-07's label set, G-08's resources, G-09's pull secrets, and a
 * Server namespace enforcing baseline rather than restricted (G-10).
 */
const WARNING_ONLY = new Set([
  "compass-runner/broken/G-06.yaml",
  "compass-runner/broken/G-07.yaml",
  "compass-runner/broken/G-08.yaml",
  "compass-runner/broken/G-09.yaml",
  "compass-server/broken/G-10.yaml",
]);
const corpusName = (file: string) => file.slice(CORPUS.length + 1).split(sep).join("/");

/** `CR-09.yaml` and `CR-09-tag.yaml` both expect CR-09. */
function expectedId(file: string): string {
  const match = /^([A-Z]+-\d+)/.exec(basename(file));
  if (!match) throw new Error(`${file}: a broken fixture is named <RULE-ID>[-suffix].yaml`);
  return match[1];
}

function checkJson(file: string, ...options: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const result = runInProcess(["check", "--format", "json", ...options, file]);
  return { code: result.code, findings: result.code === 2 ? [] : JSON.parse(result.out), err: result.err };
}

it("finds the compass-runner corpus (and any other profile's)", () => {
  expect(profiles).toContain("compass-runner");
});

describe.each(profiles)("corpus %s", (profile) => {
  it.each(validFiles(profile).map((f) => [basename(f), f]))("%s raises no finding and exits 0", (_name, file) => {
    const { code, findings, err } = checkJson(file);
    expect(findings).toEqual([]);
    expect(code, err).toBe(0);
    expect(err).not.toMatch(/not recognised/);
  });

  it.each(validFiles(profile).map((f) => [basename(f), f]))("%s passes strict upstream schema validation", (_name, file) => {
    for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
      const object = doc.toJS();
      expect(validateStrict(object), `${object.kind}/${object.metadata?.name}`).toEqual([]);
    }
  });

  const broken = brokenFiles(profile);
  it.each(broken.map((f) => [basename(f), f]))("broken/%s raises exactly its rule", (_name, file) => {
    const id = expectedId(file);
    const { code, findings, err } = checkJson(file);
    const counted = findings.filter((f) => f.waived === undefined);
    expect(counted.length).toBeGreaterThan(0);
    expect([...new Set(counted.map((f) => f.ruleId))]).toEqual([id]);
    if (WARNING_ONLY.has(corpusName(file))) {
      expect(counted.map((f) => f.severity)).toEqual(counted.map(() => "warning"));
      expect(code, err).toBe(0);
    } else {
      expect(counted.map((f) => f.severity)).toContain("error");
      expect(code, err).toBe(1);
    }
    const lines = readFileSync(file, "utf8").split("\n").length;
    for (const f of findings) expect(f.line).toBeGreaterThanOrEqual(1), expect(f.line).toBeLessThanOrEqual(lines);
  });

  const opinions = fixtureFiles(profile, "opinion");
  it.each(opinions.map((f) => [basename(f), f]))("opinion/%s raises exactly its rule, as warnings: exit 0, exit 1 with --fail-on warning", (_name, file) => {
    const id = expectedId(file);
    const { code, findings, err } = checkJson(file);
    expect(findings.length).toBeGreaterThan(0);
    expect([...new Set(findings.map((f) => f.ruleId))]).toEqual([id]);
    for (const f of findings) {
      expect(f.severity).toBe("warning");
      expect(f.because, "a warning says why rigging asks for it").toMatch(/\w{3}/);
    }
    expect(code, err).toBe(0);
    expect(checkJson(file, "--fail-on", "warning").code).toBe(1);
  });

  it.each(opinions.map((f) => [basename(f), f]))("opinion/%s passes strict upstream schema validation", (_name, file) => {
    for (const doc of parseAllDocuments(readFileSync(file, "utf8"))) {
      const object = doc.toJS();
      expect(validateStrict(object), `${object.kind}/${object.metadata?.name}`).toEqual([]);
    }
  });
});

describe("corpus coverage", () => {
  const fixtures = new Map(profiles.map((p) => [p, new Set([...brokenFiles(p), ...fixtureFiles(p, "opinion")].map(expectedId))]));
  const judged = CATALOG.filter((rule) => !rule.judgedFrom);

  it("every Rootpilot opinion has its opinion/<ID>-<key>.yaml fixture", () => {
    const have = new Set(fixtureFiles("rootpilot-runner", "opinion").map((f) => basename(f, ".yaml")));
    const missing = CATALOG.filter((r) => r.id.startsWith("RP-")).flatMap((r) => Object.keys(r.opinions ?? {}).map((key) => `${r.id}-${key}`)).filter((name) => !have.has(name));
    expect(missing).toEqual([]);
  });

  it("every rule of a profile with a corpus has a broken or opinion fixture in it", () => {
    const missing = judged.flatMap((rule) =>
      rule.id.startsWith("G-") ? [] : rule.profiles.filter((p) => fixtures.has(p) && !fixtures.get(p)!.has(rule.id)).map((p) => `${p}/broken/${rule.id}.yaml`),
    );
    expect(missing).toEqual([]);
  });

  it("every G- rule has a broken fixture in some profile's corpus", () => {
    const all = new Set([...fixtures.values()].flatMap((s) => [...s]));
    expect(judged.filter((r) => r.id.startsWith("G-") && !all.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it("the compass-runner corpus covers every compass-runner rule and G-04 to G-10", () => {
    const have = fixtures.get("compass-runner")!;
    const want = CATALOG.filter((r) => r.profiles.includes("compass-runner") && !r.judgedFrom).map((r) => r.id);
    expect(want).toEqual(expect.arrayContaining(["G-04", "G-05", "G-06", "G-07", "G-08", "G-09", "G-10", "CR-01", "CR-17"]));
    expect(want.filter((id) => !have.has(id))).toEqual([]);
  });
});

describe("line numbers point at the offending field", () => {
  const dir = join(CORPUS, "compass-runner", "broken");
  /** The 1-based number of the only line of `file` that ends with `text`. */
  const lineOf = (file: string, text: string) => {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    const hits = lines.flatMap((line, i) => (line.trimEnd().endsWith(text) ? [i + 1] : []));
    expect(hits, `${text} in ${file}`).toHaveLength(1);
    return hits[0];
  };

  it.each([
    ["CR-09.yaml", "hostUsers: true", "spec.template.spec.hostUsers"],
    ["CR-03.yaml", "audience: compass", "spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken.audience"],
    ["CR-06.yaml", "failurePolicy: Ignore", "spec.failurePolicy"],
    ["CR-05.yaml", "automountServiceAccountToken: true", "automountServiceAccountToken"],
    ["CR-11.yaml", "value: /var/lib/compass/sessions", "spec.template.spec.containers[0].env[2].value"],
    ["G-04.yaml", "s3cr3t-enrollment-value", "spec.template.spec.containers[0].env[5].value"],
    ["G-10.yaml", "enforce: baseline", 'metadata.labels["pod-security.kubernetes.io/enforce"]'],
    ["CR-14.yaml", '"https://compass.example.com"]', "spec.template.spec.containers[0].args[1]"],
  ])("%s: the line of %j", (file, text, path) => {
    const [finding] = checkJson(join(dir, file)).findings;
    const expected = lineOf(file, text);
    expect(finding.path).toBe(path);
    expect(finding.line).toBe(expected);
  });

  it("exact lines for two fixtures, fixed by hand", () => {
    expect(checkJson(join(dir, "CR-09.yaml")).findings.map((f) => [f.line, f.column])).toEqual([[91, 18]]);
    expect(checkJson(join(dir, "G-10.yaml")).findings.map((f) => f.line)).toEqual([18]);
  });
});

describe("the built CLI process", () => {

  it("prints FILE:LINE  RULE-ID  Kind/namespace/name  field  message  (fix) and exits 1", () => {
    const file = "test/fixtures/check/compass-runner/broken/CR-09.yaml";
    const result = runCli(["check", file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe(`${file}:91  CR-09  DaemonSet/ci-microvms/kvm-runner  spec.template.spec.hostUsers  hostUsers is not false  (set hostUsers: false in the pod spec)\n`);
    expect(result.err).toMatch(/1 error\(s\), 0 warning\(s\) in 13 object\(s\) of 1 file\(s\) \(compass-runner\)/);
    expect(result.err).toMatch(/skipped CR-18 \(compass-runner\): not judged from manifests/);
  });

  it("checks the valid set read from stdin and exits 0", () => {
    const result = runCli(["check", "-"], readFileSync(join(CORPUS, "compass-runner", "valid.yaml")));
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  });
});
