// The Compass Server profile: the example renders schema-valid objects that
// pass the whole catalog, the objects carry CS-01..CS-11, and bad values are
// refused with the requirement ID and the key path.
import { readFileSync } from "node:fs";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { Service } from "kubernetes-types/core/v1";
import type { NetworkPolicy } from "kubernetes-types/networking/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../src/core/objects.ts";
import { parseServerConfig } from "../../src/profiles/compass-server/config.ts";
import { checkObjects } from "../../src/rules/catalog.ts";
import { validateStrict } from "../support/k8s-schema.ts";
import { expectRefused, refusal, render } from "../support/values.ts";

const EXAMPLE = readFileSync("examples/compass-server.yaml", "utf8");
const example = () => parse(EXAMPLE) as Record<string, any>;


const find = (objects: K8sObject[], kind: string, app = "compass-server") => objects.filter((o) => o.kind === kind && o.metadata.labels?.["app.kubernetes.io/name"] === app);

describe("examples/compass-server.yaml", () => {
  const objects = render(example());
  const server = find(objects, "Deployment")[0] as Deployment & K8sObject;
  const pod = server.spec!.template.spec!;
  const container = pod.containers[0];

  it("renders strictly schema-valid objects with no catalog finding", () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) expect(validateStrict(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
    expect(checkObjects(objects)).toEqual([]);
  });

  it("renders the Server set and the bundled NATS set, and no Secret, Postgres or volume claim", () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Namespace/compass",
      "ServiceAccount/compass-server",
      "ServiceAccount/compass-server-nats",
      "ConfigMap/compass-server-config",
      "ConfigMap/compass-server-nats-config",
      "Deployment/compass-server",
      "Deployment/compass-server-nats",
      "Service/compass-server",
      "Service/compass-server-nats",
      "NetworkPolicy/compass-server",
      "NetworkPolicy/compass-server-nats",
    ]);
    expect(find(objects, "Deployment", "compass-nats")).toHaveLength(1);
    expect(find(objects, "Service", "compass-nats")).toHaveLength(1);
    expect(find(objects, "NetworkPolicy", "compass-nats")).toHaveLength(1);
  });

  it("CS-01: one pod, Recreate", () => {
    expect(server.spec!.replicas).toBe(1);
    expect(server.spec!.strategy).toEqual({ type: "Recreate" });
  });

  it("CS-02 / G-05: digest-only image, the paired tag as an annotation, 65532 non-root on a read-only root", () => {
    expect(container.image).toBe("registry.example.com/rigelbuild/compass-server@sha256:9d2f0c8e7b6a5d4c3b2a190817263544536271809a8b7c6d5e4f3a2b1c0d9e8f");
    expect(server.metadata.annotations?.["rigging.dev/image-tag"]).toBe("main-1842-3f9c2a7d1b6e");
    expect(pod.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(pod.imagePullSecrets).toBeUndefined();
  });

  it("CS-03: no init container; the database URL from a Secret by name", () => {
    expect(pod.initContainers).toBeUndefined();
    expect(container.env).toContainEqual({ name: "COMPASS_DATABASE_URL", valueFrom: { secretKeyRef: { name: "compass-database", key: "url" } } });
  });

  it("CS-05 / CS-06: master key and admin token are 0400 files of Secret volumes, passed by path", () => {
    const args = container.args!;
    expect(args.slice(args.indexOf("--master-key-file"), args.indexOf("--master-key-file") + 2)).toEqual(["--master-key-file", "/var/run/secrets/compass/master-key/master-key"]);
    expect(args.slice(args.indexOf("--admin-token-file"), args.indexOf("--admin-token-file") + 2)).toEqual(["--admin-token-file", "/var/run/secrets/compass/admin-token/token"]);
    const volume = (name: string) => pod.volumes!.find((v) => v.name === name)!;
    expect(volume("master-key").secret).toEqual({ secretName: "compass-master-key", defaultMode: 256, items: [{ key: "master-key", path: "master-key" }] });
    expect(volume("admin-token").secret).toEqual({ secretName: "compass-admin-token", defaultMode: 256, items: [{ key: "token", path: "token" }] });
    expect(JSON.stringify(container.env)).not.toMatch(/MASTER|ADMIN/);
    // Secret files belong to root unless fsGroup hands them to the Server's group.
    expect(pod.securityContext?.fsGroup).toBe(65532);
  });

  it("CS-07: the bundled NATS is one digest-pinned pod, password from a Secret, reachable only from the Server", () => {
    const nats = find(objects, "Deployment", "compass-nats")[0] as Deployment & K8sObject;
    expect(nats.spec!.replicas).toBe(1);
    const c = nats.spec!.template.spec!.containers[0];
    expect(c.image).toMatch(/^nats@sha256:[0-9a-f]{64}$/);
    expect(c.env).toEqual([{ name: "NATS_PASSWORD", valueFrom: { secretKeyRef: { name: "compass-nats", key: "password" } } }]);
    const conf = (find(objects, "ConfigMap", "compass-nats")[0].data as Record<string, string>)["nats.conf"];
    expect(conf).toMatch(/authorization \{[^}]*password: \$NATS_PASSWORD/s);
    const policy = find(objects, "NetworkPolicy", "compass-nats")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.ingress).toEqual([{ from: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "compass-server", "app.kubernetes.io/instance": "compass-server" } } }], ports: [{ protocol: "TCP", port: 4222 }] }]);
    expect(container.env).toContainEqual({ name: "COMPASS_NATS_PASSWORD", valueFrom: { secretKeyRef: { name: "compass-nats", key: "password" } } });
  });

  it("CS-08: the TLS Secret is mounted and the Service maps 443 to 8443", () => {
    expect(pod.volumes!.find((v) => v.name === "tls")!.secret!.secretName).toBe("compass-server-tls");
    expect(container.ports).toEqual([{ name: "https", containerPort: 8443, protocol: "TCP" }]);
    const service = find(objects, "Service")[0] as Service & K8sObject;
    expect(service.spec!.ports).toEqual([{ name: "https", port: 443, targetPort: 8443, protocol: "TCP" }]);
    expect(objects.some((o) => o.kind === "Ingress")).toBe(false);
  });

  it("CS-09: the ConfigMap holds the cluster entries, mounted read-only", () => {
    const config = parseServerConfig((find(objects, "ConfigMap")[0].data as Record<string, string>)["server.yaml"])!;
    expect(config.clusters).toEqual([{ name: "local", namespace: "compass-runner", serviceAccount: "compass-runner", audience: "compass-runner", maxTokenLifetime: 86400 }]);
    expect(container.volumeMounts).toContainEqual({ name: "config", mountPath: "/etc/compass/config", readOnly: true });
  });

  it("CS-10: no architecture pin", () => {
    expect(JSON.stringify(server)).not.toContain("kubernetes.io/arch");
  });

  it("CS-11: ingress only on 8443; egress to DNS, Postgres, NATS and the forge", () => {
    const policy = find(objects, "NetworkPolicy")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.ingress).toEqual([{ ports: [{ protocol: "TCP", port: 8443 }] }]);
    const ports = policy.spec!.egress!.map((rule) => rule.ports!.map((p) => p.port));
    expect(ports).toEqual([[53, 53], [5432], [4222], [443], [443]]);
    expect(policy.spec!.egress![1].to).toEqual([{ ipBlock: { cidr: "10.20.0.15/32" } }]);
  });

  it("G-10: the Namespace is restricted", () => {
    expect(objects[0].metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "restricted" });
  });

  it("renders an external NATS without NATS objects, with egress to its range", () => {
    const values = { ...example(), nats: { mode: "external", url: "tls://nats.example.net:4222", passwordSecret: { name: "compass-nats" }, cidr: "10.0.7.0/24" } };
    const out = render(values);
    expect(out.filter((o) => o.metadata.labels?.["app.kubernetes.io/name"] === "compass-nats")).toEqual([]);
    const policy = find(out, "NetworkPolicy")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.egress).toContainEqual({ to: [{ ipBlock: { cidr: "10.0.7.0/24" } }], ports: [{ protocol: "TCP", port: 4222 }] });
    for (const object of out) expect(validateStrict(object)).toEqual([]);
    expect(checkObjects(out)).toEqual([]);
  });
});

