// The schema judges values as the API server decodes them (issue 39, schema
// findings): required fields set to null or left empty, quantity syntax, the
// upstream formats (byte, int32, int64, date-time), typed-list items, and
// YAML of other tools that is not Kubernetes. Each case is a rendered example
// edited, in both directions: the broken value is caught, a correct one is not.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kubeIndex, type SchemaHit, schemaHits } from "../../src/check/kube-schema.ts";
import { quantityProblem } from "../../src/check/kube-formats.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { renderFile } from "../../src/pipeline.ts";
import { runInProcess, tempDir, tempFile } from "../support/cli.ts";

const known = kubeIndex()!;
const NEWEST = known.default;

/** A fresh copy of the first rendered object of a kind (examples/, rendered as `rigging render` does). */
function rendered(kind: string, example = "compass-server.yaml"): any {
  const object = renderFile(`examples/${example}`, { notes: false }).objects.find((o) => o.kind === kind);
  if (!object) throw new Error(`examples/${example} renders no ${kind}`);
  return structuredClone(object);
}

const hits = (object: unknown, version = NEWEST) => schemaHits([object as K8sObject], version, known).hits;
const shown = (list: SchemaHit[]) => list.map((h) => `${h.path.join(".")}: ${h.message}`);

describe("a required field written but unset", () => {
  it("containers: null and containers: [] are errors at the field; the rendered containers are not", () => {
    const deployment = rendered("Deployment");
    expect(hits(deployment)).toEqual([]);
    deployment.spec.template.spec.containers = null;
    expect(shown(hits(deployment))).toEqual(['spec.template.spec.containers: required field "containers" is null (V1PodSpec): Kubernetes reads null as unset']);
    deployment.spec.template.spec.containers = [];
    expect(shown(hits(deployment))).toEqual([
      'spec.template.spec.containers: required field "containers" is an empty list (V1PodSpec): Kubernetes refuses it without at least one entry',
    ]);
  });

  it("a required leaf set to null (a container's name, a selector) is caught; an optional one set to null is unset", () => {
    const deployment = rendered("Deployment");
    deployment.spec.selector = null;
    deployment.spec.template.spec.containers[0].name = null;
    deployment.spec.template.spec.containers[0].workingDir = null;
    expect(shown(hits(deployment)).map((h) => h.split(":")[0])).toEqual(["spec.selector", "spec.template.spec.containers.0.name"]);
  });

  it("validationActions: [] is refused, one action is not; an empty mapping (podSelector: {}) is never empty", () => {
    const binding = rendered("ValidatingAdmissionPolicyBinding", "compass-runner.yaml");
    expect(hits(binding)).toEqual([]);
    binding.spec.validationActions = [];
    expect(shown(hits(binding))).toEqual([expect.stringMatching(/^spec\.validationActions: required field "validationActions" is an empty list/)]);
    const policy = rendered("NetworkPolicy");
    policy.spec.podSelector = {};
    expect(hits(policy)).toEqual([]);
  });

  it("only what the version's schema requires: podSelector: null is an error at 1.33, where it is required, not at 1.36", () => {
    const policy = rendered("NetworkPolicy");
    policy.spec.podSelector = null;
    expect(shown(hits(policy, "1.33"))).toEqual([expect.stringMatching(/^spec\.podSelector: required field "podSelector" is null/)]);
    expect(hits(policy, "1.36")).toEqual([]);
  });

  it("an empty required list Kubernetes accepts (LimitRange limits) is not flagged", () => {
    const limits = { apiVersion: "v1", kind: "LimitRange", metadata: { name: "l" }, spec: { limits: [] } };
    expect(hits(limits)).toEqual([]);
  });
});

