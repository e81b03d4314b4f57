// The Rootpilot runner profile: the examples render to schema-valid objects
// that pass the whole catalog, the rendered pod matches the seed, and every
// values mistake the seed describes is refused with its ID and key path.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { Container, PodSpec } from "kubernetes-types/core/v1";
import type { NetworkPolicy } from "kubernetes-types/networking/v1";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/core/diagnostic.ts";
import { toYamlStream } from "../../../src/emit/emit.ts";
import type { ValuesError } from "../../../src/core/errors.ts";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { expectRefused, render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const ROOT = join(import.meta.dirname, "../../..");
const DIGEST = `sha256:${"ab12".repeat(16)}`;

const GKE = {
  kind: "RootpilotRunner",
  image: `registry.example.com/rootpilotsh/runner@${DIGEST}`,
  attestation: { provider: "gke" },
  controlPlane: { cidr: "203.0.113.40/32", ports: [{ port: 443 }] },
};
const EKS = {
  ...GKE,
  attestation: { provider: "eks", region: "eu-west-1", roleArn: "arn:aws:iam::123456789012:role/rootpilot-runner" },
};

const deploymentOf = (objects: K8sObject[]) => objects.find((o) => o.kind === "Deployment") as unknown as Deployment;
const podOf = (objects: K8sObject[]) => deploymentOf(objects).spec!.template.spec as PodSpec;
const containerOf = (objects: K8sObject[]) => podOf(objects).containers[0] as Container;
const envOf = (objects: K8sObject[]) => Object.fromEntries((containerOf(objects).env ?? []).map((e) => [e.name, e.value]));

describe.each(["examples/rootpilot-gke.yaml", "examples/rootpilot-eks.yaml"])("%s", (example) => {
  const objects = render(readFileSync(join(ROOT, example), "utf8"));

  it("renders Namespace, ServiceAccount, Deployment, NetworkPolicy and nothing else", () => {
    expect(objects.map((o) => o.kind)).toEqual(["Namespace", "ServiceAccount", "Deployment", "NetworkPolicy"]);
  });

  it("every object passes strict upstream schema validation", () => {
    for (const object of objects) expect(validateStrict(object), object.kind).toEqual([]);
  });

  it("raises no catalog finding", () => {
    expect(catalog.checkObjects(objects)).toEqual([]);
  });

  it("runs hardened as node (uid 1000) with HOME on an emptyDir, no probes, no ports, the image's own command", () => {
    const pod = podOf(objects);
    const container = containerOf(objects);
    expect(pod.securityContext).toMatchObject({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    });
    expect(envOf(objects).HOME).toBe("/home/node");
    const home = container.volumeMounts!.find((m) => m.mountPath === "/home/node")!;
    expect(pod.volumes!.find((v) => v.name === home.name)!.emptyDir).toBeDefined();
    const tmp = container.volumeMounts!.find((m) => m.mountPath === "/tmp")!;
    expect(pod.volumes!.find((v) => v.name === tmp.name)!.emptyDir).toBeDefined();
    for (const key of ["livenessProbe", "readinessProbe", "startupProbe", "ports", "command", "args"]) expect(container).not.toHaveProperty(key);
    expect(container.image).toMatch(/^registry\.example\.com\/rootpilotsh\/runner@sha256:[0-9a-f]{64}$/);
    expect(pod.volumes!.some((v) => v.persistentVolumeClaim || v.ephemeral)).toBe(false);
  });

  it("lets nothing in: no ingress rule, egress to DNS first", () => {
    const policy = objects.find((o) => o.kind === "NetworkPolicy") as unknown as NetworkPolicy;
    expect(policy.spec!.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec!.ingress).toBeUndefined();
    expect(policy.spec!.egress![0].ports!.map((p) => p.port)).toEqual([53, 53]);
    expect(policy.spec!.egress![1]).toEqual({ to: [{ ipBlock: { cidr: "203.0.113.40/32" } }], ports: [{ protocol: "TCP", port: 443 }] });
  });

  it("renders byte-identical output twice", () => {
    const again = render(readFileSync(join(ROOT, example), "utf8"));
    expect(toYamlStream(again)).toBe(toYamlStream(objects));
  });
});

describe("rendered GKE runner", () => {
  const objects = render(GKE);

  it("defaults: 2 replicas, 150 s grace for the 120 s drain, 60 s flush, :memory: learned store, stated resources", () => {
    expect(deploymentOf(objects).spec!.replicas).toBe(2);
    expect(podOf(objects).terminationGracePeriodSeconds).toBe(150);
    const env = envOf(objects);
    expect(env.RUNNER_DRAIN_TIMEOUT_MS).toBe("120000");
    expect(env.RUNNER_LEARNED_FLUSH_INTERVAL_MS).toBe("60000");
    expect(env).not.toHaveProperty("RUNNER_LEARNED_STORE_PATH");
    expect(containerOf(objects).resources).toEqual({ requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } });
  });

  it("attests with gke-oidc from a read-only projected token for rootpilot-enroll at the default path", () => {
    const env = envOf(objects);
    expect(env.RUNNER_ATTESTATION_MODE).toBe("gke-oidc");
    expect(env).not.toHaveProperty("RUNNER_GKE_TOKEN_PATH");
    expect(env).not.toHaveProperty("AWS_REGION");
    const mount = containerOf(objects).volumeMounts!.find((m) => m.mountPath === "/var/run/secrets/tokens/gke-oidc")!;
    expect(mount.readOnly).toBe(true);
    const volume = podOf(objects).volumes!.find((v) => v.name === mount.name)!;
    expect(volume.projected!.sources).toEqual([{ serviceAccountToken: { audience: "rootpilot-enroll", expirationSeconds: 3600, path: "token" } }]);
    expect(objects.find((o) => o.kind === "ServiceAccount")!.metadata.annotations).toBeUndefined();
  });

  it("sets RUNNER_GKE_TOKEN_PATH only when the token path differs, and mounts the token there", () => {
    const custom = render({ ...GKE, attestation: { provider: "gke", tokenPath: "/var/run/rootpilot/enroll.jwt", expirationSeconds: 7200 } });
    expect(envOf(custom).RUNNER_GKE_TOKEN_PATH).toBe("/var/run/rootpilot/enroll.jwt");
    const mount = containerOf(custom).volumeMounts!.find((m) => m.mountPath === "/var/run/rootpilot")!;
    const volume = podOf(custom).volumes!.find((v) => v.name === mount.name)!;
    expect(volume.projected!.sources![0].serviceAccountToken).toEqual({ audience: "rootpilot-enroll", expirationSeconds: 7200, path: "enroll.jwt" });
    expect(catalog.checkObjects(custom)).toEqual([]);
  });

  it("derives the grace period from the drain (ceil(ms/1000) + 30) and keeps an explicit one above it", () => {
    expect(podOf(render({ ...GKE, drainTimeoutMs: 90_500 })).terminationGracePeriodSeconds).toBe(121);
    expect(podOf(render({ ...GKE, terminationGracePeriodSeconds: 121 })).terminationGracePeriodSeconds).toBe(121);
  });

  it("puts a learned store path on an emptyDir of its own, or on /tmp's", () => {
    const own = render({ ...GKE, learnedStorePath: "/var/lib/rootpilot/learned.db" });
    expect(envOf(own).RUNNER_LEARNED_STORE_PATH).toBe("/var/lib/rootpilot/learned.db");
    const mount = containerOf(own).volumeMounts!.find((m) => m.mountPath === "/var/lib/rootpilot")!;
    expect(podOf(own).volumes!.find((v) => v.name === mount.name)!.emptyDir).toBeDefined();
    const inTmp = render({ ...GKE, learnedStorePath: "/tmp/learned.db" });
    expect(containerOf(inTmp).volumeMounts!.map((m) => m.mountPath)).toEqual(["/tmp", "/home/node", "/var/run/secrets/tokens/gke-oidc"]);
    expect(catalog.checkObjects(own)).toEqual([]);
    expect(catalog.checkObjects(inTmp)).toEqual([]);
  });

  it("writes the secret store and OTLP endpoint into the environment, and store settings by the names given", () => {
    const settings = { VAULT_ADDR: "https://vault.example.com:8200", MY_STORE_ROLE: "runner" };
    const vault = envOf(render({ ...GKE, secretStore: { mode: "vault", settings }, otel: { endpoint: "http://otel.obs:4318" } }));
    expect(vault).toMatchObject({ RUNNER_SECRET_STORE_MODE: "vault", ...settings, OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel.obs:4318" });
    expect(envOf(objects)).not.toHaveProperty("OTEL_EXPORTER_OTLP_ENDPOINT");
    expect(envOf(objects)).not.toHaveProperty("RUNNER_SECRET_STORE_MODE");
  });

  it("invents no store variable: vault mode alone writes RUNNER_SECRET_STORE_MODE and nothing else of the store (RP-07)", () => {
    const env = Object.keys(envOf(render({ ...GKE, secretStore: { mode: "vault" } })));
    expect(env).toContain("RUNNER_SECRET_STORE_MODE");
    expect(env.filter((n) => /VAULT|STORE/.test(n))).toEqual(["RUNNER_SECRET_STORE_MODE"]);
  });

  it("renders no Namespace when createNamespace is false", () => {
    expect(render({ ...GKE, createNamespace: false }).map((o) => o.kind)).toEqual(["ServiceAccount", "Deployment", "NetworkPolicy"]);
  });
});

describe("rendered EKS runner", () => {
  const objects = render({ ...EKS, secretStore: { mode: "aws" } });

  it("attests with aws-sts: AWS_REGION, the IRSA role annotation, no token volume, no static keys", () => {
    const env = envOf(objects);
    expect(env.RUNNER_ATTESTATION_MODE).toBe("aws-sts");
    expect(env.AWS_REGION).toBe("eu-west-1");
    expect(env).toMatchObject({ RUNNER_SECRET_STORE_MODE: "aws", RUNNER_AWS_CRED_MODE: "chain" });
    for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "RUNNER_GKE_TOKEN_PATH"]) expect(env).not.toHaveProperty(name);
    const sa = objects.find((o) => o.kind === "ServiceAccount")!;
    expect(sa.metadata.annotations).toEqual({ "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/rootpilot-runner" });
    expect(podOf(objects).volumes!.some((v) => v.projected)).toBe(false);
    expect(catalog.checkObjects(objects)).toEqual([]);
  });
});