describe("CompassServer values are refused", () => {
  it("replicas other than 1 (CS-01)", () => expectRefused({ ...example(), replicas: 3 }, "CS-01", "replicas"));
  it("a RollingUpdate strategy (CS-01)", () => expectRefused({ ...example(), strategy: "RollingUpdate" }, "CS-01", "strategy"));
  it("a Postgres request (CS-03)", () => expectRefused({ ...example(), postgres: { enabled: true } }, "CS-03", "postgres"));
  it("a bundled database (CS-03)", () => expectRefused({ ...example(), database: { ...example().database, bundled: true } }, "CS-03", "database.bundled"));
  it("an init container (CS-03)", () => expectRefused({ ...example(), initContainers: [{ name: "migrate" }] }, "CS-03", "initContainers"));
  it("a tag-only image (G-05)", () => expectRefused({ ...example(), image: "registry.example.com/rigelbuild/compass-server:main-1842-3f9c2a7d1b6e" }, "G-05", "image"));
  it("an invalid paired tag (G-05)", () => {
    const d = expectRefused({ ...example(), image: "registry.example.com/rigelbuild/compass-server:main-x-123@sha256:" + "a".repeat(64) }, "G-05", "image");
    expect(d.message).toContain("main-x-123");
  });
  it("a bundled NATS image without a digest (G-05)", () => expectRefused({ ...example(), nats: { ...example().nats, image: "nats:2.10" } }, "G-05", "nats.image"));
  it("a master key asked for as an environment variable (CS-05)", () => expectRefused({ ...example(), masterKey: { env: "COMPASS_MASTER_KEY" } }, "CS-05", "masterKey.env"));
  it("an admin token asked for as an environment variable (CS-06)", () => expectRefused({ ...example(), adminToken: { name: "compass-admin-token", env: "COMPASS_ADMIN_TOKEN" } }, "CS-06", "adminToken.env"));
  it("an external NATS without a password Secret (CS-07)", () => expectRefused({ ...example(), nats: { mode: "external", url: "tls://nats.example.net:4222", cidr: "10.0.7.0/24" } }, "CS-07", "nats.passwordSecret"));
  it("an external NATS URL of another scheme (CS-07)", () => expectRefused({ ...example(), nats: { mode: "external", url: "https://nats.example.net", passwordSecret: { name: "n" }, cidr: "10.0.7.0/24" } }, "CS-07", "nats.url"));
  it("an external NATS by host name without its range (CS-11)", () => expectRefused({ ...example(), nats: { mode: "external", url: "tls://nats.example.net:4222", passwordSecret: { name: "n" } } }, "CS-11", "nats.cidr"));
  it("a missing TLS Secret (CS-08)", () => {
    const { tls: _, ...values } = example();
    expectRefused(values, "CS-08", "tls");
  });
  it("an Ingress (CS-08)", () => expectRefused({ ...example(), ingress: { enabled: true } }, "CS-08", "ingress"));
  it("no cluster entry (CS-09)", () => expectRefused({ ...example(), clusters: [] }, "CS-09", "clusters"));
  it("a cluster entry with another audience (CS-09)", () => expectRefused({ ...example(), clusters: [{ ...example().clusters[0], audience: "kubernetes" }] }, "CS-09", "clusters[0].audience"));
  it("an architecture pin (CS-10)", () => expectRefused({ ...example(), nodeSelector: { "kubernetes.io/arch": "arm64" } }, "CS-10", 'nodeSelector["kubernetes.io/arch"]'));
  it("a security context override (CS-02)", () => expectRefused({ ...example(), securityContext: { runAsUser: 0 } }, "CS-02", "securityContext"));
  it("a forge App without its private key reference (CS-04)", () => {
    const values = example();
    delete values.forge.app.privateKey;
    expectRefused(values, "CS-04", "forge.app.privateKey");
  });
  it("a database without its URL Secret (CS-03)", () => expectRefused({ ...example(), database: { cidr: "10.0.0.1/32" } }, "CS-03", "database.urlSecret"));
  it("a Postgres range that is not a CIDR (CS-11)", () => expectRefused({ ...example(), database: { ...example().database, cidr: "db.example.net" } }, "CS-11", "database.cidr"));
});

describe("G-04: inline secrets are refused anywhere, and never echoed", () => {
  const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
  const cases: [string, (v: Record<string, any>) => void, string][] = [
    ["a database URL with a password in place of its Secret", (v) => (v.database.urlSecret = "postgres://compass:hunter2@db.internal:5432/compass"), "database.urlSecret"],
    ["a value under the master key", (v) => (v.masterKey = { name: "compass-master-key", value: "hunter2" }), "masterKey.value"],
    ["an admin token written inline", (v) => (v.adminToken = "hunter2"), "adminToken"],
    ["a password key", (v) => (v.nats.password = "hunter2"), "nats.password"],
    ["a PEM private key under an unknown key", (v) => (v.forge.app.privateKeyPem = PEM), "forge.app.privateKeyPem"],
    ["a PEM private key in a known string field", (v) => (v.publicHost = PEM), "publicHost"],
  ];
  for (const [what, mutate, path] of cases) {
    it(what, () => {
      const values = example();
      mutate(values);
      const d = expectRefused(values, "G-04", path);
      const all = JSON.stringify(refusal(values));
      expect(all).not.toContain("hunter2");
      expect(all).not.toContain("MIIEvQ");
      expect(d.message).not.toContain("hunter2");
    });
  }
});
