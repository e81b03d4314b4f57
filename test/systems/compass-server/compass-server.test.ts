// The Compass Server profile: the example renders schema-valid objects that
// pass the whole catalog, the objects carry CS-01..CS-13 in compass-server's
// real names, and bad values are refused with the requirement ID, the key
// path, a line and a fix.
import { readFileSync } from "node:fs";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap, Service } from "kubernetes-types/core/v1";
import type { NetworkPolicy } from "kubernetes-types/networking/v1";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { expectRefused, refusal, render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const EXAMPLE = readFileSync("examples/compass-server.yaml", "utf8");
const example = () => parse(EXAMPLE) as Record<string, any>;

const find = (objects: K8sObject[], kind: string, app = "compass-server") =>
  objects.filter((o) => o.kind === kind && o.metadata.labels?.["app.kubernetes.io/name"] === app);

/** The value after `flag` in args, or undefined. */
function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

describe("examples/compass-server.yaml", () => {
  const objects = render(example());
  const server = find(objects, "Deployment")[0] as Deployment & K8sObject;
  const pod = server.spec!.template.spec!;
  const container = pod.containers[0];
  const args = container.args!;
  const volume = (name: string) => pod.volumes!.find((v) => v.name === name)!;
  const mount = (path: string) => container.volumeMounts!.find((m) => m.mountPath === path);

  it("renders strictly schema-valid objects with no catalog finding", () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) expect(validateStrict(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
    expect(catalog.checkObjects(objects)).toEqual([]);
  });

  it("renders the Server set and the bundled NATS set, and no Secret, Postgres or volume claim", () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Namespace/compass",
      "ServiceAccount/compass-server",
      "ServiceAccount/compass-server-nats",
      "ConfigMap/compass-server-runner-clusters",
      "ConfigMap/compass-server-nats-config",
      "Deployment/compass-server",
      "Deployment/compass-server-nats",
      "Service/compass-server",
      "Service/compass-server-nats",
      "NetworkPolicy/compass-server",
      "NetworkPolicy/compass-server-nats",
    ]);
  });

  it("CS-01: one pod, Recreate", () => {
    expect(server.spec!.replicas).toBe(1);
    expect(server.spec!.strategy).toEqual({ type: "Recreate" });
  });

  it("CS-02 / G-05: digest-only image, the paired tag as an annotation, 65532 non-root on a read-only root", () => {
    expect(container.image).toBe("registry.example.com/rigelbuild/compass-server@sha256:9d2f0c8e7b6a5d4c3b2a190817263544536271809a8b7c6d5e4f3a2b1c0d9e8f");
    expect(server.metadata.annotations?.["rigging.dev/image-tag"]).toBe("main-1842-3f9c2a7d1b6e");
    expect(pod.securityContext).toMatchObject({
      runAsUser: 65532,
      runAsGroup: 65532,
      runAsNonRoot: true,
      fsGroup: 65532,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(pod.imagePullSecrets).toBeUndefined();
  });

  it("CS-03: no init container; COMPASS_DATABASE_DSN from a Secret by name", () => {
    expect(pod.initContainers).toBeUndefined();
    expect(container.env).toContainEqual({ name: "COMPASS_DATABASE_DSN", valueFrom: { secretKeyRef: { name: "compass-database", key: "dsn" } } });
  });

  it("CS-05: --secret-provider is SecretSpec's file provider; COMPASS_MASTER_KEY is a 0400 Secret file bound by subPath", () => {
    expect(flag(args, "--secret-provider")).toBe("file:///var/run/secrets/compass/secretspec");
    const file = "/var/run/secrets/compass/secretspec/compass/default/COMPASS_MASTER_KEY";
    expect(mount(file)).toEqual({ name: "secretspec", mountPath: file, subPath: "COMPASS_MASTER_KEY", readOnly: true });
    const projected = volume("secretspec").projected!;
    expect(projected.defaultMode).toBe(0o400);
    expect(projected.sources).toContainEqual({ secret: { name: "compass-master-key", items: [{ key: "master-key", path: "COMPASS_MASTER_KEY" }] } });
    expect(JSON.stringify(container.env)).not.toMatch(/MASTER/);
  });

  it("CS-06, CS-14: without P4 no --admin-token-file and no admin token volume: the released Server mints its own", () => {
    expect(args).not.toContain("--admin-token-file");
    expect(container.volumeMounts!.map((m) => m.name)).not.toContain("admin-token");
    expect(JSON.stringify(container.env)).not.toMatch(/ADMIN/);
  });

  it("CS-07: COMPASS_NATS_URL, which carries the credentials, from a Secret; the bundled NATS is one pinned pod with a password", () => {
    expect(container.env).toContainEqual({ name: "COMPASS_NATS_URL", valueFrom: { secretKeyRef: { name: "compass-nats", key: "url" } } });
    const nats = find(objects, "Deployment", "compass-nats")[0] as Deployment & K8sObject;
    expect(nats.spec!.replicas).toBe(1);
    const c = nats.spec!.template.spec!.containers[0];
    expect(c.image).toMatch(/^nats@sha256:[0-9a-f]{64}$/);
    expect(c.env).toEqual([{ name: "NATS_PASSWORD", valueFrom: { secretKeyRef: { name: "compass-nats", key: "password" } } }]);
    const conf = (find(objects, "ConfigMap", "compass-nats")[0].data as Record<string, string>)["nats.conf"];
    expect(conf).toMatch(/authorization \{\n {2}user: "compass"\n {2}password: \$NATS_PASSWORD\n\}/);
    const policy = find(objects, "NetworkPolicy", "compass-nats")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "compass-server", "app.kubernetes.io/instance": "compass-server" } } }],
        ports: [{ protocol: "TCP", port: 4222 }],
      },
    ]);
  });

  it("CS-13: the bundled NATS runs JetStream, its store a size-bounded emptyDir above max_file_store", () => {
    const nats = find(objects, "Deployment", "compass-nats")[0] as Deployment & K8sObject;
    const spec = nats.spec!.template.spec!;
    const conf = (find(objects, "ConfigMap", "compass-nats")[0].data as Record<string, string>)["nats.conf"];
    expect(conf).toContain('jetstream {\n  store_dir: "/data/jetstream"\n  max_memory_store: 67108864\n  max_file_store: 1073741824\n}');
    expect(spec.containers[0].volumeMounts).toContainEqual({ name: "jetstream", mountPath: "/data/jetstream" });
    // 1024 MiB of store plus a quarter for JetStream's own files.
    expect(spec.volumes).toContainEqual({ name: "jetstream", emptyDir: { sizeLimit: "1280Mi" } });
  });

  it("CS-08: --listen on the TLS port with --tls-cert/--tls-key from the kubernetes.io/tls Secret; the Service maps 443 to it", () => {
    expect(flag(args, "--listen")).toBe(":8443");
    expect(flag(args, "--tls-cert")).toBe("/etc/compass/tls/tls.crt");
    expect(flag(args, "--tls-key")).toBe("/etc/compass/tls/tls.key");
    expect(mount("/etc/compass/tls")).toEqual({ name: "tls", mountPath: "/etc/compass/tls", readOnly: true });
    expect(volume("tls").secret!.secretName).toBe("compass-server-tls");
    expect(container.ports).toEqual([{ name: "https", containerPort: 8443, protocol: "TCP" }]);
    const service = find(objects, "Service")[0] as Service & K8sObject;
    expect(service.spec!.ports).toEqual([{ name: "https", port: 443, targetPort: 8443, protocol: "TCP" }]);
    expect(objects.some((o) => o.kind === "Ingress")).toBe(false);
  });

  it("CS-09: --runner-clusters names the mounted ConfigMap key, in the Server's schema", () => {
    expect(flag(args, "--runner-clusters")).toBe("/etc/compass/runner-clusters/clusters.yaml");
    expect(mount("/etc/compass/runner-clusters")).toEqual({ name: "runner-clusters", mountPath: "/etc/compass/runner-clusters", readOnly: true });
    const text = (find(objects, "ConfigMap")[0] as ConfigMap & K8sObject).data!["clusters.yaml"];
    expect(parse(text)).toEqual({
      clusters: [
        {
          name: "local",
          issuer: "https://kubernetes.default.svc.cluster.local",
          audience: "compass-runner",
          namespace: "compass-runner",
          serviceAccount: "compass-runner",
          maxTokenLifetime: "86400s",
          jwksFile: "/etc/compass/runner-cluster-files/local/jwks.json",
          caFile: "/etc/compass/runner-cluster-files/local/ca.crt",
        },
      ],
    });
  });

  it("CS-13: --socket and --state-dir sit on writable emptyDirs under the read-only root", () => {
    expect(flag(args, "--socket")).toBe("/run/compass/server/server.sock");
    expect(flag(args, "--state-dir")).toBe("/var/lib/compass/server");
    expect(mount("/run/compass")).toEqual({ name: "run", mountPath: "/run/compass" });
    expect(mount("/var/lib/compass")).toEqual({ name: "state", mountPath: "/var/lib/compass" });
    expect(volume("run").emptyDir).toEqual({ medium: "Memory", sizeLimit: "1Mi" });
    expect(volume("state").emptyDir).toEqual({ sizeLimit: "16Mi" });
  });

  it("CS-04: the forge App by the Server's own flags; its keys as SecretSpec files named SERVER_<NAME>", () => {
    expect(flag(args, "--forge-host")).toBe("github.com");
    expect(flag(args, "--forge-app-id")).toBe("123456");
    expect(flag(args, "--forge-installation-id")).toBe("7890123");
    expect(flag(args, "--forge-app-key-secret")).toBe("FORGE_APP_PRIVATE_KEY");
    expect(flag(args, "--forge-app-webhook-secret")).toBe("FORGE_APP_WEBHOOK_SECRET");
    const dir = "/var/run/secrets/compass/secretspec/compass/default";
    expect(mount(`${dir}/SERVER_FORGE_APP_PRIVATE_KEY`)?.subPath).toBe("SERVER_FORGE_APP_PRIVATE_KEY");
    expect(volume("secretspec").projected!.sources).toContainEqual({
      secret: { name: "compass-github-app", items: [{ key: "webhook-secret", path: "SERVER_FORGE_APP_WEBHOOK_SECRET" }] },
    });
  });

  it("CS-10: no architecture pin", () => {
    expect(JSON.stringify(server)).not.toContain("kubernetes.io/arch");
  });

  it("CS-11: ingress only on 8443; egress to DNS, Postgres, NATS and the forge (the keys are in a jwksFile: no issuer egress)", () => {
    const policy = find(objects, "NetworkPolicy")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.ingress).toEqual([{ ports: [{ protocol: "TCP", port: 8443 }] }]);
    const ports = policy.spec!.egress!.map((rule) => rule.ports!.map((p) => p.port));
    expect(ports).toEqual([[53, 53], [5432], [4222], [443], [443]]);
    expect(policy.spec!.egress![1].to).toEqual([{ ipBlock: { cidr: "10.20.0.15/32" } }]);
  });

  it("CS-11: egress to the issuers when an entry fetches its keys", () => {
    const { jwksFile: _, ...entry } = { ...example().runnerClusters[0], issuer: "https://oidc.example.com" };
    const issuerEgress = [{ cidr: "172.18.0.2/32", ports: [{ port: 6443 }] }];
    const policy = find(render({ ...example(), runnerClusters: [entry], issuerEgress }), "NetworkPolicy")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.egress!.at(-1)).toEqual({ to: [{ ipBlock: { cidr: "172.18.0.2/32" } }], ports: [{ protocol: "TCP", port: 6443 }] });
  });

  it("G-10: the Namespace is restricted", () => {
    expect(objects[0].metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "restricted" });
  });

  it("renders an external NATS without NATS objects, with its URL Secret and egress to its range", () => {
    const values = { ...example(), nats: { mode: "external", urlSecret: { name: "compass-nats-url" }, cidr: "10.0.7.0/24" } };
    const out = render(values);
    expect(out.filter((o) => o.metadata.labels?.["app.kubernetes.io/name"] === "compass-nats")).toEqual([]);
    const c = (find(out, "Deployment")[0] as Deployment & K8sObject).spec!.template.spec!.containers[0];
    expect(c.env).toContainEqual({ name: "COMPASS_NATS_URL", valueFrom: { secretKeyRef: { name: "compass-nats-url", key: "url" } } });
    const policy = find(out, "NetworkPolicy")[0] as NetworkPolicy & K8sObject;
    expect(policy.spec!.egress).toContainEqual({ to: [{ ipBlock: { cidr: "10.0.7.0/24" } }], ports: [{ protocol: "TCP", port: 4222 }] });
    for (const object of out) expect(validateStrict(object)).toEqual([]);
    expect(catalog.checkObjects(out)).toEqual([]);
  });

  it("mounts a cluster's jwksFile and caFile and names them by path; needs no issuer egress when every entry has a jwksFile", () => {
    const { issuerEgress: _, ...rest } = example();
    const entry = { ...example().runnerClusters[0], jwksFile: { configMap: "cluster-keys" }, caFile: { configMap: "cluster-ca", key: "root.pem" } };
    const out = render({ ...rest, runnerClusters: [entry] });
    const spec = (find(out, "Deployment")[0] as Deployment & K8sObject).spec!.template.spec!;
    expect(spec.volumes).toContainEqual({
      name: "runner-cluster-files",
      projected: {
        sources: [
          { configMap: { name: "cluster-keys", items: [{ key: "jwks.json", path: "local/jwks.json" }] } },
          { configMap: { name: "cluster-ca", items: [{ key: "root.pem", path: "local/ca.crt" }] } },
        ],
      },
    });
    const text = (find(out, "ConfigMap")[0] as ConfigMap & K8sObject).data!["clusters.yaml"];
    expect(parse(text).clusters[0]).toMatchObject({
      jwksFile: "/etc/compass/runner-cluster-files/local/jwks.json",
      caFile: "/etc/compass/runner-cluster-files/local/ca.crt",
    });
    for (const object of out) expect(validateStrict(object)).toEqual([]);
    expect(catalog.checkObjects(out)).toEqual([]);
  });

  it("is deterministic: the same values give the same objects", () => {
    expect(JSON.stringify(render(example()))).toBe(JSON.stringify(render(example())));
  });
});

