// The shared check templates, on the shapes Kubernetes and the programs accept.
import { describe, expect, it } from "vitest";
import type { Container } from "kubernetes-types/core/v1";
import type { K8sObject } from "../../src/core/objects.ts";
import { flagOrEnv, isolationGaps, projectedToken, selects } from "../../src/rules/templates.ts";

const c = (container: Partial<Container>): Container => ({ name: "c", ...container });
const SERVER = { flag: "--server", env: "COMPASS_SERVER_ADDR" };

describe("flagOrEnv: a non-empty flag wins, else the variable (compass-interfaces orEnv)", () => {
  it.each([
    [["--server", "https://a"], "flag", "https://a"],
    [["--server=https://a"], "flag", "https://a"],
    [["-server", "https://a"], "flag", "https://a"],
    [["-server=https://a"], "flag", "https://a"],
    [["--backend", "microvm", "--server", "https://a"], "flag", "https://a"],
    [["--server", "https://a", "--server=https://b"], "flag", "https://b"],
    [["--server="], "env", "https://env"],
    [["run", "--server", "https://a"], "env", "https://env"],
    [["--", "--server", "https://a"], "env", "https://env"],
  ])("args %j: from %s, %s", (args, from, value) => {
    const s = flagOrEnv(c({ args: args as string[], env: [{ name: "COMPASS_SERVER_ADDR", value: "https://env" }] }), SERVER);
    expect([s.from, s.value]).toEqual([from, value]);
  });

  it("flags in command after the program, with the path of the value", () => {
    const s = flagOrEnv(c({ command: ["/compass-runner", "--server", "https://a"] }), SERVER);
    expect([s.from, s.value, s.path]).toEqual(["flag", "https://a", ["command", 2]]);
  });

  it("command and args read as one list of words: a flag in command takes its value from args, a flag in args wins", () => {
    const across = flagOrEnv(c({ command: ["/compass-runner", "--server"], args: ["https://a"] }), SERVER);
    expect([across.from, across.value, across.path]).toEqual(["flag", "https://a", ["args", 0]]);
    const later = flagOrEnv(c({ command: ["/compass-runner", "--server=https://a"], args: ["--server", "https://b"] }), SERVER);
    expect([later.value, later.path]).toEqual(["https://b", ["args", 1]]);
    const first = flagOrEnv(c({ command: ["/compass-runner", "--server=https://a"], args: ["run", "--server", "https://b"] }), SERVER);
    expect([first.value, first.path]).toEqual(["https://a", ["command", 1]]);
    // The program itself is not a flag, even when it looks like one.
    expect(flagOrEnv(c({ command: ["--server=https://a"] }), SERVER).from).toBe("none");
    // Another flag's separate value is skipped across the boundary too.
    const skipped = flagOrEnv(c({ command: ["/compass-runner", "--backend"], args: ["microvm", "--server", "https://c"] }), SERVER);
    expect([skipped.value, skipped.path]).toEqual(["https://c", ["args", 2]]);
    const bare = flagOrEnv(c({ args: ["--backend", "microvm", "-", "--server", "https://a"] }), SERVER);
    expect(bare.from).toBe("none");
  });

  it("the last env entry of a name counts; valueFrom and envFrom are not visible", () => {
    expect(
      flagOrEnv(
        c({
          env: [
            { name: "COMPASS_SERVER_ADDR", value: "x" },
            { name: "COMPASS_SERVER_ADDR", value: "y" },
          ],
        }),
        SERVER,
      ),
    ).toMatchObject({ from: "env", value: "y", path: ["env", 1, "value"] });
    expect(flagOrEnv(c({ env: [{ name: "COMPASS_SERVER_ADDR", valueFrom: { configMapKeyRef: { name: "m", key: "k" } } }] }), SERVER)).toEqual({
      from: "env",
      path: ["env", 0, "valueFrom"],
      name: "COMPASS_SERVER_ADDR",
    });
    expect(flagOrEnv(c({ envFrom: [{ configMapRef: { name: "m" } }] }), SERVER)).toEqual({ from: "envFrom", path: ["envFrom"], name: "COMPASS_SERVER_ADDR" });
    expect(flagOrEnv(c({}), SERVER)).toEqual({ from: "none", path: ["env"] });
  });
});

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
