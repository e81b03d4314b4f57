// What the corpus's findings say, field by field: the message, the key path
// and the line of particular broken fixtures, and the built command's text.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempDir } from "../support/cli.ts";
import { CORPUS, checkJson, corpusName, generatedFile } from "../support/corpus.ts";

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

  it("CS-08: a Service annotation key that is no qualified name; a value that is no string is the schema rule's alone", () => {
    const file = join(CORPUS, "compass-server", "broken", "CS-08-annotations.yaml");
    expect(errorsOf(file)).toEqual([
      {
        ruleId: "CS-08",
        line: lineHolding(file, '"load balancer/type": external'),
        path: 'metadata.annotations["load balancer/type"]',
        message: '"load balancer/type" is not a valid annotation key',
      },
      // The API server's validation refuses the key too: rule schema, saying the same at the same field, is left out.
      // A type is the upstream schema's to judge, once.
      {
        ruleId: "schema",
        line: lineHolding(file, "aws-load-balancer-healthcheck-port: 8443"),
        path: 'metadata.annotations["service.beta.kubernetes.io/aws-load-balancer-healthcheck-port"]',
        message: "expected a string, got number 8443",
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
    const lines = readFileSync(file, "utf8").split("\n");
    const hits = lines.flatMap((line, i) => (line.trimEnd().endsWith(text) ? [i + 1] : []));
    expect(hits, `${text} in ${file}`).toHaveLength(1);
    return hits[0];
  };

  const cases: [file: string, text: string, path: string][] = [
    ["CR-09.yaml", "hostUsers: true", "spec.template.spec.hostUsers"],
    ["CR-03.yaml", "audience: compass", "spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken.audience"],
    ["CR-06.yaml", "failurePolicy: Ignore", "spec.failurePolicy"],
    ["CR-05.yaml", "automountServiceAccountToken: true", "automountServiceAccountToken"],
    ["CR-11.yaml", "value: /var/lib/compass/sessions", "spec.template.spec.containers[0].env[4].value"],
    [generatedFile("compass-runner", "G-04.yaml"), "s3cr3t-cache-token", "spec.template.spec.containers[0].env[9].value"],
    [generatedFile("compass-runner", "G-10.yaml"), "enforce: baseline", 'metadata.labels["pod-security.kubernetes.io/enforce"]'],
    ["CR-14.yaml", "ca.crt: |", 'data["ca.crt"]'],
    ["CR-14-server-name.yaml", '"--server-name=compass_example"]', "spec.template.spec.containers[0].args[1]"],
    ["CR-02-flag.yaml", "--server=http://compass.example.com", "spec.template.spec.containers[0].args[0]"],
    ["CR-02-flag-wins.yaml", '"http://compass.example.com", "--egress-allow=api.github.com"]', "spec.template.spec.containers[0].args[1]"],
    ["CR-20-quota-flag.yaml", "--microvm-quota-required=yes", "spec.template.spec.containers[0].args[7]"],
    ["CR-13-pod.yaml", "kubernetes.io/arch: arm64", 'spec.nodeSelector["kubernetes.io/arch"]'],
  ];
  it.each(
    cases.map(([file, text, path]) => [corpusName(resolve(dir, file)), text, resolve(dir, file), path]),
  )("%s: the line of %j", (_name, text, file, path) => {
    const [finding] = checkJson(file).findings;
    const expected = lineOf(file, text);
    expect(finding.path).toBe(path);
    expect(finding.line).toBe(expected);
  });

  it("exact lines for two fixtures, fixed by hand", () => {
    expect(checkJson(join(dir, "CR-09.yaml")).findings.map((f) => [f.line, f.column])).toEqual([[112, 18]]);
    expect(checkJson(join(dir, "CR-13-pod.yaml")).findings.map((f) => [f.line, f.column])).toEqual([[449, 25]]);
  });
});

describe("the built CLI process", () => {
  it("prints SEVERITY  FILE:LINE  RULE-ID  Kind/namespace/name  field  message, then the fix once, and exits 1", () => {
    const file = "test/fixtures/check/compass-runner/broken/CR-09.yaml";
    const result = runCli(["check", file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      `error    ${file}:112  CR-09  DaemonSet/ci-microvms/kvm-runner  spec.template.spec.hostUsers  hostUsers is not false\n\nfix:\n  CR-09  set hostUsers: false in the pod spec, on Kubernetes 1.33 or newer (1.32 with the feature gates UserNamespacesSupport and ProcMountType)\n`,
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
