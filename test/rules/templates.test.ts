// The shared check templates, on the shapes Kubernetes and the programs accept.
import { describe, expect, it } from "vitest";
import type { Container } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { isolationGaps, projectedToken } from "../../src/rules/templates.ts";
import { selects } from "../../src/k8s/access.ts";

const c = (container: Partial<Container>): Container => ({ name: "c", ...container });

describe("selects: matchLabels and matchExpressions", () => {
  const labels = { app: "runner", tier: "ci" };
  it.each([
    [{}, true],
    [{ matchLabels: { app: "runner" } }, true],
    [{ matchLabels: { app: "other" } }, false],
    [{ matchExpressions: [{ key: "tier", operator: "In", values: ["ci", "cd"] }] }, true],
    [{ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["ci"] }] }, false],
    [{ matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, true],
    [{ matchExpressions: [{ key: "app", operator: "Exists" }] }, true],
    [{ matchExpressions: [{ key: "app", operator: "Bogus" }] }, false],
    ["not a selector", false],
  ])("%j selects: %s", (selector, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });
});

describe("isolationGaps: NetworkPolicies add up", () => {
  const policy = (spec: Record<string, unknown>, name = "p"): K8sObject =>
    ({ apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name }, spec: { podSelector: {}, ...spec } }) as K8sObject;
  const dns = { to: [{ namespaceSelector: {} }], ports: [{ protocol: "UDP", port: 53 }] };
  const cp = { to: [{ ipBlock: { cidr: "203.0.113.1/32" } }], ports: [{ port: 443 }] };
  const kinds = (...policies: K8sObject[]) => isolationGaps(policies).map((g) => g.kind);

  it("a tight policy leaves nothing open", () => {
    expect(kinds(policy({ policyTypes: ["Ingress", "Egress"], egress: [dns, cp] }))).toEqual([]);
  });
  it("a port-only rule is any host on that port; no `to` and no ports is anything", () => {
    expect(kinds(policy({ policyTypes: ["Ingress", "Egress"], egress: [dns, { ports: [{ port: 443 }] }] }))).toEqual(["egress-any-host"]);
    expect(kinds(policy({ policyTypes: ["Ingress", "Egress"], egress: [{}] }))).toEqual(["egress-anywhere"]);
  });
  it("without policyTypes a policy with egress rules isolates both directions", () => {
    expect(kinds(policy({ egress: [dns, cp] }))).toEqual([]);
    expect(kinds(policy({}))).toEqual(["egress-not-isolated"]);
  });
  it("DNS may come from a second policy", () => {
    expect(kinds(policy({ policyTypes: ["Ingress", "Egress"], egress: [cp] }), policy({ policyTypes: ["Egress"], egress: [dns] }, "dns"))).toEqual([]);
    expect(kinds(policy({ policyTypes: ["Ingress", "Egress"], egress: [cp] }))).toEqual(["no-dns"]);
  });
});

describe("projectedToken: the token a container reads at a file", () => {
  const pod = (volumeMounts: unknown[], path: string) => ({
    object: {} as K8sObject,
    path: [],
    spec: { containers: [], volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { audience: "a", path } }] } }] },
    container: c({ volumeMounts: volumeMounts as never }),
  });
  it.each([
    [[{ name: "t", mountPath: "/var/run/secrets/tokens/gke-oidc" }], "token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens/gke-oidc/" }], "token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens" }], "gke-oidc/token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens" }], "token", false],
    [[{ name: "t", mountPath: "/elsewhere" }], "token", false],
  ])("mounts %j with source path %s: %s", (mounts, path, found) => {
    const p = pod(mounts, path);
    expect(projectedToken(p as never, p.container, "/var/run/secrets/tokens/gke-oidc/token") !== undefined).toBe(found);
  });
});
