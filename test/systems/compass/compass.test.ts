// kind: Compass renders the Server and the Runner from one file, and the
// Server's cluster entry is derived from the Runner so they agree (CS-09,
// CR-03, CR-04).
import { readFileSync } from "node:fs";
import type { DaemonSet } from "kubernetes-types/apps/v1";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { Diagnostic } from "../../../src/core/diagnostic.ts";
import { ValuesError } from "../../../src/core/errors.ts";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { parseValuesFile } from "../../../src/parse/source.ts";
import { renderFile, renderSource } from "../../../src/pipeline.ts";
import { readRunnerClusters } from "../../../src/systems/compass-contract/runner-clusters.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { catalog } from "../../../src/systems/registry.ts";

const example = () => parse(readFileSync("examples/compass.yaml", "utf8")) as Record<string, any>;

function refusal(values: unknown): Diagnostic[] {
  try {
    renderSource(parseValuesFile(stringify(values), "compass.yaml"));
  } catch (error) {
    if (error instanceof ValuesError) return error.diagnostics;
    throw error;
  }
  throw new Error("the values were accepted");
}

const app = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/name"];

describe("examples/compass.yaml", () => {
  const { objects } = renderFile("examples/compass.yaml");

  it("renders both object sets, strictly schema-valid, with no catalog finding", () => {
    expect(new Set(objects.map(app))).toEqual(new Set(["compass-server", "compass-nats", "compass-runner"]));
    expect(objects.filter((o) => o.kind === "DaemonSet")).toHaveLength(1);
    expect(objects.filter((o) => o.kind === "Deployment" && app(o) === "compass-server")).toHaveLength(1);
    for (const object of objects) expect(validateStrict(object), `${object.kind}/${object.metadata.name}`).toEqual([]);
    expect(catalog.checkObjects(objects)).toEqual([]);
  });

  it("the Server's cluster entry and the Runner's projected token agree", () => {
    const configMap = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("runner-clusters"))!;
    const parsed = readRunnerClusters((configMap.data as Record<string, string>)["clusters.yaml"]);
    // Parsed back as the Server parses it: unknown keys, a second document or a bad duration would be problems.
    expect(parsed.problems).toEqual([]);
    const clusters = parsed.clusters as unknown as Record<string, unknown>[];
    expect(clusters).toHaveLength(1);
    const entry = clusters[0];

    const runner = objects.find((o) => o.kind === "DaemonSet") as DaemonSet & K8sObject;
    const pod = runner.spec!.template.spec!;
    const token = pod.volumes!.flatMap((v) => v.projected?.sources ?? []).find((s) => s.serviceAccountToken)!.serviceAccountToken!;
    const serviceAccount = objects.find((o) => o.kind === "ServiceAccount" && app(o) === "compass-runner")!;

    expect(entry.namespace).toBe(runner.metadata.namespace);
    expect(entry.namespace).toBe(serviceAccount.metadata.namespace);
    expect(entry.serviceAccount).toBe(pod.serviceAccountName);
    expect(entry.serviceAccount).toBe(serviceAccount.metadata.name);
    expect(entry.audience).toBe(token.audience);
    expect(token.audience).toBe("compass-runner");
    expect(typeof entry.maxTokenLifetimeSeconds).toBe("number");
    expect(token.expirationSeconds).toBeLessThanOrEqual(entry.maxTokenLifetimeSeconds as number);
    expect(entry.maxTokenLifetimeSeconds).toBe(example().runner.maxTokenLifetimeSeconds);
    expect(entry.issuer).toBe(example().server.cluster.issuer);
  });

  it("the Runner dials the in-cluster Service, without --server-name unless P9 is asked for (CS-14)", () => {
    const runner = objects.find((o) => o.kind === "DaemonSet") as DaemonSet & K8sObject;
    const container = runner.spec!.template.spec!.containers[0];
    expect(container.env).toContainEqual({ name: "COMPASS_SERVER_ADDR", value: "https://compass-server.compass.svc" });
    expect(container.args).toBeUndefined();
    const service = objects.find((o) => o.kind === "Service" && app(o) === "compass-server")!;
    expect(`${service.metadata.name}.${service.metadata.namespace}`).toBe("compass-server.compass");
    // The Runner's NetworkPolicy lets it reach the Server pods on their TLS port.
    const policy = objects.find((o) => o.kind === "NetworkPolicy" && app(o) === "compass-runner")!;
    expect(JSON.stringify(policy)).toContain('"port":8443');
  });

  it("uses the upstream default maxTokenLifetime (600 s) when the runner section gives none", () => {
    const values = example();
    delete values.runner.maxTokenLifetimeSeconds;
    values.runner.tokenExpirationSeconds = 600;
    const { objects: out } = renderSource(parseValuesFile(stringify(values), "compass.yaml"));
    const configMap = out.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("runner-clusters"))!;
    const entry = readRunnerClusters((configMap.data as Record<string, string>)["clusters.yaml"]).clusters[0] as unknown as Record<string, unknown>;
    expect(entry).toEqual({
      name: "local",
      namespace: "compass-runner",
      serviceAccount: "compass-runner",
      audience: "compass-runner",
      maxTokenLifetimeSeconds: 600,
      issuer: "https://kubernetes.default.svc.cluster.local",
      jwksFile: "/etc/compass/runner-cluster-files/local/jwks.json",
      caFile: "/etc/compass/runner-cluster-files/local/ca.crt",
    });
  });
});

describe("kind: Compass values are refused", () => {
  it("a runner token lifetime above the runner's maxTokenLifetimeSeconds (CR-03)", () => {
    const values = example();
    values.runner.maxTokenLifetimeSeconds = 1800;
    values.runner.tokenExpirationSeconds = 3600;
    const d = refusal(values).find((x) => x.id === "CR-03" && x.path === "runner.tokenExpirationSeconds");
    expect(d?.message).toContain("maxTokenLifetimeSeconds (1800)");
  });

  it("a maxTokenLifetime written in the server's cluster entry (CS-09: it is derived)", () => {
    const values = example();
    values.server.cluster.maxTokenLifetime = 1800;
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CS-09", path: "server.cluster.maxTokenLifetime" }));
  });

  it("a cluster entry namespace written by hand (CS-09: it is derived)", () => {
    const values = example();
    values.server.cluster.namespace = "elsewhere";
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CS-09", path: "server.cluster.namespace" }));
  });

  it("a serverCluster in the runner section (CS-09)", () => {
    const values = example();
    values.runner.serverCluster = { namespace: "compass-runner", serviceAccount: "compass-runner", audience: "compass-runner" };
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CS-09", path: "runner.serverCluster" }));
  });

  it("the Server in the Runner's namespace (CR-06)", () => {
    const values = example();
    values.server.namespace = values.runner.namespace;
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CR-06", path: "server.namespace" }));
  });

  it("runner checks keep their paths under runner (CR-13)", () => {
    const values = example();
    values.runner.nodeSelector = { key: "kubernetes.io/arch", value: "arm64" };
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CR-13", path: "runner.nodeSelector.value" }));
  });

  it("server checks keep their paths under server (CS-01, CS-10)", () => {
    const values = example();
    values.server.replicas = 2;
    expect(refusal(values)).toContainEqual(expect.objectContaining({ id: "CS-01", path: "server.replicas" }));
    const pinned = example();
    pinned.server.nodeSelector = { "kubernetes.io/arch": "amd64" };
    expect(refusal(pinned)).toContainEqual(expect.objectContaining({ id: "CS-10", path: 'server.nodeSelector["kubernetes.io/arch"]' }));
  });
});
