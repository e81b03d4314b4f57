import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument, type Document } from "yaml";
import { formatDiagnostic } from "../../src/core/diagnostic.ts";
import type { K8sObject } from "../../src/core/objects.ts";
import { checkObjects } from "../../src/rules/catalog.ts";
import { ROOT } from "../support/cli.ts";
import { validateStrict } from "../support/k8s-schema.ts";
import { refusal, render } from "../support/values.ts";

const EXAMPLE = readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8");

function variant(edit: (doc: Document) => void, base = EXAMPLE): string {
  const doc = parseDocument(base);
  edit(doc);
  return doc.toString();
}


const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const podSpec = (objects: K8sObject[]) => (byKind(objects, "DaemonSet")[0].spec as any).template.spec;

describe("the Compass Runner example", () => {
  const objects = render(EXAMPLE);

  it("renders the CR-01 object set in apply order (G-02)", () => {
    expect(objects.map((o) => o.kind)).toEqual([
      "Namespace",
      ...Array(4).fill("ValidatingAdmissionPolicy"),
      ...Array(4).fill("ValidatingAdmissionPolicyBinding"),
      "ServiceAccount",
      "DaemonSet",
      "NetworkPolicy",
    ]);
  });

  it("passes strict upstream schema validation, object by object (G-03)", () => {
    for (const object of objects) expect({ object: object.kind, problems: validateStrict(object) }).toEqual({ object: object.kind, problems: [] });
  });

  it("passes every rule of the catalog (G-03)", () => {
    expect(checkObjects(objects)).toEqual([]);
  });

  it("renders no RBAC and no Service (CR-05, CR-16)", () => {
    expect(objects.filter((o) => /Role|Service$/.test(o.kind))).toEqual([]);
  });

  it("projects the only credential with the right path, audience and lifetime (CR-03)", () => {
    const spec = podSpec(objects);
    expect(spec.volumes[0]).toEqual({
      name: "runner-token",
      projected: { sources: [{ serviceAccountToken: { audience: "compass-runner", expirationSeconds: 3600, path: "token" } }] },
    });
    expect(spec.containers[0].volumeMounts[0]).toEqual({ name: "runner-token", mountPath: "/var/run/secrets/compass/runner", readOnly: true });
    expect(spec.automountServiceAccountToken).toBe(false);
  });

  it("writes only the digest into the pod spec and keeps the paired tag as an annotation (G-05)", () => {
    const ds = byKind(objects, "DaemonSet")[0];
    expect(podSpec(objects).containers[0].image).toBe("registry.example.com/rigelbuild/compass-runner@sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904a1e2c3d4e5f60718293a4b5c");
    expect(ds.metadata.annotations).toEqual({ "rigging.dev/image-tag": "main-1842-3f9c2a7d1b6e" });
  });

  it("points the volume root at the quota subdirectory (CR-11, P8) and runs as 65532", () => {
    const spec = podSpec(objects);
    const env = Object.fromEntries(spec.containers[0].env.map((e: any) => [e.name, e.value]));
    expect(env.COMPASS_MICROVM_VOLUME_ROOT).toBe("/var/lib/compass/sessions/volumes");
    expect(spec.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532 });
  });

  it("pins one amd64 node, asks for KVM from the device plugin and runs in a user namespace (CR-07, CR-08, CR-09, CR-13)", () => {
    const spec = podSpec(objects);
    expect(spec.nodeSelector).toMatchObject({ "kubernetes.io/hostname": "kvm-node-1", "kubernetes.io/arch": "amd64" });
    expect(spec.containers[0].resources.limits["devices.kubevirt.io/kvm"]).toBe("1");
    expect(spec.containers[0].resources.requests["devices.kubevirt.io/kvm"]).toBe("1");
    expect(spec.hostUsers).toBe(false);
    expect(spec.volumes.filter((v: any) => v.hostPath?.path.startsWith("/dev"))).toEqual([]);
  });

  it("labels the namespace privileged for Pod Security, the level its hostPath volumes need (G-10)", () => {
    expect(byKind(objects, "Namespace")[0].metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
      "pod-security.kubernetes.io/audit": "privileged",
      "pod-security.kubernetes.io/warn": "privileged",
    });
  });

  it("allows no ingress and egress only to DNS, the in-cluster Server and egressAllow (CR-15)", () => {
    const spec = byKind(objects, "NetworkPolicy")[0].spec as any;
    expect(spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(spec.ingress).toBeUndefined();
    expect(spec.egress.map((r: any) => r.ports.map((p: any) => p.port))).toEqual([[53, 53], [8443], [4318]]);
  });

  it("passes --server-name and the CA file to the Runner (CR-14, P9)", () => {
    const container = podSpec(objects).containers[0];
    expect(container.args).toEqual(["--server-name", "compass.example.com"]);
    expect(container.env).toContainEqual({ name: "COMPASS_SERVER_CA_FILE", value: "/etc/compass/server-ca/ca.crt" });
  });
});

