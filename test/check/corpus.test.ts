// The hand-written manifest corpus, per profile under test/fixtures/check/<profile>/:
// - every valid*.yaml (valid.yaml, and variants such as valid-flags.yaml)
//   raises no finding at all and exits 0;
// - every broken/<RULE-ID>[-suffix].yaml raises errors of exactly its rule
//   and exits 1; a warning of another rule is allowed only where the
//   fixture's leading comments declare it (`# also warns: CR-20 (...)`);
// - every warn/<RULE-ID>[-suffix].yaml raises warnings of exactly its rule,
//   no error, and exits 0.
// Profiles are found by globbing, so every profile's fixtures are checked.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { CheckFinding } from "../../src/check/run.ts";
import type { K8sObject } from "../../src/core/objects.ts";
import { allRules } from "../../src/rules/catalog.ts";
import { admit, type AdmissionRequest } from "../support/admission.ts";
import { ROOT, runCli, runInProcess, tempDir } from "../support/cli.ts";
import { validateStrict } from "../support/k8s-schema.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check");
const profiles = readdirSync(CORPUS)
  .filter((name) => statSync(join(CORPUS, name)).isDirectory())
  .sort();

function yamlFiles(dir: string, name: RegExp = /\.ya?ml$/): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => name.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}
const validFiles = (profile: string) => yamlFiles(join(CORPUS, profile), /^valid.*\.ya?ml$/);
const brokenFiles = (profile: string) => yamlFiles(join(CORPUS, profile, "broken"));
/** warn/ (rigging's opinions in the Compass corpora) and opinion/ (Rootpilot's): warnings only. */
const warnFiles = (profile: string) => [...yamlFiles(join(CORPUS, profile, "warn")), ...yamlFiles(join(CORPUS, profile, "opinion"))];

/** `CR-09.yaml` and `CR-09-tag.yaml` both expect CR-09. */
function expectedId(file: string): string {
  const match = /^([A-Z]+-\d+)/.exec(basename(file));
  if (!match) throw new Error(`${file}: a broken or warn fixture is named <RULE-ID>[-suffix].yaml`);
  return match[1];
}

/** The leading comment lines of a fixture. */
function header(file: string): string[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const end = lines.findIndex((line) => !line.startsWith("#"));
  return lines.slice(0, end < 0 ? lines.length : end);
}

/** Rules a broken fixture says it also warns about: `# also warns: CR-20 (why)`. */
function declaredWarnings(file: string): string[] {
  const line = header(file).find((l) => l.startsWith("# also warns: "));
  return line ? [...line.matchAll(/\b[A-Z]+-\d+\b/g)].map((m) => m[0]) : [];
}

function checkJson(file: string, ...options: string[]): { code: number; findings: CheckFinding[]; err: string } {
  const result = runInProcess(["check", "--format", "json", ...options, file]);
  return { code: result.code, findings: result.code === 2 ? [] : JSON.parse(result.out), err: result.err };
}

// Waived findings still show in reports but count toward nothing.
const ids = (findings: CheckFinding[], severity: string) =>
  [...new Set(findings.filter((f) => f.severity === severity && f.waived === undefined).map((f) => f.ruleId))].sort();
const objectsOf = (file: string): K8sObject[] => parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS());

it("finds the compass-runner corpus (and any other profile's)", () => {
  expect(profiles).toContain("compass-runner");
});

