// Which policies and bindings take a request (src/admission/match.ts), as
// the API server matches them.
import { describe, expect, it } from "vitest";
import { bindsToDeny, matchesRules, namespaceLabels, type RequestShape } from "../../src/admission/match.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";

const request = (subResource: string, extra: Partial<RequestShape> = {}): RequestShape => ({
  operation: "CONNECT",
  group: "",
  version: "v1",
  resource: "pods",
  subResource,
  kind: "PodExecOptions",
  namespace: "ns",
  name: "runner-x",
  ...extra,
});
const rule = (resources: string[], more: Record<string, unknown> = {}) => ({
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT", "CREATE"], resources, ...more }],
});
const labels = { "kubernetes.io/metadata.name": "ns" };

describe("resource rules", () => {
  it.each([["pods/exec"], ["pods/*"], ["*/exec"], ["*/*"]])("a request on pods/exec is taken by %s", (resource) => {
    expect(matchesRules(rule([resource]), request("exec"), labels)).toBe(true);
  });

  it.each([["pods"], ["*"], ["pods/attach"], ["*/attach"]])("a request on pods/exec is not taken by %s", (resource) => {
    expect(matchesRules(rule([resource]), request("exec"), labels)).toBe(false);
  });

  it("a request on the pod itself is taken by pods and *, not by a subresource pattern", () => {
    const create = request("", { operation: "CREATE", kind: "Pod" });
    expect(matchesRules(rule(["pods"]), create, labels)).toBe(true);
    expect(matchesRules(rule(["*"]), create, labels)).toBe(true);
    expect(matchesRules(rule(["pods/*"]), create, labels)).toBe(false);
  });

  it("an operation the rule does not list is not taken", () => {
    expect(matchesRules(rule(["pods/exec"]), request("exec", { operation: "UPDATE" }), labels)).toBe(false);
  });

  it("resourceNames limit the rule to those names", () => {
    expect(matchesRules(rule(["pods/exec"], { resourceNames: ["runner-x"] }), request("exec"), labels)).toBe(true);
    expect(matchesRules(rule(["pods/exec"], { resourceNames: ["other"] }), request("exec"), labels)).toBe(false);
  });

  it("a Cluster-scoped rule never takes a namespaced request", () => {
    expect(matchesRules(rule(["pods/exec"], { scope: "Cluster" }), request("exec"), labels)).toBe(false);
  });

  it("excludeResourceRules take a request back out", () => {
    const match = { ...rule(["pods/*"]), excludeResourceRules: rule(["pods/exec"]).resourceRules };
    expect(matchesRules(match, request("exec"), labels)).toBe(false);
    expect(matchesRules(match, request("attach"), labels)).toBe(true);
  });
});

describe("selectors", () => {
  const namespace: K8sObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns", labels: { tier: "runners" } } };

  it("a namespaceSelector sees the namespace's labels and its name", () => {
    const seen = namespaceLabels(namespace, "ns");
    expect(matchesRules({ ...rule(["pods/exec"]), namespaceSelector: { matchLabels: { tier: "runners" } } }, request("exec"), seen)).toBe(true);
    expect(matchesRules({ ...rule(["pods/exec"]), namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ns" } } }, request("exec"), seen)).toBe(
      true,
    );
    expect(matchesRules({ ...rule(["pods/exec"]), namespaceSelector: { matchLabels: { tier: "other" } } }, request("exec"), seen)).toBe(false);
  });

  it("an objectSelector takes a request whose object or old object it selects", () => {
    const match = { ...rule(["pods"]), objectSelector: { matchLabels: { app: "runner" } } };
    const labelled = { metadata: { labels: { app: "runner" } } };
    expect(matchesRules(match, request("", { operation: "CREATE", object: labelled }), labels)).toBe(true);
    expect(matchesRules(match, request("", { operation: "CREATE", object: {}, oldObject: labelled }), labels)).toBe(true);
    expect(matchesRules(match, request("", { operation: "CREATE", object: {} }), labels)).toBe(false);
  });
});

describe("bindings", () => {
  const policy: K8sObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: rule(["pods/exec"]) },
  };
  const binding = (spec: Record<string, unknown>): K8sObject => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "b" },
    spec: { policyName: "p", ...spec },
  });

  it("a binding without resourceRules leaves the choice to the policy", () => {
    expect(bindsToDeny(policy, [binding({ validationActions: ["Deny"] })], request("exec"), labels)).toBe(true);
    expect(bindsToDeny(policy, [binding({ validationActions: ["Deny"] })], request("attach"), labels)).toBe(false);
  });

  it("a binding that does not list Deny decides nothing", () => {
    expect(bindsToDeny(policy, [binding({ validationActions: ["Audit", "Warn"] })], request("exec"), labels)).toBe(false);
  });

  it("a binding's matchResources narrow the policy's", () => {
    const narrowed = binding({
      validationActions: ["Deny"],
      matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "elsewhere" } } },
    });
    expect(bindsToDeny(policy, [narrowed], request("exec"), labels)).toBe(false);
  });
});