const PEM = `-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUSIFTIe8qoc+iSKKSMdtuCzwJTSowCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSQ29tcGFzcyBFeGFtcGxlIENBMB4XDTI2MTEyOTE5MTMyM1oX
DTM2MTEyNjE5MTMyM1owHTEbMBkGA1UEAwwSQ29tcGFzcyBFeGFtcGxlIENBMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZkYaenvjHyGkbzmKlAFl9+umplE6PkEH
EsI06bDN4wcs1pP13GSYp1Byo8lkfNxBayrFQ/IRIWf10iis8RmRC6NTMFEwHQYD
VR0OBBYEFBn4JMPcWP6+l95L1RCw5vjWNqW0MB8GA1UdIwQYMBaAFBn4JMPcWP6+
l95L1RCw5vjWNqW0MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIh
AI1/CimNvsvEAZl0x2E7Q7DHueAg3vjeh14NDS8TEttyAiBpF/ngmREPQuRHrpyH
HEDRHFfhh3uCPHeI8SWZG9Lugg==
-----END CERTIFICATE-----
`;

describe("values the Compass Runner accepts at the edges", () => {
  it("accepts tokenExpirationSeconds 600 and 4294967296 when the Server cluster allows them (CR-03)", () => {
    for (const seconds of [600, 4294967296]) {
      const objects = render(
        variant((d) => {
          d.set("tokenExpirationSeconds", seconds);
          d.setIn(["serverCluster", "maxTokenLifetime"], 4294967296);
        }),
      );
      expect(podSpec(objects).volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds).toBe(seconds);
    }
  });

  it("renders an inline CA as a ConfigMap that the pod mounts (CR-01, CR-14)", () => {
    const objects = render(variant((d) => d.setIn(["server", "serverCA"], { pem: PEM })));
    const cm = byKind(objects, "ConfigMap")[0];
    expect((cm.data as any)["ca.crt"]).toBe(PEM);
    expect(podSpec(objects).volumes.find((v: any) => v.name === "server-ca").configMap.name).toBe(cm.metadata.name);
    for (const object of objects) expect(validateStrict(object)).toEqual([]);
  });

  it("allows egress to a Server given by IP literal, v4 or v6, on its port (CR-15)", () => {
    const serverRule = (address: string) =>
      (byKind(render(variant((d) => d.setIn(["server", "address"], address))), "NetworkPolicy")[0].spec as any).egress[1];
    expect(serverRule("https://10.0.0.5:8443")).toEqual({ to: [{ ipBlock: { cidr: "10.0.0.5/32" } }], ports: [{ protocol: "TCP", port: 8443 }] });
    expect(serverRule("https://[2001:db8::1]")).toEqual({ to: [{ ipBlock: { cidr: "2001:db8::1/128" } }], ports: [{ protocol: "TCP", port: 443 }] });
  });

  it("omits the Namespace when createNamespace is false (CR-01)", () => {
    expect(byKind(render(variant((d) => d.set("createNamespace", false))), "Namespace")).toEqual([]);
  });

  it("defaults breakGlassGroups to system:masters (CR-06)", () => {
    const objects = render(variant((d) => d.deleteIn(["admission", "breakGlassGroups"])));
    const policy = byKind(objects, "ValidatingAdmissionPolicy").find((p) => p.metadata.name.endsWith("pod-access"))!;
    expect((policy.spec as any).variables[0].expression).toBe('["system:masters"]');
  });
});