describe("quantities by resource.Quantity's grammar", () => {
  const withMemory = (memory: unknown) => {
    const deployment = rendered("Deployment");
    deployment.spec.template.spec.containers[0].resources.limits.memory = memory;
    // The request then defaults to the limit: a request above a small limit is another refusal.
    delete deployment.spec.template.spec.containers[0].resources.requests.memory;
    return hits(deployment);
  };

  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style variable left in a manifest, read literally
  it.each(["512MB", "${VAR}", "1.5.0", "", "1e", "1K", "1ki", "0x10", "1_000", "1 Gi", "1Gi\n", "\t1"])("%j is an error at the field", (memory) => {
    expect(shown(withMemory(memory))).toEqual([
      `spec.template.spec.containers.0.resources.limits.memory: ${JSON.stringify(memory)} is not a quantity: Kubernetes reads a number with an optional suffix (500m, 128Mi, 2Gi, 1e3)`,
    ]);
  });

  it.each(["1Gi", "500m", "1e3", "0.5", "+1", " 1Gi ", "1Gi\u00a0", "1E", "1e+3", "1.5Gi", ".5", "1.G", 2, 0.5])("%j is a quantity", (memory) => {
    expect(withMemory(memory)).toEqual([]);
  });

  it("the grammar reads a long text in linear time", () => {
    const started = performance.now();
    for (const text of [`${"1".repeat(1_000_000)}x`, `1e${"1".repeat(1_000_000)}!`, `.${"5".repeat(1_000_000)}Kix`])
      expect(quantityProblem(text)).toBeDefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("the upstream formats: byte, int32, int64, date-time", () => {
  /** The rendered ConfigMap as a Secret: the same data, base64-encoded as Secret.data holds it. */
  const secret = () => {
    const map = rendered("ConfigMap");
    const data = Object.fromEntries(Object.entries(map.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
    return { ...map, kind: "Secret", data };
  };

  it("Secret.data in base64 passes, also over lines (Go skips \\r and \\n); other text is an error", () => {
    const good = secret();
    expect(hits(good)).toEqual([]);
    const key = Object.keys(good.data)[0];
    const wrapped = good.data[key].replace(/(.{4})/g, "$1\n");
    expect(hits({ ...good, data: { [key]: wrapped, empty: "" } })).toEqual([]);
    for (const bad of ["abc", "-_-_", "YQ", "YW Jj", "YWJj\u2028!!", "plain text"])
      expect(shown(hits({ ...good, data: { [key]: bad } }))).toEqual([
        `data.${key}: ${JSON.stringify(bad)} is not base64 (the standard alphabet, padded with =; stringData takes plain text)`,
      ]);
  });

  it("ConfigMap.binaryData and a webhook's caBundle are base64 too", () => {
    const map = rendered("ConfigMap");
    expect(shown(hits({ ...map, binaryData: { blob: "not base64!" } }))).toEqual([expect.stringMatching(/^binaryData\.blob: "not base64!" is not base64/)]);
    expect(hits({ ...map, binaryData: { blob: Buffer.from("bytes").toString("base64") } })).toEqual([]);
    const webhook = (caBundle: string) => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "w" },
      webhooks: [{ name: "w.example.com", clientConfig: { url: "https://w.example.com", caBundle }, sideEffects: "None", admissionReviewVersions: ["v1"] }],
    });
    expect(shown(hits(webhook("-----BEGIN CERTIFICATE-----")))).toEqual([expect.stringMatching(/^webhooks\.0\.clientConfig\.caBundle: .* is not base64/)]);
    expect(hits(webhook(Buffer.from("-----BEGIN CERTIFICATE-----").toString("base64")))).toEqual([]);
  });

  it("int32 and int64 ranges: replicas 2^31 and a port 2^32 are errors; 2^31-1 and a grace period of 2^53 are not", () => {
    const deployment = rendered("Deployment");
    const spec = deployment.spec.template.spec;
    deployment.spec.replicas = 2 ** 31 - 1;
    spec.terminationGracePeriodSeconds = 2 ** 53;
    expect(hits(deployment)).toEqual([]);
    deployment.spec.replicas = 2 ** 31;
    spec.containers[0].ports = [{ containerPort: 2 ** 32 }];
    spec.terminationGracePeriodSeconds = 1e19;
    expect(shown(hits(deployment))).toEqual([
      "spec.replicas: 2147483648 is not an int32, from -2147483648 to 2147483647",
      "spec.template.spec.containers.0.ports.0.containerPort: 4294967296 is not an int32, from -2147483648 to 2147483647",
      "spec.template.spec.terminationGracePeriodSeconds: 10000000000000000000 is not an int64, from -2^63 to 2^63-1",
    ]);
  });

  it("an int-or-string integer is an int32 (IntOrString's IntVal): maxSurge 2^31 is an error, 2^31-1 and a percentage are not", () => {
    const deployment = rendered("Deployment");
    deployment.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 2 ** 31 - 1, maxUnavailable: "25%" } };
    expect(hits(deployment)).toEqual([]);
    deployment.spec.strategy.rollingUpdate.maxSurge = 2 ** 31;
    expect(shown(hits(deployment))).toEqual(["spec.strategy.rollingUpdate.maxSurge: 2147483648 is not an int32, from -2147483648 to 2147483647"]);
  });

  it.each(["2024-01-31T12:00:00Z", "2024-02-29T12:00:00.123456789+01:00", null])("creationTimestamp %j is a time", (time) => {
    const map = rendered("ConfigMap");
    map.metadata.creationTimestamp = time;
    expect(hits(map)).toEqual([]);
  });

  it.each([
    "2024-01-01 00:00:00Z",
    "2024-01-01t00:00:00z",
    "2024-02-30T00:00:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T00:00:00+0100",
    "2024-01-01",
    "yesterday",
  ])("creationTimestamp %j is an error, as Go's time.Parse(RFC3339) refuses it", (time) => {
    const map = rendered("ConfigMap");
    map.metadata.creationTimestamp = time;
    expect(shown(hits(map))).toEqual([`metadata.creationTimestamp: ${JSON.stringify(time)} is not an RFC 3339 time such as 2024-01-31T12:00:00Z`]);
  });
});

/** `rigging check --format json` of a file, at the newest version. */
const check = (file: string, ...more: string[]) => {
  const r = runInProcess(["check", "--format", "json", "--kube-version", NEWEST, ...more, file]);
  return {
    code: r.code,
    err: r.err,
    findings: r.out ? (JSON.parse(r.out) as { ruleId: string; severity: string; line?: number; path: string; message: string }[]) : [],
  };
};

describe("typed-list items take apiVersion and kind from their list", () => {
  /** The rendered Deployment as the item of a DeploymentList, without apiVersion and kind, as the API server lists them. */
  const listed = (edit: (item: any) => void = () => {}) => {
    const { apiVersion, kind, ...item } = rendered("Deployment");
    edit(item);
    return JSON.stringify({ apiVersion, kind: `${kind}List`, items: [item] }, null, 2);
  };

  it("an apps/v1 DeploymentList's item is judged as an apps/v1 Deployment, and its findings placed at its lines", () => {
    const clean = check(tempFile(listed(), "list.json"));
    expect(clean.err).not.toMatch(/not a Kubernetes object/);
    expect(clean.findings.filter((f) => f.ruleId === "schema")).toEqual([]);
    const text = listed((item) => (item.spec.replicas = "3"));
    const broken = check(tempFile(text, "list.json"));
    const line = text.split("\n").findIndex((l) => l.includes('"replicas"')) + 1;
    expect(broken.findings.filter((f) => f.ruleId === "schema")).toEqual([
      expect.objectContaining({ severity: "error", path: "spec.replicas", line, message: 'expected an integer, got string "3"' }),
    ]);
  });

  it("an item of `kind: List`, or one that names only its apiVersion, still has no kind", () => {
    const { kind: _kind, ...item } = rendered("Deployment");
    for (const list of [
      { apiVersion: "v1", kind: "List", items: [{ metadata: item.metadata }] },
      { apiVersion: "apps/v1", kind: "DeploymentList", items: [item] },
    ]) {
      const r = check(tempFile(JSON.stringify(list, null, 2), "list.json"));
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/items\[0\] is not a Kubernetes object: no (apiVersion and )?kind$/m);
    }
  });
});

