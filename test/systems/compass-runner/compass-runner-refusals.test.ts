// CompassRunner values the Runner refuses, and the upstream tool's own refusals, each named by its requirement ID and key path in rigging's format.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Document } from "yaml";
import { formatDiagnostic } from "../../../src/core/diagnostic.ts";
import { ROOT, runProcess } from "../../support/cli.ts";
import { refusal, render } from "../../support/values.ts";
import { PEM, UPSTREAM, variant } from "./compass-runner-helpers.ts";

/** [what, edit of the example, requirement ID, key path] */
const REFUSALS: [string, (d: Document) => void, string, string][] = [
  ["tokenExpirationSeconds 599", (d) => d.set("tokenExpirationSeconds", 599), "CR-03", "tokenExpirationSeconds"],
  ["tokenExpirationSeconds 4294967297", (d) => d.set("tokenExpirationSeconds", 4294967297), "CR-03", "tokenExpirationSeconds"],
  ["a fractional tokenExpirationSeconds", (d) => d.set("tokenExpirationSeconds", 3600.5), "CR-03", "tokenExpirationSeconds"],
  ["a token lifetime given as a string", (d) => d.set("tokenExpirationSeconds", "3600"), "CR-03", "tokenExpirationSeconds"],
  ["a lifetime over maxTokenLifetimeSeconds", (d) => d.set("tokenExpirationSeconds", 90000), "CR-03", "tokenExpirationSeconds"],
  ["maxTokenLifetimeSeconds below 600", (d) => d.set("maxTokenLifetimeSeconds", 599), "CR-03", "maxTokenLifetimeSeconds"],
  ["serverCluster.namespace disagreeing", (d) => d.setIn(["serverCluster", "namespace"], "runners-typo"), "CR-04", "serverCluster.namespace"],
  ["serverCluster.serviceAccount disagreeing", (d) => d.setIn(["serverCluster", "serviceAccount"], "other"), "CR-04", "serverCluster.serviceAccount"],
  ["serverCluster.audience disagreeing", (d) => d.setIn(["serverCluster", "audience"], "compass"), "CR-04", "serverCluster.audience"],
  [
    "serverCluster with both jwksURI and jwksFile",
    (d) => {
      d.setIn(["serverCluster", "jwksURI"], "https://issuer.example/keys");
      d.setIn(["serverCluster", "jwksFile"], "/etc/jwks.json");
    },
    "CS-09",
    "serverCluster.jwksFile",
  ],
  ["an http serverCluster.issuer", (d) => d.setIn(["serverCluster", "issuer"], "http://issuer.example"), "CS-09", "serverCluster.issuer"],
  ["a tag-only image", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner:main-1842-3f9c2a7d1b6e"), "G-05", "image"],
  ["the latest tag", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner:latest"), "G-05", "image"],
  ["a short digest", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner@sha256:4b825dc642cb"), "G-05", "image"],
  ["a non-hex digest", (d) => d.set("image", `registry.example.com/rigelbuild/compass-runner@sha256:${"z".repeat(64)}`), "G-05", "image"],
  ["an invalid paired tag", (d) => d.set("image", `registry.example.com/rigelbuild/compass-runner:main-x-123@sha256:${"a".repeat(64)}`), "G-05", "image"],
  ["an http:// Server address", (d) => d.set("serverAddr", "http://compass-server.compass.svc"), "CR-02", "serverAddr"],
  ["a relative Server address", (d) => d.set("serverAddr", "compass-server.compass.svc"), "CR-02", "serverAddr"],
  ["a Server address with userinfo", (d) => d.set("serverAddr", "https://admin@compass-server.compass.svc"), "CR-02", "serverAddr"],
  ["a Server address with a query", (d) => d.set("serverAddr", "https://compass-server.compass.svc/?x=1"), "CR-02", "serverAddr"],
  ["a Server address with a fragment", (d) => d.set("serverAddr", "https://compass-server.compass.svc/#x"), "CR-02", "serverAddr"],
  ["a missing Server address", (d) => d.delete("serverAddr"), "CR-02", "serverAddr"],
  ["the old server: {address} key", (d) => d.set("server", { address: "https://compass.example.com" }), "CR-02", "server"],
  ["empty admission.controllers", (d) => d.setIn(["admission", "controllers"], []), "CR-06", "admission.controllers"],
  ["empty admission.deployers", (d) => d.setIn(["admission", "deployers"], []), "CR-06", "admission.deployers"],
  ["missing admission.deployers", (d) => d.deleteIn(["admission", "deployers"]), "CR-06", "admission.deployers"],
  [
    "an admission identity with a quote",
    (d) => d.setIn(["admission", "deployers", 0], "system:serviceaccount:x:y' || true"),
    "CR-06",
    "admission.deployers[0]",
  ],
  ["an admission identity with a backslash", (d) => d.setIn(["admission", "controllers", 0], "a\\b"), "CR-06", "admission.controllers[0]"],
  [
    "an admission identity with a control character",
    (d) => d.setIn(["admission", "breakGlassGroups", 0], "system:masters\n"),
    "CR-06",
    "admission.breakGlassGroups[0]",
  ],
  ["a hostPath of /", (d) => d.setIn(["hostPaths", "sessionVolumeRoot"], "/"), "CR-11", "hostPaths.sessionVolumeRoot"],
  ["a hostPath under /dev", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/dev/kvm"), "CR-08", "hostPaths.runtimeRoot"],
  ["a hostPath under /dev, spelled /dev/./kvm", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/dev/./kvm"), "CR-08", "hostPaths.runtimeRoot"],
  ["a hostPath of /dev itself, with a trailing slash", (d) => d.setIn(["hostPaths", "sessionVolumeRoot"], "/dev/"), "CR-08", "hostPaths.sessionVolumeRoot"],
  ["a liveness probe", (d) => d.set("livenessProbe", { httpGet: { path: "/healthz", port: 8080 } }), "CR-19", "livenessProbe"],
  ["a startup probe", (d) => d.set("startupProbe", { exec: { command: ["true"] } }), "CR-19", "startupProbe"],
  ["a readiness probe", (d) => d.set("readinessProbe", { tcpSocket: { port: 8080 } }), "CR-19", "readinessProbe"],
  ["a hostPath under /var/run/secrets", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/var/run/secrets/x"), "CR-11", "hostPaths.runtimeRoot"],
  ["a relative hostPath", (d) => d.setIn(["hostPaths", "runtimeRoot"], "var/lib/x"), "CR-11", "hostPaths.runtimeRoot"],
  ["an unnormalized hostPath", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/var/lib/../lib/x"), "CR-11", "hostPaths.runtimeRoot"],
  ["two overlapping host trees", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/var/lib/compass/sessions/runtime"), "CR-11", "hostPaths.runtimeRoot"],
  ["two equal host trees", (d) => d.setIn(["hostPaths", "runtimeRoot"], "/var/lib/compass/sessions"), "CR-11", "hostPaths.runtimeRoot"],
  ["the old hostPaths.sessions key", (d) => d.setIn(["hostPaths", "sessions"], "/var/lib/compass/sessions"), "CR-11", "hostPaths.sessions"],
  ["a seccompProfilePath with ..", (d) => d.set("seccompProfilePath", "../compass-runner.json"), "CR-10", "seccompProfilePath"],
  ["an absolute seccompProfilePath", (d) => d.set("seccompProfilePath", "/var/lib/kubelet/seccomp/x.json"), "CR-10", "seccompProfilePath"],
  ["a seccompProfilePath not ending in .json", (d) => d.set("seccompProfilePath", "compass/profile"), "CR-10", "seccompProfilePath"],
  ["an arm64 request", (d) => d.set("arch", "arm64"), "CR-13", "arch"],
  ["an arm64 node selector", (d) => d.set("nodeSelector", { key: "kubernetes.io/arch", value: "arm64" }), "CR-13", "nodeSelector.value"],
  ["maxUnavailable 2", (d) => d.set("maxUnavailable", 2), "CR-07", "maxUnavailable"],
  ["an invalid nodeSelector key", (d) => d.setIn(["nodeSelector", "key"], "bad key!"), "CR-12", "nodeSelector.key"],
  ["an empty nodeSelector value", (d) => d.setIn(["nodeSelector", "value"], ""), "CR-12", "nodeSelector.value"],
  [
    "the old map-shaped nodeSelector",
    (d) => d.set("nodeSelector", { "kubernetes.io/hostname": "kvm-node-1" }),
    "G-01",
    'nodeSelector["kubernetes.io/hostname"]',
  ],
  ["a toleration with an invalid effect", (d) => d.setIn(["toleration", "effect"], "NoRun"), "CR-12", "toleration.effect"],
  ["a toleration without a value", (d) => d.deleteIn(["toleration", "value"]), "CR-12", "toleration.value"],
  ["the old tolerations list", (d) => d.set("tolerations", []), "CR-12", "tolerations"],
  ["a kvmResourceName that is not domain/name", (d) => d.set("kvmResourceName", "kvm"), "CR-08", "kvmResourceName"],
  ["a kvmResourceName in kubernetes.io", (d) => d.set("kvmResourceName", "devices.kubernetes.io/kvm"), "CR-08", "kvmResourceName"],
  ["a kvmResourceName with an unqualified domain", (d) => d.set("kvmResourceName", "devices/kvm"), "CR-08", "kvmResourceName"],
  ["sessionCapacity 0", (d) => d.set("sessionCapacity", 0), "CR-19", "sessionCapacity"],
  ["sessionCapacity as a string", (d) => d.set("sessionCapacity", "4"), "CR-19", "sessionCapacity"],
  ["guestMemoryMiB 0", (d) => d.set("guestMemoryMiB", 0), "CR-19", "guestMemoryMiB"],
  ["guestCpus 1.5", (d) => d.set("guestCpus", 1.5), "CR-19", "guestCpus"],
  ["runnerOverheadMiB -1", (d) => d.set("runnerOverheadMiB", -1), "CR-19", "runnerOverheadMiB"],
  ["perSessionReapSeconds 0", (d) => d.set("perSessionReapSeconds", 0), "CR-19", "perSessionReapSeconds"],
  [
    "a grace period over an int32",
    (d) => {
      d.set("perSessionReapSeconds", 1_000_000_000);
      d.set("sessionCapacity", 3);
    },
    "CR-19",
    "perSessionReapSeconds",
  ],
  ["priorityClassValue above 1e9", (d) => d.set("priorityClassValue", 1_000_000_001), "CR-19", "priorityClassValue"],
  ["priorityClassValue below 0", (d) => d.set("priorityClassValue", -1), "CR-19", "priorityClassValue"],
  ["a missing sessionCapacity", (d) => d.delete("sessionCapacity"), "CR-19", "sessionCapacity"],
  ["resources of one's own", (d) => d.set("resources", { limits: { memory: "2Gi" } }), "CR-19", "resources"],
  [
    "an inline CA that is not a certificate",
    (d) => d.set("serverCA", { pem: "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n" }),
    "CR-14",
    "serverCA.pem",
  ],
  [
    "an inline CA with a private key",
    (d) => d.set("serverCA", { pem: `${PEM}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n` }),
    "CR-14",
    "serverCA.pem",
  ],
  ["a serverName that is a URL", (d) => d.set("serverName", "https://compass.example.com"), "CR-14", "serverName"],
  ["an egressAllow entry that is not a CIDR", (d) => d.setIn(["egressAllow", 1, "cidr"], "collector.example.com"), "CR-15", "egressAllow[1].cidr"],
  ["an egressAllow DNS host without a cidr", (d) => d.set("egressAllow", [{ host: "api.github.com" }]), "CR-15", "egressAllow[0].host"],
  ["an egressAllow host with a comma", (d) => d.set("egressAllow", [{ host: "a.example,b.example", cidr: "10.0.0.0/8" }]), "CR-15", "egressAllow[0].host"],
  ["an egressAllow entry with no destination", (d) => d.set("egressAllow", [{ ports: [{ port: 443 }] }]), "CR-15", "egressAllow[0]"],
  ["an otel endpoint that is not a URL", (d) => d.setIn(["otel", "endpoint"], "collector:4318"), "CR-16", "otel.endpoint"],
  ["a Runner ID in values", (d) => d.set("runnerId", "runner-1"), "CR-17", "runnerId"],
  ["a static Runner token", (d) => d.set("runnerTokenSecret", { name: "x", key: "y" }), "CR-20", "runnerTokenSecret"],
  ["an agent image", (d) => d.set("agentImage", `ghcr.io/example/agent@sha256:${"a".repeat(64)}`), "CR-20", "agentImage"],
  ["an inline private key", (d) => d.set("note", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"), "G-04", "note"],
  ["a URL with an inline password", (d) => d.setIn(["otel", "endpoint"], "https://user:hunter2@collector.example.com"), "G-04", "otel.endpoint"],
  ["an AWS access key", (d) => d.setIn(["admission", "deployers", 0], "AKIAIOSFODNN7EXAMPLE"), "G-04", "admission.deployers[0]"],
  ["hostUsers asked for", (d) => d.set("hostUsers", true), "CR-09", "hostUsers"],
  ["extra objects beside the Runner set", (d) => d.set("extraObjects", [{ kind: "Service" }]), "CR-01", "extraObjects"],
  ["a Pod Security level of one's own", (d) => d.set("podSecurityLevel", "baseline"), "G-10", "podSecurityLevel"],
  ["an RBAC request", (d) => d.set("rbac", { create: true }), "CR-05", "rbac"],
  ["an API token automount", (d) => d.set("automountServiceAccountToken", true), "CR-05", "automountServiceAccountToken"],
  ["a loosened security context", (d) => d.set("securityContext", { privileged: true }), "G-06", "securityContext"],
  ["image pull secrets", (d) => d.set("imagePullSecrets", [{ name: "regcred" }]), "G-09", "imagePullSecrets"],
  ["an instance name that is not a DNS label", (d) => d.set("name", "Compass Runner"), "G-07", "name"],
  ["a namespace that is not a DNS label", (d) => d.set("namespace", "Compass_Runner"), "CR-04", "namespace"],
];

/** The upstream tool's own refusals (compass-interfaces §3.1), on its own example file. */
const UPSTREAM_REFUSALS: [string, (d: Document) => void, string, string][] = [
  ["maxUnavailable other than 1", (d) => d.set("maxUnavailable", 0), "CR-07", "maxUnavailable"],
  ["a tagged image without a digest", (d) => d.set("image", "ghcr.io/example/compass-runner:v1.2.3"), "G-05", "image"],
  ["a priorityClassValue out of range", (d) => d.set("priorityClassValue", 2_000_000_000), "CR-19", "priorityClassValue"],
  ["an http serverAddr", (d) => d.set("serverAddr", "http://compass-server.example.test:7443"), "CR-02", "serverAddr"],
  ["a number given as a string", (d) => d.set("guestCpus", "2"), "CR-19", "guestCpus"],
  ["a namespace that is not a DNS label", (d) => d.set("namespace", "Compass"), "CR-04", "namespace"],
  ["a toleration effect outside the enum", (d) => d.setIn(["toleration", "effect"], "Never"), "CR-12", "toleration.effect"],
  ["a relative sessionVolumeRoot", (d) => d.setIn(["hostPaths", "sessionVolumeRoot"], "srv/compass"), "CR-11", "hostPaths.sessionVolumeRoot"],
  ["a seccompProfilePath with ..", (d) => d.set("seccompProfilePath", "../x.json"), "CR-10", "seccompProfilePath"],
  ["tokenExpirationSeconds above maxTokenLifetimeSeconds", (d) => d.set("tokenExpirationSeconds", 601), "CR-03", "tokenExpirationSeconds"],
  ["runnerOverheadMiB below 0", (d) => d.set("runnerOverheadMiB", -512), "CR-19", "runnerOverheadMiB"],
];

describe("the upstream tool's refusals, in rigging's format", () => {
  it.each(UPSTREAM_REFUSALS)("refuses %s", (_what, edit, id, path) => {
    const diagnostics = refusal(variant(edit, UPSTREAM));
    expect(diagnostics.map((d) => [d.id, d.path])).toContainEqual([id, path]);
    for (const d of diagnostics) {
      expect(d.fix.length).toBeGreaterThan(10);
      expect(d.location?.line).toBeGreaterThan(0);
    }
  });

  it("refuses a file in the upstream shape with another system's kind, in one line", () => {
    const text = UPSTREAM.replace("{", '{\n\t"kind": "RootpilotRunner",');
    const result = runProcess(process.execPath, [join(ROOT, "dist/rigging.mjs"), "render", "-"], text);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err.trim().split("\n")).toHaveLength(1);
    expect(result.err).toContain("kind: RootpilotRunner, but the file is in the CompassRunner values shape");
  });
});

describe("values the Compass Runner refuses", () => {
  it.each(REFUSALS)("refuses %s", (_what, edit, id, path) => {
    const diagnostics = refusal(variant(edit));
    expect(diagnostics.map((d) => [d.id, d.path])).toContainEqual([id, path]);
    for (const d of diagnostics) expect(d.fix.length).toBeGreaterThan(10);
  });

  it("refuses a /dev host tree under CR-08 alone, in any spelling, and names the device plugin's resource instead", () => {
    for (const path of ["/dev/kvm", "/dev//kvm", "/dev/./kvm", "/dev/kvm/", "/dev"]) {
      const diagnostics = refusal(variant((d) => d.setIn(["hostPaths", "runtimeRoot"], path)));
      expect(
        diagnostics.map((d) => [d.id, d.path]),
        path,
      ).toEqual([["CR-08", "hostPaths.runtimeRoot"]]);
      expect(diagnostics[0].message).toMatch(/(^|" )is (under )?\/dev, which no hostPath may be$/);
      expect(diagnostics[0].fix).toContain("kvmResourceName (such as devices.kubelet.io/kvm)");
    }
  });

  // Accepted before, then render's own CR-19 check misjudged a size beyond a double's exact bytes (exit 3).
  it("refuses a derived memory size above 8 PiB (CR-19), and renders one just below", () => {
    const sized = (guest: number) => variant((d) => (d.set("sessionCapacity", 1), d.set("runnerOverheadMiB", 0), d.set("guestMemoryMiB", guest)));
    const [d] = refusal(sized(7_139_146_740_188_941));
    expect(d).toMatchObject({ id: "CR-19", path: "sessionCapacity" });
    expect(d.message).toContain("above 8589934592 MiB (8 PiB)");
    expect(render(sized(2 ** 33)).length).toBeGreaterThan(0);
  });

  it("refuses a probe with the reason: a restart tears down every session (CR-19)", () => {
    const [d] = refusal(variant((doc) => doc.set("livenessProbe", { httpGet: { path: "/healthz", port: 8080 } })));
    expect(d).toMatchObject({ id: "CR-19", path: "livenessProbe" });
    expect(d.fix).toContain("a restart tears down every microVM session on the node");
  });

  it("refuses an unknown key with a did-you-mean (G-01)", () => {
    const diagnostics = refusal(variant((d) => d.setIn(["tokenExpirationSecond"], 3600)));
    expect(diagnostics).toEqual([
      expect.objectContaining({
        id: "G-01",
        path: "tokenExpirationSecond",
        message: "unknown key",
        fix: expect.stringContaining("did you mean `tokenExpirationSeconds`?"),
      }),
    ]);
  });

  it("refuses an unknown nested key with a did-you-mean among that mapping's keys (G-01)", () => {
    const [d] = refusal(variant((doc) => doc.setIn(["admission", "deployer"], ["x"])));
    expect(d).toMatchObject({ id: "G-01", path: "admission.deployer", fix: expect.stringContaining("`deployers`") });
  });

  it("reports every error of a file in one run, in file order (G-01)", () => {
    const diagnostics = refusal(
      variant((d) => {
        d.set("image", "registry.example.com/rigelbuild/compass-runner:latest");
        d.set("tokenExpirationSeconds", 599);
        d.setIn(["hostPaths", "sessionVolumeRoot"], "/");
        d.set("bogus", 1);
      }),
    );
    expect(diagnostics.map((d) => d.id)).toEqual(["G-05", "CR-03", "CR-11", "G-01"]);
    const lines = diagnostics.map((d) => d.location!.line!);
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
  });

  it("formats an error with file, line, column, key path, value, requirement ID and fix", () => {
    const text = variant((d) => d.set("tokenExpirationSeconds", 300));
    const line = text.split("\n").findIndex((l) => l.startsWith("tokenExpirationSeconds:")) + 1;
    const [d] = refusal(text);
    expect(formatDiagnostic(d)).toBe(`values.yaml:${line}:25 tokenExpirationSeconds: 300 is below 600 (CR-03: a projected token lives 600 s to 4294967296 s)`);
  });
});
