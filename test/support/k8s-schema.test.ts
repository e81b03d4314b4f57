// Proves the strict validator in test/support/k8s-schema.ts itself works, so that other
// tests can trust "zero problems" to mean "schema-valid, no unknown fields".
import { describe, it, expect } from "vitest";
import { kubernetesSchemaVersion, validateStrict } from "./k8s-schema.ts";

const labels = { "app.kubernetes.io/name": "demo" };
const container = () => ({
  name: "main",
  image: "registry.example/demo:1.0",
  securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
  resources: { limits: { cpu: "500m", memory: "128Mi" } },
});
const podSpec = () => ({
  hostUsers: false,
  securityContext: {
    runAsNonRoot: true,
    seccompProfile: { type: "Localhost", localhostProfile: "x.json" },
  },
  containers: [container()],
});
const daemonSet = () => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name: "demo", namespace: "demo", labels, annotations: { "example.com/a": "b" } },
  spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec() } },
});
const deployment = () => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "demo", namespace: "demo" },
  spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec() } },
});

/** Shorthand: only the JSON pointers of the problems. */
const paths = (obj: unknown) => validateStrict(obj).map((p) => p.path);

describe("validateStrict accepts valid objects", () => {
  const valid: Record<string, unknown> = {
    DaemonSet: daemonSet(),
    Deployment: deployment(),
    ServiceAccount: {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "demo", namespace: "demo" },
      automountServiceAccountToken: false,
    },
    NetworkPolicy: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "deny", namespace: "demo" },
      spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
    },
    ValidatingAdmissionPolicy: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "policy" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
        },
        validations: [{ expression: "true" }],
      },
    },
    ValidatingAdmissionPolicyBinding: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "policy-binding" },
      spec: { policyName: "policy", validationActions: ["Deny"] },
    },
    Pod: { apiVersion: "v1", kind: "Pod", metadata: { name: "demo", namespace: "demo" }, spec: podSpec() },
  };
  for (const [kind, obj] of Object.entries(valid)) {
    it(`accepts a minimal ${kind}`, () => expect(validateStrict(obj)).toEqual([]));
  }
});

describe("validateStrict rejects unknown fields with the exact JSON pointer", () => {
  it("at top level", () => expect(paths({ ...daemonSet(), bogus: 1 })).toEqual(["/bogus"]));

  it("inside metadata", () => {
    const ds = daemonSet();
    Object.assign(ds.metadata, { bogus: 1 });
    expect(paths(ds)).toEqual(["/metadata/bogus"]);
  });

  it("inside a container", () => {
    const ds = daemonSet();
    Object.assign(ds.spec.template.spec.containers[0], { bogus: 1 });
    expect(paths(ds)).toEqual(["/spec/template/spec/containers/0/bogus"]);
  });

  it("inside container and pod securityContexts (and the seccompProfile)", () => {
    const ds = daemonSet();
    Object.assign(ds.spec.template.spec.containers[0].securityContext, { privileged2: false });
    Object.assign(ds.spec.template.spec.securityContext, { runAsNonRot: true });
    Object.assign(ds.spec.template.spec.securityContext.seccompProfile, { profile: "x" });
    expect(paths(ds).sort()).toEqual([
      "/spec/template/spec/containers/0/securityContext/privileged2",
      "/spec/template/spec/securityContext/runAsNonRot",
      "/spec/template/spec/securityContext/seccompProfile/profile",
    ]);
  });

  it("escapes '/' and '~' in keys per RFC 6901, and names the field", () => {
    const problems = validateStrict({ ...daemonSet(), "a/b~c": 1 });
    expect(problems).toEqual([{ path: "/a~1b~0c", message: expect.stringContaining('unknown field "a/b~c"') }]);
  });
});

describe("validateStrict rejects upstream schema violations", () => {
  it('a wrong type (replicas: "1")', () => {
    const problems = validateStrict({ ...deployment(), spec: { ...deployment().spec, replicas: "1" } });
    expect(problems).toEqual([{ path: "/spec/replicas", message: expect.stringContaining("integer") }]);
  });

  it("a container without a name", () => {
    const ds = daemonSet();
    delete (ds.spec.template.spec.containers[0] as { name?: string }).name;
    expect(validateStrict(ds)).toEqual([{ path: "/spec/template/spec/containers/0", message: expect.stringContaining("name") }]);
  });

  it("a DaemonSet spec without selector", () => {
    const ds = daemonSet();
    delete (ds.spec as { selector?: unknown }).selector;
    expect(validateStrict(ds)).toEqual([{ path: "/spec", message: expect.stringContaining("selector") }]);
  });

  it("an invalid enum value", () => {
    const ds = daemonSet();
    ds.spec.template.spec.securityContext.seccompProfile.type = "Localhst";
    expect(paths(ds)).toEqual(["/spec/template/spec/securityContext/seccompProfile/type"]);
  });
});

describe("validateStrict rejects unknown kinds", () => {
  it.each([
    [{ apiVersion: "apps/v1", kind: "Bogus" }, "apps/v1/Bogus"],
    [{ apiVersion: "v1", kind: "Deployment" }, "v1/Deployment"],
    [{ apiVersion: "admissionregistration.k8s.io/v1beta1", kind: "ValidatingAdmissionPolicy" }, "v1beta1"],
    [{ kind: "Pod" }, "undefined/Pod"],
  ])("%j", (obj, id) => {
    expect(validateStrict(obj)).toEqual([{ path: "", message: expect.stringContaining(`no schema for`) }]);
    expect(validateStrict(obj)[0].message).toContain(id);
  });
  it("a non-object", () => expect(validateStrict("kind: Pod")).toHaveLength(1));
});

describe("kubernetesSchemaVersion", () => {
  it("names both packages and client-node's upstream OpenAPI version", () => {
    const v = kubernetesSchemaVersion();
    expect(v).toMatch(/kubernetes-models@\d+\.\d+\.\d+/);
    expect(v).toMatch(/@kubernetes\/client-node@\d+\.\d+\.\d+ \(Kubernetes OpenAPI v1\.\d+\.\d+\)/);
  });
});