describe("CompassServer values are refused", () => {
  const cluster = () => example().runnerClusters[0];
  it("replicas other than 1 (CS-01)", () => expectRefused({ ...example(), replicas: 3 }, "CS-01", "replicas"));
  it("a RollingUpdate strategy (CS-01)", () => expectRefused({ ...example(), strategy: "RollingUpdate" }, "CS-01", "strategy"));
  it("a Postgres request (CS-03)", () => expectRefused({ ...example(), postgres: { enabled: true } }, "CS-03", "postgres"));
  it("a bundled database (CS-03)", () => expectRefused({ ...example(), database: { ...example().database, bundled: true } }, "CS-03", "database.bundled"));
  it("an init container (CS-03)", () => expectRefused({ ...example(), initContainers: [{ name: "migrate" }] }, "CS-03", "initContainers"));
  it("a database without its DSN Secret (CS-03)", () => expectRefused({ ...example(), database: { cidr: "10.0.0.1/32" } }, "CS-03", "database.dsnSecret"));
  it("the old urlSecret, which fed a variable the Server does not read (CS-13)", () => {
    const d = expectRefused({ ...example(), database: { ...example().database, urlSecret: { name: "db" } } }, "CS-13", "database.urlSecret");
    expect(d.fix).toContain("COMPASS_DATABASE_DSN");
  });
  it("a tag-only image (G-05)", () =>
    expectRefused({ ...example(), image: "registry.example.com/rigelbuild/compass-server:main-1842-3f9c2a7d1b6e" }, "G-05", "image"));
  it("a bundled NATS image without a digest (G-05)", () =>
    expectRefused({ ...example(), nats: { ...example().nats, image: "nats:2.10" } }, "G-05", "nats.image"));
  it("a master key asked for as an environment variable (CS-05)", () =>
    expectRefused({ ...example(), masterKey: { name: "k", env: "COMPASS_MASTER_KEY" } }, "CS-05", "masterKey.env"));
  it("an admin token asked for as an environment variable (CS-06)", () =>
    expectRefused({ ...example(), adminToken: { name: "compass-admin-token", env: "COMPASS_ADMIN_TOKEN" } }, "CS-06", "adminToken.env"));
  it("a bundled NATS without its password Secret (CS-07)", () => {
    const { passwordSecret: _, ...nats } = example().nats;
    expectRefused({ ...example(), nats }, "CS-07", "nats.passwordSecret");
  });
  it("an external NATS given as a URL, whose credentials the Server reads only from its Secret (CS-07)", () => {
    const d = expectRefused(
      { ...example(), nats: { mode: "external", url: "tls://nats.example.net:4222", urlSecret: { name: "n" }, cidr: "10.0.7.0/24" } },
      "CS-07",
      "nats.url",
    );
    expect(d.fix).toContain("COMPASS_NATS_URL");
  });
  it("an external NATS without its URL Secret (CS-07)", () =>
    expectRefused({ ...example(), nats: { mode: "external", cidr: "10.0.7.0/24" } }, "CS-07", "nats.urlSecret"));
  it("an external NATS without a range or namespace for egress (CS-11)", () =>
    expectRefused({ ...example(), nats: { mode: "external", urlSecret: { name: "n" } } }, "CS-11", "nats.cidr"));
  it("a JetStream store size given as a string (CS-13)", () =>
    expectRefused({ ...example(), nats: { ...example().nats, jetstream: { maxFileStoreMiB: "1024" } } }, "CS-13", "nats.jetstream.maxFileStoreMiB"));
  it("a missing TLS Secret (CS-08)", () => {
    const { tls: _, ...values } = example();
    expectRefused(values, "CS-08", "tls");
  });
  it("an Ingress (CS-08)", () => expectRefused({ ...example(), ingress: { enabled: true } }, "CS-08", "ingress"));
  it("a configuration file the Server does not have (CS-13)", () => expectRefused({ ...example(), config: { listen: ":8443" } }, "CS-13", "config"));
  it("the old clusters key (CS-13)", () => expectRefused({ ...example(), clusters: [cluster()] }, "CS-13", "clusters"));
  it("no runner cluster (CS-09)", () => expectRefused({ ...example(), runnerClusters: [] }, "CS-09", "runnerClusters"));
  it("a cluster without its issuer (CS-09)", () => {
    const { issuer: _, ...entry } = cluster();
    expectRefused({ ...example(), runnerClusters: [entry] }, "CS-09", "runnerClusters[0].issuer");
  });
  it("an http issuer (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), issuer: "http://kubernetes.default.svc" }] }, "CS-09", "runnerClusters[0].issuer"));
  it("a cluster name the Server refuses (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), name: "Prod.Cluster" }] }, "CS-09", "runnerClusters[0].name"));
  it("a 41-character cluster name (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), name: "a".repeat(41) }] }, "CS-09", "runnerClusters[0].name"));
  it("two clusters of one name (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [cluster(), { ...cluster(), issuer: "https://other.example.com" }] }, "CS-09", "runnerClusters[1].name"));
  it("two clusters of one issuer, compared without the trailing / (CS-09)", () => {
    const d = expectRefused(
      { ...example(), runnerClusters: [cluster(), { ...cluster(), name: "other", issuer: `${cluster().issuer}/` }] },
      "CS-09",
      "runnerClusters[1].issuer",
    );
    expect(d.fix).toMatch(/trailing \//);
  });
  it("a cluster with another audience (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), audience: "kubernetes" }] }, "CS-09", "runnerClusters[0].audience"));
  it("a maxTokenLifetime below 600 s (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), maxTokenLifetime: 599 }] }, "CS-09", "runnerClusters[0].maxTokenLifetime"));
  it("a maxTokenLifetime given as a string (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), maxTokenLifetime: "86400" }] }, "CS-09", "runnerClusters[0].maxTokenLifetime"));
  it("a Go duration where values take seconds (CS-09)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), maxTokenLifetime: "24h" }] }, "CS-09", "runnerClusters[0].maxTokenLifetime"));
  it("jwksURI with jwksFile (CS-09)", () =>
    expectRefused(
      { ...example(), runnerClusters: [{ ...cluster(), jwksURI: "https://keys.example.com/jwks", jwksFile: { configMap: "k" } }] },
      "CS-09",
      "runnerClusters[0].jwksFile",
    ));
  it("an unknown key in a cluster entry (G-01)", () =>
    expectRefused({ ...example(), runnerClusters: [{ ...cluster(), audiences: ["compass-runner"] }] }, "G-01", "runnerClusters[0].audiences"));
  it("no issuer egress while the Server fetches keys (CS-11)", () => {
    const { jwksFile: _, ...entry } = { ...example().runnerClusters[0], issuer: "https://oidc.example.com" };
    expectRefused({ ...example(), runnerClusters: [entry] }, "CS-11", "issuerEgress");
  });
  it("an architecture pin (CS-10)", () =>
    expectRefused({ ...example(), nodeSelector: { "kubernetes.io/arch": "arm64" } }, "CS-10", 'nodeSelector["kubernetes.io/arch"]'));
  it("a security context override (CS-02)", () => expectRefused({ ...example(), securityContext: { runAsUser: 0 } }, "CS-02", "securityContext"));
  it("a forge App ID given as a string (CS-04)", () => expectRefused({ ...example(), forge: { ...example().forge, appId: "123456" } }, "CS-04", "forge.appId"));
  it("a forge installation ID that is not whole (CS-04)", () =>
    expectRefused({ ...example(), forge: { ...example().forge, installationId: 1.5 } }, "CS-04", "forge.installationId"));
  it("a forge App without its key Secret (CS-04)", () => {
    const { appKeySecret: _, ...forge } = example().forge;
    expectRefused({ ...example(), forge }, "CS-04", "forge.appKeySecret");
  });
  it("half a reviewer App (CS-04)", () =>
    expectRefused({ ...example(), forge: { ...example().forge, reviewerAppId: 42 } }, "CS-04", "forge.reviewerAppInstallationId"));
  it("the old forge.app shape (CS-13)", () =>
    expectRefused({ ...example(), forge: { ...example().forge, app: { appId: { name: "x" } } } }, "CS-13", "forge.app"));
  it("a forge repository that is not owner/name (CS-04)", () =>
    expectRefused({ ...example(), forge: { ...example().forge, repos: ["compass"] } }, "CS-04", "forge.repos[0]"));
  it("a Postgres range that is not a CIDR (CS-11)", () =>
    expectRefused({ ...example(), database: { ...example().database, cidr: "db.example.net" } }, "CS-11", "database.cidr"));
  it("every problem in one run", () => {
    const all = refusal({ ...example(), replicas: 2, runnerClusters: [{ ...cluster(), maxTokenLifetime: 1 }] });
    expect(all.map((d) => d.id).sort()).toEqual(["CS-01", "CS-09"]);
  });
});

describe("G-04: inline secrets are refused anywhere, and never echoed", () => {
  const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
  const cases: [string, (v: Record<string, any>) => void, string][] = [
    [
      "a DSN with a password in place of its Secret",
      (v) => (v.database.dsnSecret = "postgres://compass:hunter2@db.internal:5432/compass"),
      "database.dsnSecret",
    ],
    ["a NATS URL with a password in place of its Secret", (v) => (v.nats.urlSecret = "nats://compass:hunter2@nats:4222"), "nats.urlSecret"],
    ["a value under the master key", (v) => (v.masterKey = { name: "compass-master-key", value: "hunter2" }), "masterKey.value"],
    ["an admin token written inline", (v) => (v.adminToken = "hunter2"), "adminToken"],
    ["a password key", (v) => (v.nats.password = "hunter2"), "nats.password"],
    ["a PEM private key under an unknown key", (v) => (v.forge.appKeyPem = PEM), "forge.appKeyPem"],
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