describe.each(profiles)("corpus %s", (profile) => {
  const valid = validFiles(profile);

  it("has valid.yaml", () => {
    expect(valid.map((f) => basename(f))).toContain("valid.yaml");
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

  const broken = brokenFiles(profile);
  it.each(broken.map((f) => [basename(f), f]))("broken/%s raises exactly its rule and exits 1", (_name, file) => {
    const id = expectedId(file);
    const declared = declaredWarnings(file);
    const { code, findings, err } = checkJson(file);
    expect(code, err).toBe(1);
    expect(ids(findings, "error")).toEqual([id]);
    // Warnings: none but its own rule's and those the fixture declares, each declared one raised.
    expect(ids(findings, "warning").filter((w) => w !== id && !declared.includes(w))).toEqual([]);
    expect(ids(findings, "warning")).toEqual(expect.arrayContaining(declared));
    const lines = readFileSync(file, "utf8").split("\n").length;
    for (const f of findings) expect(f.line).toBeGreaterThanOrEqual(1), expect(f.line).toBeLessThanOrEqual(lines);
  });

  const warned = warnFiles(profile);
  it.each(warned.map((f) => [basename(f), f]))("warn/%s raises warnings of exactly its rule, no error, and exits 0", (_name, file) => {
    const { code, findings, err } = checkJson(file);
    expect(findings.length).toBeGreaterThan(0);
    expect(ids(findings, "error")).toEqual([]);
    expect(ids(findings, "warning")).toEqual([expectedId(file)]);
    for (const f of findings) expect(f.because, "a warning says why rigging asks for it").toMatch(/\w{3}/);
    expect(code, err).toBe(0);
    expect(checkJson(file, "--fail-on", "warning").code).toBe(1);
  });
});

it("every Rootpilot opinion has its opinion/<ID>-<key>.yaml fixture", () => {
  const have = new Set(yamlFiles(join(CORPUS, "rootpilot-runner", "opinion")).map((f) => basename(f, ".yaml")));
  const missing = allRules()
    .filter((r) => r.id.startsWith("RP-"))
    .flatMap((r) => Object.keys(r.opinions ?? {}).map((key) => `${r.id}-${key}`))
    .filter((name) => !have.has(name));
  expect(missing).toEqual([]);
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

  it.each(variants.map((f) => [f.slice(dir.length + 1), f]))("%s says on its first line what it breaks", (_name, file) => {
    const kind = file.includes("/warn/") ? "WARNS" : "BROKEN";
    expect(header(file)[0]).toMatch(new RegExp(`^# ${kind} \\(${expectedId(file)}\\): \\S`));
  });

  it.each(variants.map((f) => [f.slice(dir.length + 1), f]))("%s is one valid set with one object changed, added or removed", (_name, file) => {
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

describe("the rule fixes of the corpus, by what each finding says", () => {
  const dir = join(CORPUS, "compass-runner");
  const only = (file: string) => {
    const { findings } = checkJson(join(dir, file));
    expect(findings).toHaveLength(1);
    return findings[0];
  };

  it('CR-03 flags a Secret volume whose name merely contains "ca"', () => {
    const f = only("broken/CR-03-cache-creds.yaml");
    expect(f.path).toBe("spec.template.spec.volumes[4].secret");
    expect(f.message).toMatch(/Secret volume cache-creds is a second credential/);
  });

  it("CR-03 flags a Secret projected beside the token", () => {
    const f = only("broken/CR-03-projected-secret.yaml");
    expect(f.path).toBe("spec.template.spec.volumes[0].projected.sources[1].secret");
    expect(f.message).toMatch(/Secret sccache-s3 projected into volume token is a second credential/);
  });

  it("CR-03 finds the token where the token-file setting points", () => {
    expect(only("broken/CR-03-token-file.yaml").message).toMatch(/no projected ServiceAccount token is mounted at \/var\/run\/secrets\/compass$/);
  });

  it("CR-13 reports a bare Pod's real arch", () => {
    const f = only("broken/CR-13-pod.yaml");
    expect(f.object.kind).toBe("Pod");
    expect(f.path).toBe('spec.nodeSelector["kubernetes.io/arch"]');
    expect(f.message).toBe("kubernetes.io/arch is arm64, not amd64 alone");
  });

  it("CR-07 counts the hostnames of a required nodeAffinity", () => {
    expect(only("broken/CR-07-affinity.yaml").message).toMatch(/may run on 2 nodes \(metal-07, metal-08\)/);
  });

  it("CR-07: a required nodeAffinity on the arch alone selects every node, an error", () => {
    const f = only("broken/CR-07-arch-only.yaml");
    expect(f.severity).toBe("error");
    expect(f.message).toMatch(/^no node selection: the DaemonSet starts a Runner on every node$/);
  });

  it("CR-07 warns for a node label that cannot prove one node", () => {
    const f = only("warn/CR-07.yaml");
    expect(f.severity).toBe("warning");
    expect(f.path).toBe("spec.template.spec.nodeSelector");
  });

  it("CR-11 reads the container's runAsUser over the pod's", () => {
    const f = only("broken/CR-11-container-uid.yaml");
    expect(f.path).toBe("spec.template.spec.containers[0].securityContext");
    expect(f.message).toMatch(/^runs as 1000:65532, not 65532:65532$/);
  });

  it("CR-02 judges the flag when both the flag and the variable are set (a non-empty flag wins)", () => {
    const f = only("broken/CR-02-flag-wins.yaml");
    expect(f.path).toBe("spec.template.spec.containers[0].args[1]");
    expect(f.message).toMatch(/http:\/\//);
  });

  it("the old COMPASS_SERVER_URL: the address is missing (CR-02 error) and the name is unknown (CR-20 warning with a did-you-mean)", () => {
    const { findings } = checkJson(join(dir, "broken/CR-02-old-name.yaml"));
    expect(findings.map((f) => [f.ruleId, f.severity, f.message])).toEqual([
      ["CR-02", "error", "the Server address is not set (--server / COMPASS_SERVER_ADDR)"],
      ["CR-20", "warning", "COMPASS_SERVER_URL is not a name compass-runner reads (did you mean COMPASS_SERVER_ADDR?)"],
    ]);
  });

  it("CR-20 reads --microvm-quota-required as a Go boolean flag", () => {
    const f = only("broken/CR-20-quota-flag.yaml");
    expect(f.path).toBe("spec.template.spec.containers[0].args[7]");
    expect(f.message).toBe('--microvm-quota-required "yes" is not a boolean');
  });

  it("CR-20 reads --microvm-memory-mb and --microvm-cpus as Go ints: any int64, nothing else", () => {
    const f = only("broken/CR-20-memory-int.yaml");
    expect(f.path).toBe("spec.template.spec.containers[0].args[8]");
    expect(f.message).toBe('--microvm-memory-mb / COMPASS_MICROVM_MEMORY_MB "2Gi" is not an integer');
    const base = readFileSync(join(dir, "valid-flags.yaml"), "utf8");
    const withMemory = (text: string) => {
      const file = join(tempDir(), "runner.yaml");
      writeFileSync(file, base.replace("--microvm-memory-mb=2048", `--microvm-memory-mb=${text}`));
      // CR-19 judges the size against the memory limit; CR-20 judges the text.
      return checkJson(file)
        .findings.filter((finding) => finding.ruleId === "CR-20")
        .map((finding) => finding.message);
    };
    // Ten digits and a sign are what strconv.Atoi reads; past int64 it fails startup.
    expect(withMemory("1000000000")).toEqual([]);
    expect(withMemory("+2048")).toEqual([]);
    expect(withMemory("9223372036854775807")).toEqual([]);
    expect(withMemory("9223372036854775808")).toEqual([
      '--microvm-memory-mb / COMPASS_MICROVM_MEMORY_MB "9223372036854775808" is out of range for a 64-bit integer',
    ]);
    expect(withMemory(`00${"9".repeat(30)}`)).toEqual([
      `--microvm-memory-mb / COMPASS_MICROVM_MEMORY_MB "00${"9".repeat(30)}" is out of range for a 64-bit integer`,
    ]);
    expect(withMemory("2048.0")).toEqual(['--microvm-memory-mb / COMPASS_MICROVM_MEMORY_MB "2048.0" is not an integer']);
  });
});

describe("the valid Runner sets' admission policies decide as CR-06 asks (real CEL engine)", () => {
  const NS = "ci-microvms";
  const people = {
    user: { user: "alice", groups: ["system:authenticated"] },
    deployer: { user: "system:serviceaccount:argocd:argocd-application-controller", groups: ["system:serviceaccounts"] },
    controller: { user: "system:serviceaccount:kube-system:daemon-set-controller", groups: ["system:serviceaccounts"] },
    admin: { user: "root-admin", groups: ["system:masters", "system:authenticated"] },
    kubelet: { user: "system:node:metal-07", groups: ["system:nodes", "system:authenticated"] },
    gc: { user: "system:serviceaccount:kube-system:generic-garbage-collector", groups: ["system:serviceaccounts"] },
  };
  type Who = keyof typeof people;
  const requests: [string, Omit<AdmissionRequest, "user" | "groups">, Who[]][] = [
    ["exec", { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "exec", namespace: NS, name: "kvm-runner-x7k2p" }, ["admin"]],
    ["attach", { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "attach", namespace: NS, name: "kvm-runner-x7k2p" }, ["admin"]],
    [
      "debug",
      { operation: "UPDATE", group: "", version: "v1", resource: "pods", subResource: "ephemeralcontainers", namespace: NS, name: "kvm-runner-x7k2p" },
      ["admin"],
    ],
    ["pod create", { operation: "CREATE", group: "", version: "v1", resource: "pods", namespace: NS, name: "kvm-runner-x7k2p" }, ["controller"]],
    ["DaemonSet update", { operation: "UPDATE", group: "apps", version: "v1", resource: "daemonsets", namespace: NS, name: "kvm-runner" }, ["deployer", "gc"]],
    ["DaemonSet create", { operation: "CREATE", group: "apps", version: "v1", resource: "daemonsets", namespace: NS, name: "kvm-runner" }, ["deployer"]],
    [
      "token request",
      { operation: "CREATE", group: "", version: "v1", resource: "serviceaccounts", subResource: "token", namespace: NS, name: "kvm-runner" },
      ["kubelet", "admin"],
    ],
    [
      "exec elsewhere",
      { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "exec", namespace: "default", name: "web-1" },
      Object.keys(people) as Who[],
    ],
  ];
  const withPolicies = validFiles("compass-runner").filter((f) => objectsOf(f).some((o) => o.kind === "ValidatingAdmissionPolicy"));

  it.each(
    withPolicies.flatMap((f) => requests.map(([what, req, allowed]) => [basename(f), what, f, req, allowed] as const)),
  )("%s: %s", (_name, _what, file, req, allowed) => {
    const objects = objectsOf(file);
    const decided = (Object.keys(people) as Who[]).filter((who) => admit(objects, { ...req, ...people[who] }).allowed);
    expect(decided.sort()).toEqual([...allowed].sort());
  });
});

describe("corpus coverage", () => {
  const fixtures = new Map(profiles.map((p) => [p, new Set([...brokenFiles(p), ...warnFiles(p)].map(expectedId))]));
  const judged = allRules().filter((rule) => !rule.judgedFrom);

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
    const want = allRules()
      .filter((r) => r.profiles.includes("compass-runner") && !r.judgedFrom)
      .map((r) => r.id);
    expect(want).toEqual(expect.arrayContaining(["G-04", "G-05", "G-06", "G-07", "G-08", "G-09", "G-10", "CR-01", "CR-17"]));
    expect(want.filter((id) => !have.has(id))).toEqual([]);
  });
});

describe("what the API server itself refuses, found by check", () => {
  /** The 1-based number of the only line of `file` that holds `text`. */
  const lineHolding = (file: string, text: string) => {
    const hits = readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (line.includes(text) ? [i + 1] : []));
    expect(hits, `${text} in ${file}`).toHaveLength(1);
    return hits[0];
  };
  const errorsOf = (file: string) =>
    checkJson(file)
      .findings.filter((f) => f.severity === "error")
      .map((f) => ({ ruleId: f.ruleId, line: f.line, path: f.path, message: f.message }));

  it("CS-08: a Service annotation key that is no qualified name, and a value that is no string", () => {
    const file = join(CORPUS, "compass-server", "broken", "CS-08-annotations.yaml");
    expect(errorsOf(file)).toEqual([
      {
        ruleId: "CS-08",
        line: lineHolding(file, '"load balancer/type": external'),
        path: 'metadata.annotations["load balancer/type"]',
        message: '"load balancer/type" is not a valid annotation key',
      },
      {
        ruleId: "CS-08",
        line: lineHolding(file, "aws-load-balancer-healthcheck-port: 8443"),
        path: 'metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-healthcheck-port"]',
        message: 'the value of annotation "service.beta.kubernetes.io/aws-load-balancer-healthcheck-port" is not a string; quote it',
      },
    ]);
    // The file:line of the built command's text report.
    const result = runCli(["check", file]);
    expect(result.out).toContain(
      `${file}:${lineHolding(file, '"load balancer/type"')}  CS-08  Service/compass-prod/compass  metadata.annotations["load balancer/type"]`,
    );
  });

  it("CR-06: a policy expression whose estimated cost is over the API server's per-expression limit, at the expression", () => {
    const file = join(CORPUS, "compass-runner", "broken", "CR-06-cel-cost.yaml");
    // The folded expression's text starts on the line after `- expression: >-`.
    const expression = lineHolding(file, "31].all(a, [0, 1,") - 1;
    const cost = errorsOf(file).filter((f) => f.path === "spec.validations[0].expression");
    expect(cost).toEqual([
      {
        ruleId: "CR-06",
        line: expression,
        path: "spec.validations[0].expression",
        message:
          "does not compile (its estimated cost is over the API server's limit of 1000000 per expression (nested comprehensions multiply)): the API server refuses the policy",
      },
    ]);
    // What the refused policy guarded is reported as unguarded, under the same rule.
    expect(new Set(errorsOf(file).map((f) => f.ruleId))).toEqual(new Set(["CR-06"]));
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
    ["CR-11.yaml", "value: /var/lib/compass/sessions", "spec.template.spec.containers[0].env[4].value"],
    ["G-04.yaml", "s3cr3t-cache-key", "spec.template.spec.containers[0].env[8].value"],
    ["G-10.yaml", "enforce: baseline", 'metadata.labels["pod-security.kubernetes.io/enforce"]'],
    ["CR-14.yaml", "ca.crt: |", 'data["ca.crt"]'],
    ["CR-14-server-name.yaml", '"--server-name=compass_example"]', "spec.template.spec.containers[0].args[1]"],
    ["CR-02-flag.yaml", "--server=http://compass.example.com", "spec.template.spec.containers[0].args[0]"],
    ["CR-02-flag-wins.yaml", '"http://compass.example.com", "--egress-allow=api.github.com"]', "spec.template.spec.containers[0].args[1]"],
    ["CR-20-quota-flag.yaml", "--microvm-quota-required=yes", "spec.template.spec.containers[0].args[7]"],
    ["CR-13-pod.yaml", "kubernetes.io/arch: arm64", 'spec.nodeSelector["kubernetes.io/arch"]'],
  ])("%s: the line of %j", (file, text, path) => {
    const [finding] = checkJson(join(dir, file)).findings;
    const expected = lineOf(file, text);
    expect(finding.path).toBe(path);
    expect(finding.line).toBe(expected);
  });

  it("exact lines for two fixtures, fixed by hand", () => {
    expect(checkJson(join(dir, "CR-09.yaml")).findings.map((f) => [f.line, f.column])).toEqual([[112, 18]]);
    expect(checkJson(join(dir, "G-10.yaml")).findings.map((f) => [f.line, f.column])).toEqual([[15, 41]]);
  });
});

describe("the built CLI process", () => {
  it("prints SEVERITY  FILE:LINE  RULE-ID  Kind/namespace/name  field  message, then the fix once, and exits 1", () => {
    const file = "test/fixtures/check/compass-runner/broken/CR-09.yaml";
    const result = runCli(["check", file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      `error    ${file}:112  CR-09  DaemonSet/ci-microvms/kvm-runner  spec.template.spec.hostUsers  hostUsers is not false\n\nfix:\n  CR-09  set hostUsers: false in the pod spec\n`,
    );
    expect(result.err).toMatch(/1 error\(s\), 0 warning\(s\) in 14 object\(s\) of 1 file\(s\) \(compass-runner\)/);
    expect(result.err).toMatch(/skipped CR-18 \(compass-runner\): not judged from manifests/);
  });

  it.each(["valid.yaml", "valid-flags.yaml"])("checks %s read from stdin and exits 0", (name) => {
    const result = runCli(["check", "-"], readFileSync(join(CORPUS, "compass-runner", name)));
    expect(result.out).toBe("");
    expect(result.err).toMatch(/0 error\(s\), 0 warning\(s\)/);
    expect(result.code).toBe(0);
  });

  it("a warning alone exits 0 and still prints its finding", () => {
    const file = "test/fixtures/check/compass-runner/warn/CR-07.yaml";
    const result = runCli(["check", file]);
    expect(result.out).toMatch(
      new RegExp(
        `^warning  ${file}:\\d+  CR-07  DaemonSet/ci-microvms/kvm-runner  spec\\.template\\.spec\\.nodeSelector  the node selection cannot prove one node`,
      ),
    );
    expect(result.err).toMatch(/0 error\(s\), 1 warning\(s\)/);
    expect(result.code).toBe(0);
  });
});