describe("refused values", () => {
  it("an audience other than rootpilot-enroll (RP-06), with the seed's reason", () => {
    const d = expectRefused({ ...GKE, attestation: { provider: "gke", audience: "sts.amazonaws.com" } }, "RP-06", "attestation.audience");
    expect(d.fix).toContain("replayed into an enrollment");
    expect(d.fix).toContain("attestation_invalid");
  });

  // Both were accepted and then failed: the first at the API server (int32), the second at render's own G-04 check (exit 3).
  it("replicas above a Deployment's int32 (RP-01)", () => {
    expect(expectRefused({ ...GKE, replicas: 3_000_000_000 }, "RP-01", "replicas").message).toContain("2147483647");
    expect(render({ ...GKE, replicas: 2_147_483_647 }).length).toBe(4);
  });

  it("a store setting whose name says it holds a secret (G-04), while a plain setting renders", () => {
    const secretStore = (settings: Record<string, string>) => ({ ...GKE, secretStore: { mode: "vault", settings } });
    expectRefused(secretStore({ API_TOKEN_TTL: "3600" }), "G-04", "secretStore.settings.API_TOKEN_TTL");
    expect(render(secretStore({ VAULT_ADDR: "https://vault.example.com", TOKEN_PATH: "/v/t" })).length).toBe(4);
  });

  it("expirationSeconds below 600 (RP-06)", () => {
    expectRefused({ ...GKE, attestation: { provider: "gke", expirationSeconds: 599 } }, "RP-06", "attestation.expirationSeconds");
  });

  it("provider eks without a region (RP-06), quoting the runner's boot error", () => {
    const d = expectRefused({ ...GKE, attestation: { provider: "eks", roleArn: "arn:aws:iam::123456789012:role/r" } }, "RP-06", "attestation.region");
    expect(d.message).toContain("RUNNER_ATTESTATION_MODE=aws-sts requires AWS_REGION");
  });

  it.each([
    "arn:aws:iam::12345:role/r",
    "arn:aws:iam::123456789012:user/r",
    "arn:aws:sts::123456789012:role/r",
    "rootpilot-runner",
  ])("an invalid role ARN %s (RP-06)", (roleArn) => {
    expectRefused({ ...EKS, attestation: { ...EKS.attestation, roleArn } }, "RP-06", "attestation.roleArn");
  });

  it("accepts role ARNs with a path and in other partitions", () => {
    for (const roleArn of ["arn:aws:iam::123456789012:role/team/rootpilot", "arn:aws-cn:iam::123456789012:role/r", "arn:aws-us-gov:iam::123456789012:role/r"]) {
      expect(render({ ...EKS, attestation: { ...EKS.attestation, roleArn } }).length).toBe(4);
    }
  });

  it("a region outside the given allowlist (RP-06)", () => {
    expectRefused({ ...EKS, attestation: { ...EKS.attestation, regionAllowlist: ["us-east-1", "eu-central-1"] } }, "RP-06", "attestation.region");
    expect(render({ ...EKS, attestation: { ...EKS.attestation, regionAllowlist: ["eu-west-1"] } }).length).toBe(4);
  });

  it("eks-oidc, as a mode or as a provider (RP-06)", () => {
    expectRefused({ ...EKS, attestation: { ...EKS.attestation, mode: "eks-oidc" } }, "RP-06", "attestation.mode");
    const d = expectRefused({ ...GKE, attestation: { provider: "eks-oidc" } }, "RP-06", "attestation.provider");
    expect(d.fix).toContain("aws-sts");
  });

  it("a grace period of 120 with the default drain (RP-03); 121 passes", () => {
    const d = expectRefused({ ...GKE, terminationGracePeriodSeconds: 120 }, "RP-03", "terminationGracePeriodSeconds");
    expect(d.fix).toContain("150");
    expectRefused({ ...GKE, drainTimeoutMs: 300_000, terminationGracePeriodSeconds: 150 }, "RP-03", "terminationGracePeriodSeconds");
  });

  it("any probe key (RP-02), not a generic unknown key", () => {
    for (const key of ["probes", "livenessProbe", "readinessProbe", "startupProbe"]) {
      const d = expectRefused({ ...GKE, [key]: { httpGet: { path: "/healthz", port: 8080 } } }, "RP-02", key);
      expect(d.fix).toContain("boot: ready");
    }
  });

  it("a container port or a Service (RP-02)", () => {
    expectRefused({ ...GKE, ports: [{ containerPort: 8080 }] }, "RP-02", "ports");
    expectRefused({ ...GKE, containerPort: 8080 }, "RP-02", "containerPort");
    expectRefused({ ...GKE, service: { type: "ClusterIP" } }, "RP-02", "service");
  });

  it("a PVC-backed learned store (RP-05)", () => {
    expectRefused({ ...GKE, learnedStore: { persistentVolumeClaim: { claimName: "learned" } } }, "RP-05", "learnedStore");
    expectRefused({ ...GKE, persistence: { enabled: true, size: "1Gi" } }, "RP-05", "persistence");
    expectRefused({ ...GKE, learnedStorePath: "learned.db" }, "RP-05", "learnedStorePath");
  });

  it("static AWS keys anywhere in values (RP-07)", () => {
    expectRefused({ ...GKE, AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE" }, "RP-07", "AWS_ACCESS_KEY_ID");
    expectRefused({ ...EKS, attestation: { ...EKS.attestation, secretAccessKey: "x" } }, "RP-07", "attestation.secretAccessKey");
    expectRefused({ ...EKS, secretStore: { mode: "aws", accessKeyId: "AKIAIOSFODNN7EXAMPLE" } }, "RP-07", "secretStore.accessKeyId");
    expectRefused({ ...GKE, env: { AWS_SECRET_ACCESS_KEY: "x" } }, "RP-07", "env.AWS_SECRET_ACCESS_KEY");
    expectRefused({ ...GKE, secretStore: { mode: "vault", token: "hvs.x" } }, "RP-07", "secretStore.token");
  });

  it("store keys the seed names no variable for, and settings that are not variable names (RP-07)", () => {
    for (const key of ["address", "mount", "role"])
      expect(expectRefused({ ...GKE, secretStore: { mode: "vault", [key]: "x" } }, "RP-07", `secretStore.${key}`).fix).toMatch(/secretStore\.settings/);
    expectRefused({ ...GKE, secretStore: { mode: "vault", settings: { "VAULT-ADDR": "x" } } }, "RP-07", "secretStore.settings.VAULT-ADDR");
    expectRefused({ ...GKE, secretStore: { mode: "vault", settings: { "1ADDR": "x" } } }, "RP-07", 'secretStore.settings["1ADDR"]');
    expectRefused({ ...GKE, secretStore: { mode: "vault", settings: { PORT: 8200 } } }, "RP-07", "secretStore.settings.PORT");
    expectRefused(
      { ...GKE, secretStore: { mode: "vault", settings: { RUNNER_SECRET_STORE_MODE: "aws" } } },
      "RP-07",
      "secretStore.settings.RUNNER_SECRET_STORE_MODE",
    );
    expectRefused({ ...GKE, secretStore: { mode: "vault", settings: { VAULT_TOKEN: "hvs.x" } } }, "G-04", "secretStore.settings.VAULT_TOKEN");
  });

  it("a secret store that cannot resolve through workload identity (RP-07)", () => {
    expectRefused({ ...GKE, secretStore: { mode: "aws", settings: { AWS_ACCESS_KEY_ID: "x" } } }, "RP-07", "secretStore.settings.AWS_ACCESS_KEY_ID");
    expectRefused({ ...GKE, secretStore: { mode: "aws" } }, "RP-07", "secretStore.mode");
    expectRefused({ ...GKE, secretStore: { mode: "kubernetes" } }, "RP-07", "secretStore.mode");
  });

  it("other RP values mistakes, each under its ID", () => {
    expectRefused({ ...GKE, replicas: 0 }, "RP-01", "replicas");
    expectRefused({ ...GKE, drainTimeoutMs: 1.5 }, "RP-03", "drainTimeoutMs");
    expectRefused({ ...GKE, learnedFlushIntervalMs: 0 }, "RP-04", "learnedFlushIntervalMs");
    expectRefused({ ...GKE, controlPlane: undefined }, "RP-08", "controlPlane");
    expectRefused({ ...GKE, egressAllow: [{ cidr: "vault.example.com" }] }, "RP-08", "egressAllow[0].cidr");
    expectRefused({ ...GKE, resources: { requests: { cpu: "lots", memory: "1Gi" }, limits: { memory: "1Gi" } } }, "RP-09", "resources.requests.cpu");
    expectRefused({ ...GKE, otel: { endpoint: "otel:4318" } }, "RP-10", "otel.endpoint");
    expectRefused({ ...GKE, image: "registry.example.com/rootpilotsh/runner:latest" }, "G-05", "image");
  });

  it("reports every problem at once, each at its line", () => {
    const text = [
      "kind: RootpilotRunner",
      `image: registry.example.com/rootpilotsh/runner@${DIGEST}`,
      "attestation:",
      "  provider: gke",
      "  audience: other",
      "controlPlane: {cidr: 203.0.113.40/32}",
      "drainTimeoutMS: 1000",
      "livenessProbe: {}",
    ].join("\n");
    let diagnostics: Diagnostic[] = [];
    try {
      render(text);
    } catch (error) {
      diagnostics = (error as ValuesError).diagnostics;
    }
    expect(diagnostics.map((d) => [d.id, d.path, d.location?.line])).toEqual([
      ["RP-06", "attestation.audience", 5],
      ["G-01", "drainTimeoutMS", 7],
      ["RP-02", "livenessProbe", 8],
    ]);
    expect(diagnostics[1].fix).toContain("drainTimeoutMs");
  });
});
