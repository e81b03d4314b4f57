// CS-15: a runner-clusters entry the Server can use. The Server fetches
// discovery and keys with the system roots (or caFile) and no credentials
// (compass-interfaces §7 R4, R5), so the cluster's own API server as issuer
// needs its CA and a jwksFile, or discovery opened by an opted-in binding.
import { readFileSync } from "node:fs";
import type { Deployment } from "kubernetes-types/apps/v1";
import type { ConfigMap } from "kubernetes-types/core/v1";
import type { ClusterRoleBinding } from "kubernetes-types/rbac/v1";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { parseValuesFile } from "../../../src/parse/source.ts";
import { renderSource } from "../../../src/pipeline.ts";
import { inClusterIssuer } from "../../../src/systems/compass-contract/interface.ts";
import { BUN, ROOT, runCli, runProcess, tempFile } from "../../support/cli.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { expectRefused, render } from "../../support/values.ts";
import { catalog } from "../../../src/systems/registry.ts";

const server = () => parse(readFileSync("examples/compass-server.yaml", "utf8")) as Record<string, any>;
const compass = () => parse(readFileSync("examples/compass.yaml", "utf8")) as Record<string, any>;
const IN_CLUSTER = "https://kubernetes.default.svc.cluster.local";
const egress = [{ cidr: "10.96.0.1/32", ports: [{ port: 443 }] }];

