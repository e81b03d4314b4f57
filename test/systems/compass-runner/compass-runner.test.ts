// CompassRunner values: the example and the upstream tool's values.example.json render the Runner's objects, and the values at the edges it accepts.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { BUN, ROOT, runProcess } from "../../support/cli.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";
import { EXAMPLE, PEM, UPSTREAM, UPSTREAM_FILE, variant } from "./compass-runner-helpers.ts";

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const podSpec = (objects: K8sObject[]) => (byKind(objects, "DaemonSet")[0].spec as any).template.spec;

describe("the Compass Runner example", () => {
  const objects = render(EXAMPLE);

  it("renders the CR-01 object set in apply order (G-02)", () => {
    expect(objects.map((o) => o.kind)).toEqual([
      "Namespace",
      "PriorityClass",
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
    expect(catalog.checkObjects(objects)).toEqual([]);
  });

  it("renders no RBAC and no Service (CR-05, CR-16)", () => {
    expect(objects.filter((o) => /Role|Service$/.test(o.kind))).toEqual([]);
  });

  it("projects the only credential at the token file compass-runner reads (CR-03)", () => {
    const spec = podSpec(objects);
    expect(spec.volumes.find((v: any) => v.projected)).toEqual({
      name: "compass-runner-token",
      projected: { sources: [{ serviceAccountToken: { audience: "compass-runner", expirationSeconds: 3600, path: "token" } }] },
    });
    expect(spec.containers[0].volumeMounts).toContainEqual({ name: "compass-runner-token", mountPath: "/var/run/secrets/compass/runner", readOnly: true });
    expect(envOf(objects).COMPASS_RUNNER_TOKEN_FILE).toBe("/var/run/secrets/compass/runner/token");
    expect(spec.automountServiceAccountToken).toBe(false);
  });

  it("writes only the digest into the pod spec and keeps the paired tag as an annotation (G-05)", () => {
    const ds = byKind(objects, "DaemonSet")[0];
    expect(podSpec(objects).containers[0].image).toBe(
      "registry.example.com/rigelbuild/compass-runner@sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904a1e2c3d4e5f60718293a4b5c",
    );
    expect(ds.metadata.annotations).toEqual({ "rigging.dev/image-tag": "main-1842-3f9c2a7d1b6e" });
  });

  it("points the volume root at the quota subdirectory and the run root at the runtime tree (CR-11, P8) and runs as 65532", () => {
    const spec = podSpec(objects);
    const env = envOf(objects);
    expect(env.COMPASS_MICROVM_VOLUME_ROOT).toBe("/var/lib/compass/sessions/volumes");
    expect(env.COMPASS_MICROVM_RUNROOT).toBe("/run/compass/microvm");
    expect(spec.containers[0].volumeMounts).toContainEqual({ name: "runner-runtime", mountPath: "/run/compass" });
    expect(spec.containers[0].volumeMounts).toContainEqual({ name: "session-volumes", mountPath: "/var/lib/compass/sessions" });
    expect(spec.containers[0].securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532 });
  });

  it("pins one amd64 node, asks for KVM from the device plugin and runs in a user namespace (CR-07, CR-08, CR-09, CR-13)", () => {
    const spec = podSpec(objects);
    expect(spec.nodeSelector).toEqual({ "kubernetes.io/hostname": "kvm-node-1", "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux" });
    expect(spec.tolerations).toEqual([{ key: "compass.rigel.build/kvm", operator: "Equal", value: "true", effect: "NoSchedule" }]);
    expect(spec.containers[0].resources.limits["devices.kubevirt.io/kvm"]).toBe("1");
    expect(spec.containers[0].resources.requests["devices.kubevirt.io/kvm"]).toBe("1");
    expect(spec.hostUsers).toBe(false);
    expect(spec.volumes.filter((v: any) => v.hostPath?.path.startsWith("/dev"))).toEqual([]);
  });

  it("labels the namespace privileged for Pod Security, the level its hostPath volumes need (G-10)", () => {
    expect(byKind(objects, "Namespace")[0].metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "privileged" });
  });

  it("allows no ingress and egress only to DNS, the in-cluster Server and egressAllow (CR-15)", () => {
    const spec = byKind(objects, "NetworkPolicy")[0].spec as any;
    expect(spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(spec.ingress).toBeUndefined();
    expect(spec.egress.map((r: any) => r.ports.map((p: any) => p.port))).toEqual([[53, 53], [8443], [443], [4318]]);
    expect(spec.egress[2].to).toEqual([{ ipBlock: { cidr: "140.82.112.0/20" } }]);
  });

  it("gives the sessions' allowlist to the Runner's own --egress-allow, hosts only (CR-15, D7)", () => {
    expect(podSpec(objects).containers[0].args).toContain("--egress-allow=api.github.com");
  });

  it("passes the CA and the Server address by the names compass-runner reads, and no --server-name without P9 (CR-02, CR-14, CS-14)", () => {
    const container = podSpec(objects).containers[0];
    expect(container.args).not.toContain("--server-name");
    expect(envOf(objects).COMPASS_RUNNER_CA).toBe("/etc/compass/server-ca/ca.crt");
    expect(envOf(objects).COMPASS_SERVER_ADDR).toBe("https://compass-server.compass.svc");
  });
});

function envOf(objects: K8sObject[]): Record<string, string> {
  return Object.fromEntries(podSpec(objects).containers[0].env.map((e: any) => [e.name, e.value]));
}

describe("the upstream tool's values.example.json, unchanged (tabs, no kind)", () => {
  const objects = render(UPSTREAM);
  const spec = podSpec(objects);
  const container = spec.containers[0];

  it("has tabs and no kind, as upstream ships it", () => {
    expect(UPSTREAM).toContain("\t");
    expect(JSON.parse(UPSTREAM).kind).toBeUndefined();
  });

  it("renders strict-valid objects that pass the catalog with no error", () => {
    for (const object of objects) expect({ object: object.kind, problems: validateStrict(object) }).toEqual({ object: object.kind, problems: [] });
    expect(catalog.checkObjects(objects).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("sets memory request = limit = sessionCapacity x guestMemoryMiB + runnerOverheadMiB (4 x 2048 + 512)", () => {
    expect(container.resources.requests.memory).toBe("8704Mi");
    expect(container.resources.limits.memory).toBe("8704Mi");
  });

  it("requests cpu = sessionCapacity x guestCpus, with no cpu limit", () => {
    expect(container.resources.requests.cpu).toBe("8");
    expect(container.resources.limits.cpu).toBeUndefined();
  });

  it("requests and limits one of the KVM resource", () => {
    expect(container.resources.requests["devices.kubelet.io/kvm"]).toBe("1");
    expect(container.resources.limits["devices.kubelet.io/kvm"]).toBe("1");
  });

  it("sets the grace period to perSessionReapSeconds x sessionCapacity (180 x 4)", () => {
    expect(spec.terminationGracePeriodSeconds).toBe(720);
  });

  it("renders a PriorityClass with priorityClassValue that the pod uses", () => {
    const pc = byKind(objects, "PriorityClass")[0] as any;
    expect(pc).toMatchObject({ value: 1000000, globalDefault: false });
    expect(spec.priorityClassName).toBe(pc.metadata.name);
  });

  it("rolls out with maxSurge 0 and maxUnavailable 1", () => {
    expect((byKind(objects, "DaemonSet")[0].spec as any).updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
  });

  it("gives the guests their size: COMPASS_MICROVM_MEMORY_MB and COMPASS_MICROVM_CPUS", () => {
    expect(envOf(objects)).toMatchObject({ COMPASS_MICROVM_MEMORY_MB: "2048", COMPASS_MICROVM_CPUS: "2", COMPASS_MICROVM_QUOTA_REQUIRED: "true" });
  });

  it("renders a ten-digit guest size, which compass-runner reads as a Go int (its self-check passes)", () => {
    const big = render(variant((doc) => doc.set("guestMemoryMiB", 1_000_000_000)));
    expect(envOf(big)).toMatchObject({ COMPASS_MICROVM_MEMORY_MB: "1000000000" });
    expect(catalog.checkObjects(big).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("deployers and break-glass groups named as authenticators give them (OIDC issuer#subject, e-mail with +, a name with a space) pass CR-06", () => {
    const named = render(
      variant((doc) => {
        doc.setIn(["admission", "deployers"], ["https://issuer.example#1234", "alice+ops@example.com"]);
        doc.setIn(["admission", "breakGlassGroups"], ["CN=Site Reliability,OU=ops"]);
      }),
    );
    expect(catalog.checkObjects(named).filter((f) => f.id === "CR-06")).toEqual([]);
  });

  it("projects the token for tokenExpirationSeconds (600)", () => {
    expect(spec.volumes.find((v: any) => v.projected).projected.sources[0].serviceAccountToken.expirationSeconds).toBe(600);
  });

  it("runs with procMount Unmasked and AppArmor Unconfined, seccomp Localhost at seccompProfilePath", () => {
    expect(container.securityContext).toMatchObject({
      procMount: "Unmasked",
      appArmorProfile: { type: "Unconfined" },
      seccompProfile: { type: "Localhost", localhostProfile: "profiles/compass-runner.json" },
    });
  });

  it("never sets a Runner ID, a static token or an agent image (CR-17, CR-20)", () => {
    const names = container.env.map((e: any) => e.name);
    for (const name of ["COMPASS_RUNNER_ID", "COMPASS_RUNNER_TOKEN", "COMPASS_AGENT_IMAGE"]) expect(names).not.toContain(name);
    expect(container.args ?? []).toEqual([]);
    expect(container.livenessProbe).toBeUndefined();
  });

  it("prints identical bytes under Node and under `bun run render.ts`", () => {
    const node = runProcess(process.execPath, [join(ROOT, "dist/rigging.mjs"), "render", UPSTREAM_FILE]);
    const bun = runProcess(BUN, ["run", join(ROOT, "render.ts"), UPSTREAM_FILE]);
    expect(node.code).toBe(0);
    expect(bun.code).toBe(0);
    expect(bun.out).toBe(node.out);
    expect(node.err).toContain("warning: CR-07");
  });
});

describe("values the Compass Runner accepts at the edges", () => {
  it("accepts tokenExpirationSeconds 600 and 4294967296 when the Server cluster allows them (CR-03)", () => {
    for (const seconds of [600, 4294967296]) {
      const objects = render(
        variant((d) => {
          d.set("tokenExpirationSeconds", seconds);
          d.set("maxTokenLifetimeSeconds", 4294967296);
        }),
      );
      expect(podSpec(objects).volumes.find((v: any) => v.projected).projected.sources[0].serviceAccountToken.expirationSeconds).toBe(seconds);
    }
  });

  it("renders an inline CA as a ConfigMap that the pod mounts (CR-01, CR-14)", () => {
    const objects = render(variant((d) => d.set("serverCA", { pem: PEM })));
    const cm = byKind(objects, "ConfigMap")[0];
    expect((cm.data as any)["ca.crt"]).toBe(PEM);
    expect(podSpec(objects).volumes.find((v: any) => v.name === "server-ca").configMap.name).toBe(cm.metadata.name);
    for (const object of objects) expect(validateStrict(object)).toEqual([]);
  });

  it("allows egress to a Server given by IP literal, v4 or v6, on its port (CR-15)", () => {
    const serverRule = (address: string) => (byKind(render(variant((d) => d.set("serverAddr", address))), "NetworkPolicy")[0].spec as any).egress[1];
    expect(serverRule("https://10.0.0.5:8443")).toEqual({ to: [{ ipBlock: { cidr: "10.0.0.5/32" } }], ports: [{ protocol: "TCP", port: 8443 }] });
    expect(serverRule("https://[2001:db8::1]")).toEqual({ to: [{ ipBlock: { cidr: "2001:db8::1/128" } }], ports: [{ protocol: "TCP", port: 443 }] });
  });

  it("renders a non-hostname node selector with a warning and a checklist line (CR-07)", () => {
    const text = variant((d) => d.set("nodeSelector", { key: "workload", value: "compass" }));
    expect(podSpec(render(text)).nodeSelector).toMatchObject({ workload: "compass" });
    const result = runProcess(process.execPath, [join(ROOT, "dist/rigging.mjs"), "render", "-"], text);
    expect(result.code).toBe(0);
    expect(result.err).toContain("warning: CR-07: nodeSelector workload=compass cannot prove one node");
    expect(result.err).toContain("[ ] exactly one node carries workload=compass (CR-07)");
  });

  it("lets a Server known only by host name be reached on its port alone, with a warning (CR-15)", () => {
    const text = variant((d) => d.set("serverAddr", "https://compass.example.com:7443"));
    const rule = (byKind(render(text), "NetworkPolicy")[0].spec as any).egress[1];
    expect(rule).toEqual({ to: [{ ipBlock: { cidr: "0.0.0.0/0" } }, { ipBlock: { cidr: "::/0" } }], ports: [{ protocol: "TCP", port: 7443 }] });
    const covered = variant((d) => {
      d.set("serverAddr", "https://compass.example.com:7443");
      d.set("egressAllow", [{ cidr: "203.0.113.0/24", ports: [{ port: 7443 }] }]);
    });
    expect((byKind(render(covered), "NetworkPolicy")[0].spec as any).egress.map((r: any) => r.to[0].ipBlock?.cidr)).toEqual([undefined, "203.0.113.0/24"]);
  });

  it("turns an IP-literal host into both the allowlist entry and a /32 rule (CR-15)", () => {
    const objects = render(variant((d) => d.set("egressAllow", [{ host: "192.0.2.7" }])));
    expect(podSpec(objects).containers[0].args).toContain("--egress-allow=192.0.2.7");
    expect((byKind(objects, "NetworkPolicy")[0].spec as any).egress.at(-1)).toEqual({ to: [{ ipBlock: { cidr: "192.0.2.7/32" } }] });
  });

  it("accepts any tag beside the digest, as rigging pin writes it, and writes only the digest (G-05)", () => {
    const objects = render(variant((d) => d.set("image", `ghcr.io/example/compass-runner:v1.4.2@sha256:${"b".repeat(64)}`)));
    expect(podSpec(objects).containers[0].image).toBe(`ghcr.io/example/compass-runner@sha256:${"b".repeat(64)}`);
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