/** [what, edit of the example, requirement ID, key path] */
const REFUSALS: [string, (d: Document) => void, string, string][] = [
  ["tokenExpirationSeconds 599", (d) => d.set("tokenExpirationSeconds", 599), "CR-03", "tokenExpirationSeconds"],
  ["tokenExpirationSeconds 4294967297", (d) => d.set("tokenExpirationSeconds", 4294967297), "CR-03", "tokenExpirationSeconds"],
  ["a fractional tokenExpirationSeconds", (d) => d.set("tokenExpirationSeconds", 3600.5), "CR-03", "tokenExpirationSeconds"],
  ["a lifetime over serverCluster.maxTokenLifetime", (d) => d.set("tokenExpirationSeconds", 90000), "CR-03", "tokenExpirationSeconds"],
  ["serverCluster.namespace disagreeing", (d) => d.setIn(["serverCluster", "namespace"], "elsewhere"), "CR-04", "serverCluster.namespace"],
  ["serverCluster.serviceAccount disagreeing", (d) => d.setIn(["serverCluster", "serviceAccount"], "other"), "CR-04", "serverCluster.serviceAccount"],
  ["serverCluster.audience disagreeing", (d) => d.setIn(["serverCluster", "audience"], "compass"), "CR-04", "serverCluster.audience"],
  ["a tag-only image", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner:main-1842-3f9c2a7d1b6e"), "G-05", "image"],
  ["the latest tag", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner:latest"), "G-05", "image"],
  ["a short digest", (d) => d.set("image", "registry.example.com/rigelbuild/compass-runner@sha256:4b825dc642cb"), "G-05", "image"],
  ["a non-hex digest", (d) => d.set("image", `registry.example.com/rigelbuild/compass-runner@sha256:${"z".repeat(64)}`), "G-05", "image"],
  ["an invalid paired tag", (d) => d.set("image", `registry.example.com/rigelbuild/compass-runner:main-x-123@sha256:${"a".repeat(64)}`), "G-05", "image"],
  ["an http:// Server address", (d) => d.setIn(["server", "address"], "http://compass-server.compass.svc"), "CR-02", "server.address"],
  ["a relative Server address", (d) => d.setIn(["server", "address"], "compass-server.compass.svc"), "CR-02", "server.address"],
  ["a Server address with userinfo", (d) => d.setIn(["server", "address"], "https://admin@compass-server.compass.svc"), "CR-02", "server.address"],
  ["a Server address with a query", (d) => d.setIn(["server", "address"], "https://compass-server.compass.svc/?x=1"), "CR-02", "server.address"],
  ["a Server address with a fragment", (d) => d.setIn(["server", "address"], "https://compass-server.compass.svc/#x"), "CR-02", "server.address"],
  ["empty admission.controllers", (d) => d.setIn(["admission", "controllers"], []), "CR-06", "admission.controllers"],
  ["empty admission.deployers", (d) => d.setIn(["admission", "deployers"], []), "CR-06", "admission.deployers"],
  ["missing admission.deployers", (d) => d.deleteIn(["admission", "deployers"]), "CR-06", "admission.deployers"],
  ["a hostPath of /", (d) => d.setIn(["hostPaths", "sessions"], "/"), "CR-11", "hostPaths.sessions"],
  ["a hostPath under /dev", (d) => d.setIn(["hostPaths", "runtime"], "/dev/kvm"), "CR-11", "hostPaths.runtime"],
  ["a hostPath under /var/run/secrets", (d) => d.setIn(["hostPaths", "runtime"], "/var/run/secrets/x"), "CR-11", "hostPaths.runtime"],
  ["a relative hostPath", (d) => d.setIn(["hostPaths", "runtime"], "var/lib/x"), "CR-11", "hostPaths.runtime"],
  ["an unnormalized hostPath", (d) => d.setIn(["hostPaths", "runtime"], "/var/lib/../lib/x"), "CR-11", "hostPaths.runtime"],
  ["two overlapping host trees", (d) => d.setIn(["hostPaths", "runtime"], "/var/lib/compass/sessions/runtime"), "CR-11", "hostPaths.runtime"],
  ["two equal host trees", (d) => d.setIn(["hostPaths", "runtime"], "/var/lib/compass/sessions"), "CR-11", "hostPaths.runtime"],
  ["a seccompProfilePath with ..", (d) => d.set("seccompProfilePath", "../compass-runner.json"), "CR-10", "seccompProfilePath"],
  ["an absolute seccompProfilePath", (d) => d.set("seccompProfilePath", "/var/lib/kubelet/seccomp/x.json"), "CR-10", "seccompProfilePath"],
  ["a seccompProfilePath not ending in .json", (d) => d.set("seccompProfilePath", "compass/profile"), "CR-10", "seccompProfilePath"],
  ["an arm64 request", (d) => d.set("arch", "arm64"), "CR-13", "arch"],
  ["an arm64 node selector", (d) => d.setIn(["nodeSelector", "kubernetes.io/arch"], "arm64"), "CR-13", 'nodeSelector["kubernetes.io/arch"]'],
  ["a nodeSelector that does not pin one node", (d) => d.set("nodeSelector", { "node-role.kubernetes.io/kvm": "true" }), "CR-07", "nodeSelector"],
  ["an invalid nodeSelector key", (d) => d.setIn(["nodeSelector", "bad key!"], "x"), "CR-12", 'nodeSelector["bad key!"]'],
  ["a toleration with an invalid operator", (d) => d.setIn(["tolerations", 0, "operator"], "In"), "CR-12", "tolerations[0].operator"],
  ["a toleration with an invalid effect", (d) => d.setIn(["tolerations", 0, "effect"], "NoRun"), "CR-12", "tolerations[0].effect"],
  ["a toleration with Exists and a value", (d) => d.setIn(["tolerations", 0, "value"], "x"), "CR-12", "tolerations[0].value"],
  ["a kvmResourceName that is not an extended resource", (d) => d.set("kvmResourceName", "kvm"), "CR-08", "kvmResourceName"],
  ["an inline CA that is not a certificate", (d) => d.setIn(["server", "serverCA"], { pem: "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n" }), "CR-14", "server.serverCA.pem"],
  ["an inline CA with a private key", (d) => d.setIn(["server", "serverCA"], { pem: PEM + "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }), "CR-14", "server.serverCA.pem"],
  ["a serverName that is a URL", (d) => d.setIn(["server", "serverName"], "https://compass.example.com"), "CR-14", "server.serverName"],
  ["an external Server with no egressAllow entry", (d) => { d.setIn(["server", "address"], "https://compass.example.com"); d.set("egressAllow", []); }, "CR-15", "egressAllow"],
  ["an egressAllow entry that is not a CIDR", (d) => d.setIn(["egressAllow", 0, "cidr"], "collector.example.com"), "CR-15", "egressAllow[0].cidr"],
  ["an otel endpoint that is not a URL", (d) => d.setIn(["otel", "endpoint"], "collector:4318"), "CR-16", "otel.endpoint"],
  ["a Runner ID in values", (d) => d.set("runnerId", "runner-1"), "CR-17", "runnerId"],
  ["a missing memory limit", (d) => d.deleteIn(["resources", "limits", "memory"]), "G-01", "resources.limits.memory"],
  ["a CPU request that is not a quantity", (d) => d.setIn(["resources", "requests", "cpu"], "lots"), "G-08", "resources.requests.cpu"],
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

describe("values the Compass Runner refuses", () => {
  it.each(REFUSALS)("refuses %s", (_what, edit, id, path) => {
    const diagnostics = refusal(variant(edit));
    expect(diagnostics.map((d) => [d.id, d.path])).toContainEqual([id, path]);
    for (const d of diagnostics) expect(d.fix.length).toBeGreaterThan(10);
  });

  it("refuses an unknown key with a did-you-mean (G-01)", () => {
    const diagnostics = refusal(variant((d) => d.setIn(["tokenExpirationSecond"], 3600)));
    expect(diagnostics).toEqual([
      expect.objectContaining({ id: "G-01", path: "tokenExpirationSecond", message: "unknown key", fix: expect.stringContaining("did you mean `tokenExpirationSeconds`?") }),
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
        d.setIn(["hostPaths", "sessions"], "/");
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
