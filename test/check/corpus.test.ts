// The hand-written manifest corpus: test/fixtures/check/<profile>/valid.yaml
// passes, and every broken/<RULE-ID>[-suffix].yaml raises exactly its rule.
// Profiles are found by globbing, so every profile's fixtures are checked.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import { CATALOG } from "../../src/rules/catalog.ts";
import { ROOT, runCli, runInProcess } from "../support/cli.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check");
const profiles = readdirSync(CORPUS).filter((name) => statSync(join(CORPUS, name)).isDirectory()).sort();

function brokenFiles(profile: string): string[] {
  const dir = join(CORPUS, profile, "broken");
  return existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(dir, f)) : [];
}

/** `CR-09.yaml` and `CR-09-tag.yaml` both expect CR-09. */
function expectedId(file: string): string {
  const match = /^([A-Z]+-\d+)/.exec(basename(file));
  if (!match) throw new Error(`${file}: a broken fixture is named <RULE-ID>[-suffix].yaml`);
  return match[1];
}

function checkJson(file: string): { code: number; findings: CheckFinding[]; err: string } {
  const result = runInProcess(["check", "--format", "json", file]);
  return { code: result.code, findings: result.code === 2 ? [] : JSON.parse(result.out), err: result.err };
}

it("finds the compass-runner corpus (and any other profile's)", () => {
  expect(profiles).toContain("compass-runner");
});

describe.each(profiles)("corpus %s", (profile) => {
  const valid = join(CORPUS, profile, "valid.yaml");

  it("valid.yaml raises no finding and exits 0", () => {
    const { code, findings, err } = checkJson(valid);
    expect(findings).toEqual([]);
    expect(code, err).toBe(0);
    expect(err).not.toMatch(/not recognised/);
  });

  it("valid.yaml passes strict upstream schema validation", () => {
    for (const doc of parseAllDocuments(readFileSync(valid, "utf8"))) {
      const object = doc.toJS();
      expect(validateStrict(object), `${object.kind}/${object.metadata?.name}`).toEqual([]);
    }
  });

  const broken = brokenFiles(profile);
  it.each(broken.map((f) => [basename(f), f]))("broken/%s raises exactly its rule and exits 1", (_name, file) => {
    const id = expectedId(file);
    const { code, findings, err } = checkJson(file);
    expect(code, err).toBe(1);
    expect(findings.length).toBeGreaterThan(0);
    expect([...new Set(findings.map((f) => f.ruleId))]).toEqual([id]);
    const lines = readFileSync(file, "utf8").split("\n").length;
    for (const f of findings) expect(f.line).toBeGreaterThanOrEqual(1), expect(f.line).toBeLessThanOrEqual(lines);
  });
});

describe("corpus coverage", () => {
  const fixtures = new Map(profiles.map((p) => [p, new Set(brokenFiles(p).map(expectedId))]));
  const judged = CATALOG.filter((rule) => !rule.judgedFrom);

  it("every rule of a profile with a corpus has a broken fixture in it", () => {
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