describe("YAML of another tool, with a dotless apiVersion no Kubernetes serves", () => {
  const skaffold = { apiVersion: "skaffold/v4beta6", kind: "Config", metadata: { name: "app" }, build: { artifacts: [{ image: "app" }] } };
  const note = { apiVersion: "release-notes/v2", kind: "bug-fix", area: "traffic-management", releaseNotes: ["Fixed a bug."] };

  it("is not Kubernetes: no error; served groups and removed built-ins stay Kubernetes", () => {
    const { hits: found, unchecked, foreign } = schemaHits([skaffold, note] as unknown as K8sObject[], NEWEST, known);
    expect([found, unchecked, foreign.map((o) => o.kind)]).toEqual([[], [], ["Config", "bug-fix"]]);
    const builtIn = [
      { apiVersion: "v1", kind: "Config" },
      { apiVersion: "apps/v1", kind: "Config" },
      { apiVersion: "extensions/v1beta1", kind: "Deployment" },
      { apiVersion: "policy/v1beta1", kind: "PodSecurityPolicy" },
    ].map((o) => ({ ...o, metadata: { name: "x" } }));
    const judged = schemaHits(builtIn as K8sObject[], NEWEST, known);
    expect(judged.foreign).toEqual([]);
    expect(judged.hits.map((h) => `${h.severity} ${h.path.join(".")}`)).toEqual(Array(4).fill("error apiVersion"));
  });

  it("a walk skips its files as not Kubernetes objects, beside a rendered manifest it checks", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "skaffold.yaml"), JSON.stringify(skaffold));
    writeFileSync(join(dir, "fix-1234.yaml"), JSON.stringify(note));
    writeFileSync(join(dir, "namespace.json"), JSON.stringify(rendered("Namespace")));
    const r = runInProcess(["check", "--kube-version", NEWEST, dir]);
    expect(r.out).not.toMatch(/^error/m);
    expect(`${r.out}\n${r.err}`).toMatch(/2 not Kubernetes objects/);
    expect(r.code).toBe(0);
  });

  it("in a file beside Kubernetes objects, it is no error: only not recognised, as without --kube-version", () => {
    const text = [rendered("Namespace"), skaffold].map((o) => JSON.stringify(o)).join("\n---\n");
    const file = tempFile(text, "mixed.yaml");
    expect(check(file).findings).toEqual([]);
    const r = runInProcess(["check", "--kube-version", NEWEST, file]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^skipped +\S+mixed\.yaml:3 Config\/app: not recognised as any profile/m);
  });
});

describe("the bundled schemas carry the upstream formats", () => {
  it("Secret.data is byte, ContainerPort.containerPort int32, ObjectMeta.creationTimestamp date-time, at every version", () => {
    for (const version of Object.keys(known.versions)) {
      const types = JSON.parse(readFileSync(join("kube-schemas", `${version}.json`), "utf8")).types;
      expect([types.V1Secret.x.data, types.V1ContainerPort.x.containerPort, types.V1ObjectMeta.x.creationTimestamp]).toEqual(["byte", "int32", "date-time"]);
    }
  });
});
