// One registry of systems; rules carry their source, and severity follows it.
import { describe, expect, it } from "vitest";
import { classify } from "../../src/check/classify.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ROOT, runInProcess } from "../support/cli.ts";
import { SYSTEMS, catalog, kinds } from "../../src/systems/registry.ts";

const unique = (values: readonly string[]) => expect(new Set(values).size).toBe(values.length);

describe("the registry of systems", () => {
  it("names each system, values kind, app and ID prefix once", () => {
    unique(SYSTEMS.map((s) => s.name));
    unique(kinds());
    unique(SYSTEMS.flatMap((s) => s.apps));
    unique(catalog.idPrefixes());
  });

  it("registers every system folder: a folder with a system.ts and no registry line is caught", () => {
    const folders = readdirSync(join(ROOT, "src", "systems"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, "src", "systems", entry.name, "system.ts")))
      .map((entry) => entry.name);
    const names = SYSTEMS.map((s) => s.name);
    for (const folder of folders) expect(names, `src/systems/${folder}/ has no registry line`).toContain(folder);
    // A registered name with no folder here is the tests' fixture system, registered from outside (extra-system.test.ts).
    expect(names.filter((name) => !folders.includes(name))).toEqual(process.env.RIGGING_TEST_EXTRA_SYSTEM ? [process.env.RIGGING_TEST_EXTRA_SYSTEM] : []);
  });

  it("each system's rules carry its ID prefix", () => {
    for (const system of SYSTEMS) for (const rule of system.rules) expect(rule.id.startsWith(`${system.idPrefix}-`)).toBe(true);
  });

  it("the catalog is the general rules plus every system's own", () => {
    for (const system of SYSTEMS) for (const rule of system.rules) expect(catalog.allRules()).toContain(rule);
    expect(catalog.allRules().filter((r) => !r.id.startsWith("G-")).length).toBe(SYSTEMS.flatMap((s) => s.rules).length);
  });

  it("a profile is judged by the catalog's rules for it, in its order: the general ones and its own system's", () => {
    // catalog.rulesFor reads one system's rules (a render loads no other system's); a
    // rule of one system that judged another profile would be lost here.
    for (const { name } of SYSTEMS) expect(catalog.rulesFor(name)).toEqual(catalog.allRules().filter((r) => r.profiles.includes(name)));
  });

  it("Pod Security levels come from the record: each example's namespace enforces it, privileged only where a pod mounts a hostPath", () => {
    for (const system of SYSTEMS) {
      for (const kind of system.valuesKinds) {
        const rendered = runInProcess(["render", join(ROOT, kind.example)]);
        expect(rendered.code, kind.example).toBe(0);
        const objects = parseAllDocuments(rendered.out).map((d) => d.toJS() as K8sObject);
        const own = objects.filter((o) => system.apps.includes(String(o.metadata?.labels?.["app.kubernetes.io/name"])));
        for (const ns of own.filter((o) => o.kind === "Namespace"))
          expect(ns.metadata.labels?.["pod-security.kubernetes.io/enforce"], `${kind.example} ${ns.metadata.name}`).toBe(system.podSecurity);
        const hostPath = own.some((o) => JSON.stringify((o as { spec?: unknown }).spec ?? {}).includes('"hostPath"'));
        expect(system.podSecurity === "privileged", `${system.name}: privileged exactly when a pod mounts a hostPath`).toBe(hostPath);
      }
    }
  });

  it("an unlabelled workload is recognised by a shape of its system", () => {
    const runner = (container: Record<string, unknown>): K8sObject =>
      ({
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: "r", namespace: "n" },
        spec: { selector: {}, template: { spec: { containers: [{ name: "c", image: `example/x@sha256:${"a".repeat(64)}`, ...container }] } } },
      }) as unknown as K8sObject;
    const profile = (o: K8sObject) => classify([o]).profileOf.get(o);
    expect(profile(runner({ args: ["--server=https://compass.example.com"] }))).toBe("compass-runner");
    expect(profile(runner({ args: ["--server", "https://compass.example.com"] }))).toBe("compass-runner");
    expect(profile(runner({ env: [{ name: "COMPASS_SERVER_ADDR", value: "https://compass.example.com" }] }))).toBe("compass-runner");
    expect(profile(runner({ args: ["--runner-clusters", "/etc/compass/clusters.yaml"] }))).toBe("compass-server");
    expect(profile(runner({ env: [{ name: "RUNNER_ATTESTATION_MODE", value: "gke-oidc" }] }))).toBe("rootpilot-runner");
    expect(profile(runner({ args: ["--verbose"] }))).toBeUndefined();
  });
});

describe("severity follows the source", () => {
  const sourced = catalog.allRules().filter((r) => r.id.startsWith("G-") || r.id.startsWith("RP-"));

  it("every G- and RP- rule states its source", () => {
    expect(sourced.filter((r) => !r.source).map((r) => r.id)).toEqual([]);
  });

  it("an error stands on a seed or an upstream fact; a warning is rigging's choice", () => {
    for (const rule of catalog.allRules().filter((r) => r.source)) {
      expect(rule.severity, rule.id).toBe(rule.source!.from === "rigging" ? "warning" : "error");
      expect(rule.source!.says.length, rule.id).toBeGreaterThan(20);
    }
  });

  it("every opinion says what it asks for and why", () => {
    for (const rule of catalog.allRules())
      for (const [key, o] of Object.entries(rule.opinions ?? {}))
        expect([o.summary.length > 5, o.because.length > 20], `${rule.id} ${key}`).toEqual([true, true]);
  });

  it("what the seeds allow is a warning or an opinion: G-07, G-10 audit-warn, RP-01, RP-07 and RP-08", () => {
    const byId = (id: string) => catalog.allRules().find((r) => r.id === id)!;
    expect(byId("G-07").severity).toBe("warning");
    expect(Object.keys(byId("G-10").opinions ?? {})).toContain("audit-warn");
    expect(Object.keys(byId("RP-01").opinions ?? {})).toEqual(expect.arrayContaining(["uid", "home-writable"]));
    expect(Object.keys(byId("RP-07").opinions ?? {})).toContain("aws-mount");
    expect(byId("RP-07").judged).toEqual({ by: "manifests", except: expect.stringMatching(/Vault/) });
    expect(Object.keys(byId("RP-08").opinions ?? {})).toEqual(expect.arrayContaining(["no-policy", "any-destination"]));
  });
});