/** The example's entry with `change` applied (undefined removes a key). */
function withEntry(change: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, any> {
  const v = server();
  const entry = { ...v.runnerClusters[0], ...change };
  for (const key of Object.keys(entry)) if (entry[key] === undefined) delete entry[key];
  return { ...v, runnerClusters: [entry], ...extra };
}

const clustersFile = (objects: K8sObject[]) =>
  parse((objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-runner-clusters")) as ConfigMap & K8sObject).data!["clusters.yaml"])
    .clusters[0];
const podSpec = (objects: K8sObject[]) =>
  (objects.find((o) => o.kind === "Deployment" && o.metadata.name === "compass-server") as Deployment & K8sObject).spec!.template.spec!;
const bindings = (objects: K8sObject[]) => objects.filter((o) => o.kind === "ClusterRoleBinding") as (ClusterRoleBinding & K8sObject)[];

describe("an in-cluster issuer with caFile and jwksFile", () => {
  const { objects, notes } = renderSource(parseValuesFile(stringify(server()), "values.yaml"));

  it("names both files in the Server's file and mounts kube-root-ca.crt (ca.crt) and the installer's ConfigMap", () => {
    const entry = clustersFile(objects);
    expect(entry.jwksFile).toBe("/etc/compass/runner-cluster-files/local/jwks.json");
    expect(entry.caFile).toBe("/etc/compass/runner-cluster-files/local/ca.crt");
    expect(podSpec(objects).volumes).toContainEqual({
      name: "runner-cluster-files",
      projected: {
        sources: [
          { configMap: { name: "compass-runner-jwks", items: [{ key: "jwks.json", path: "local/jwks.json" }] } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "local/ca.crt" }] } },
        ],
      },
    });
    expect(bindings(objects)).toEqual([]);
  });

  it("prints how to fill the jwksFile ConfigMap from the cluster's keys", () => {
    expect(notes).toContain(
      "      kubectl get --raw /openid/v1/jwks > jwks.json && kubectl -n compass create configmap compass-runner-jwks --from-file=jwks.json=jwks.json",
    );
  });

  it("is strict-valid and passes the catalog", () => {
    for (const object of objects) expect(validateStrict(object)).toEqual([]);
    expect(catalog.checkObjects(objects).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("keeps a caFile the entry names itself", () => {
    const entry = clustersFile(render(withEntry({ caFile: { configMap: "my-ca", key: "root.pem" } })));
    expect(entry.caFile).toBe("/etc/compass/runner-cluster-files/local/ca.crt");
    const sources = (podSpec(render(withEntry({ caFile: { configMap: "my-ca", key: "root.pem" } }))).volumes!.find((v) => v.name === "runner-cluster-files")!
      .projected!.sources ?? []) as { configMap?: { name: string } }[];
    expect(sources.map((s) => s.configMap?.name)).toEqual(["compass-runner-jwks", "my-ca"]);
  });
});

describe("an in-cluster issuer with discovery opened, opted in", () => {
  const values = withEntry({ jwksFile: undefined, allowUnauthenticatedDiscovery: true }, { issuerEgress: egress });
  const { objects, notes } = renderSource(parseValuesFile(stringify(values), "values.yaml"));

  it("renders the ClusterRoleBinding of the discovery role to system:unauthenticated, and the cluster CA", () => {
    expect(bindings(objects)).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ name: "compass-server.compass-issuer-discovery" }),
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:service-account-issuer-discovery" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:unauthenticated" }],
      }),
    ]);
    const entry = clustersFile(objects);
    expect(entry.caFile).toBe("/etc/compass/runner-cluster-files/local/ca.crt");
    expect(entry.jwksFile).toBeUndefined();
  });

  it("states the trade-off in the notes", () => {
    expect(notes.join("\n")).toMatch(
      /lets system:unauthenticated read the issuer's discovery and keys: anyone who reaches the API server can, without credentials/,
    );
  });

  it("is strict-valid, passes the catalog, and check finds nothing once the binding is there", () => {
    for (const object of objects) expect(validateStrict(object)).toEqual([]);
    expect(catalog.checkObjects(objects).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("check flags the same file without the binding (CS-15)", () => {
    const without = objects.filter((o) => o.kind !== "ClusterRoleBinding");
    const found = catalog.checkObjects(without).filter((f) => f.id === "CS-15");
    expect(found.map((f) => f.message)).toEqual([
      "cluster local (issuer https://kubernetes.default.svc.cluster.local, this cluster's API server) has no jwksFile, and no ClusterRoleBinding in this set opens issuer discovery to system:unauthenticated: the Server sends no credentials, so its keys stay unavailable",
    ]);
  });

  it("renders the same bytes twice under Node and once under Bun", () => {
    const file = tempFile(stringify({ ...values, designed: { P4: true }, adminToken: { name: "compass-admin-token" } }), "opted-in.yaml");
    const first = runCli(["render", file]);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("kind: ClusterRoleBinding");
    expect(first.out).toContain("--admin-token-file");
    expect(runCli(["render", file]).out).toBe(first.out);
    const bun = runProcess(BUN, [`${ROOT}/src/cli/main.ts`, "render", file]);
    expect(bun.code).toBe(0);
    expect(bun.out).toBe(first.out);
  });
});

describe("a public issuer needs neither", () => {
  const objects = render(withEntry({ issuer: "https://oidc.eks.eu-west-1.amazonaws.com/id/EXAMPLE", jwksFile: undefined }, { issuerEgress: egress }));

  it("gets no caFile, no jwksFile and no binding", () => {
    const entry = clustersFile(objects);
    expect(entry.caFile).toBeUndefined();
    expect(entry.jwksFile).toBeUndefined();
    expect(bindings(objects)).toEqual([]);
    expect(podSpec(objects).volumes!.map((v) => v.name)).not.toContain("runner-cluster-files");
    expect(catalog.checkObjects(objects).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("refuses allowUnauthenticatedDiscovery for it: it opens nothing the Server needs", () => {
    expectRefused(
      withEntry({ issuer: "https://oidc.example.com", jwksFile: undefined, allowUnauthenticatedDiscovery: true }, { issuerEgress: egress }),
      "CS-15",
      "runnerClusters[0].allowUnauthenticatedDiscovery",
    );
  });
});

describe("an in-cluster issuer with neither is refused, with the fix", () => {
  it("CompassServer: at runnerClusters[0].issuer, with its line", () => {
    const d = expectRefused(withEntry({ jwksFile: undefined }, { issuerEgress: egress }), "CS-15", "runnerClusters[0].issuer");
    expect(d.message).toContain("is this cluster's API server, whose discovery and keys need credentials the Server does not send");
    expect(d.fix).toMatch(/jwksFile: \{configMap: <name>\} and fill it from kubectl get --raw \/openid\/v1\/jwks/);
    expect(d.fix).toMatch(/allowUnauthenticatedDiscovery: true/);
  });

  it("kind: Compass: at server.cluster.issuer", () => {
    const v = compass();
    delete v.server.cluster.jwksFile;
    v.server.issuerEgress = egress;
    expectRefused(v, "CS-15", "server.cluster.issuer");
  });

  it("a jwksURI on the API server itself is no way around it", () => {
    expectRefused(
      withEntry({ jwksFile: undefined, jwksURI: "https://kubernetes.default.svc/openid/v1/jwks" }, { issuerEgress: egress }),
      "CS-15",
      "runnerClusters[0].issuer",
    );
  });
});

describe("a jwksFile or caFile ConfigMap must be a Kubernetes name and key (CS-09)", () => {
  it.each([
    ["a ConfigMap name with capitals", { jwksFile: { configMap: "Runner_Keys" } }, "runnerClusters[0].jwksFile.configMap"],
    ["a key with a slash", { jwksFile: { configMap: "keys", key: "a/b.json" } }, "runnerClusters[0].jwksFile.key"],
    ["a key over 253 characters", { jwksFile: { configMap: "keys", key: "k".repeat(254) } }, "runnerClusters[0].jwksFile.key"],
    ["a caFile ConfigMap name with a space", { caFile: { configMap: "my ca" } }, "runnerClusters[0].caFile.configMap"],
  ])("%s", (_what, change, path) => {
    expectRefused(withEntry(change), "CS-09", path);
  });
});

describe("what counts as the cluster's own API server", () => {
  it.each([
    ["https://kubernetes.default.svc.cluster.local", true],
    ["https://kubernetes.default.svc", true],
    ["https://kubernetes.default", true],
    ["https://kubernetes", true],
    ["https://kubernetes.default.svc.corp.example", true],
    ["https://oidc.eks.eu-west-1.amazonaws.com/id/X", false],
    ["https://container.googleapis.com/v1/projects/p/locations/l/clusters/c", false],
    ["https://kubernetes.example.com", false],
    ["not a url", false],
  ])("%s: %s", (issuer, expected) => {
    expect(inClusterIssuer(issuer)).toBe(expected);
  });
  it("the example's issuer is one", () => expect(inClusterIssuer(IN_CLUSTER)).toBe(true));
});
