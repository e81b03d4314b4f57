// The shared check templates, on the shapes Kubernetes and the programs accept.
import { describe, expect, it } from "vitest";
import type { Container } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { isolationGaps, mountHolding, projectedToken, volumeAt } from "../../src/rules/templates.ts";
import { selects } from "../../src/k8s/access.ts";
import { expectLinear } from "../support/linear.ts";

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
  it("a /0 is everywhere in every spelling", () => {
    for (const cidr of ["0.0.0.0/0", "10.0.0.0/0", "0::/0", "::/0", "2001:db8::/0", "000.000.000.000/0"]) {
      const gaps = isolationGaps([policy({ policyTypes: ["Ingress", "Egress"], egress: [dns, { to: [{ ipBlock: { cidr } }], ports: [{ port: 443 }] }] })]);
      expect(
        gaps.map((g) => [g.kind, g.path.join(".")]),
        cidr,
      ).toEqual([["egress-everything-cidr", "spec.egress.1.to.0.ipBlock.cidr"]]);
    }
  });
  it("ipBlocks whose union is a whole family on the same ports are everywhere, across rules and policies", () => {
    const to = (...cidrs: string[]) => cidrs.map((cidr) => ({ ipBlock: { cidr } }));
    const everywhere = (...policies: K8sObject[]) =>
      isolationGaps(policies)
        .filter((g) => g.kind === "egress-everything-cidr")
        .map((g) => `${g.object.metadata.name} ${g.path.join(".")}`);
    const types = { policyTypes: ["Ingress", "Egress"] };
    expect(everywhere(policy({ ...types, egress: [dns, { to: to("0.0.0.0/1", "128.0.0.0/1"), ports: [{ port: 443 }] }] }))).toEqual(["p spec.egress.1.to"]);
    expect(everywhere(policy({ ...types, egress: [dns, { to: to("::/1", "8000::/1") }] }))).toEqual(["p spec.egress.1.to"]);
    const halves = [
      { to: to("0.0.0.0/1"), ports: [{ port: 443 }] },
      { to: to("128.0.0.0/1"), ports: [{ protocol: "TCP", port: 443 }] },
    ];
    expect(everywhere(policy({ ...types, egress: [dns, ...halves] }))).toEqual(["p spec.egress.1.to", "p spec.egress.2.to"]);
    expect(everywhere(policy({ ...types, egress: [dns, halves[0]] }), policy({ ...types, egress: [halves[1]] }, "q"))).toEqual([
      "p spec.egress.1.to",
      "q spec.egress.0.to",
    ]);
    // A rule for every port adds to every port set; it is reported where the union is made.
    expect(everywhere(policy({ ...types, egress: [dns, halves[0], { to: to("128.0.0.0/1") }] }))).toEqual(["p spec.egress.1.to"]);
  });
  it("ipBlocks that leave a hole, or sit on other ports, are not everywhere", () => {
    const to = (...cidrs: string[]) => cidrs.map((cidr) => ({ ipBlock: { cidr } }));
    const types = { policyTypes: ["Ingress", "Egress"] };
    const kindsOf = (egress: unknown[]) => kinds(policy({ ...types, egress: [dns, ...egress] }));
    expect(kindsOf([{ to: to("0.0.0.0/1", "128.0.0.0/2"), ports: [{ port: 443 }] }])).toEqual([]);
    expect(kindsOf([{ to: [{ ipBlock: { cidr: "0.0.0.0/1", except: ["10.0.0.0/8"] } }, ...to("128.0.0.0/1")], ports: [{ port: 443 }] }])).toEqual([]);
    expect(
      kindsOf([
        { to: to("0.0.0.0/1"), ports: [{ port: 443 }] },
        { to: to("128.0.0.0/1"), ports: [{ port: 8443 }] },
      ]),
    ).toEqual([]);
    expect(kindsOf([{ to: to("0.0.0.0/1", "8000::/1"), ports: [{ port: 443 }] }])).toEqual([]);
  });
  it("adds up ipBlocks in linear time, however many rules and port sets", () => {
    const make = (n: number) => {
      const egress: unknown[] = [dns];
      for (let i = 0; i < n; i++) {
        const at = `10.${(i >> 8) & 255}.${i & 255}`;
        egress.push({ to: [{ ipBlock: { cidr: `${at}.0/25` } }] }, { to: [{ ipBlock: { cidr: `${at}.128/25` } }], ports: [{ port: 1024 + i }] });
      }
      const p = policy({ policyTypes: ["Ingress", "Egress"], egress });
      return () => void isolationGaps([p]);
    };
    expectLinear([500, 1000, 2000, 4000], make);
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
    [[{ name: "t", mountPath: "/var/run//secrets/./tokens/gke-oidc" }], "token", true],
    [[{ name: "t", mountPath: "var/run/secrets/tokens/gke-oidc" }], "./token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens" }], "gke-oidc//token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens/x/../gke-oidc" }], "token", true],
    [[{ name: "t", mountPath: "/var/run/secrets/tokens/gke-oidc/x/.." }], "other", false],
  ])("mounts %j with source path %s: %s", (mounts, path, found) => {
    const p = pod(mounts, path);
    expect(projectedToken(p as never, p.container, "/var/run/secrets/tokens/gke-oidc/token") !== undefined).toBe(found);
  });
});

describe("mountHolding and volumeAt: paths cleaned as the kubelet cleans them", () => {
  const pod = {
    spec: {
      containers: [],
      volumes: [
        { name: "a", emptyDir: {} },
        { name: "b", emptyDir: {} },
      ],
    },
  };
  const container = c({
    volumeMounts: [
      { name: "a", mountPath: "/data//./" },
      { name: "b", mountPath: "data/cache" },
    ],
  });
  it.each([
    ["/data/file", "a"],
    ["/data//cache/./x", "b"],
    ["/data/cache/../file", "a"],
    ["/datafile", undefined],
    ["data/file", undefined],
  ])("%s is held by %s", (file, volume) => {
    expect(mountHolding(pod as never, container, file)?.volume?.name).toBe(volume);
  });
  it.each([
    ["/data", "a"],
    ["/data/", "a"],
    ["//data/cache/.", "b"],
    ["/data/cache/x/..", "b"],
    ["/data/x", undefined],
  ])("%s is the mount point of %s", (dir, volume) => {
    expect(volumeAt(pod as never, container, dir)?.volume?.name).toBe(volume);
  });
});
