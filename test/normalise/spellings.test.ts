// Spellings Kubernetes treats alike, made from the rendered examples by edits:
// each keeps check's verdict on the example (none), and a broken setting is
// caught in every spelling.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { checked, envToConfigMap, errorIds, example, objectOf, podOf, REWRITES, verdict } from "../support/spellings.ts";

/** The workloads whose settings are literal variables (the Server's are flags and Secret references). */
const WORKLOADS: [example: string, kind: string][] = [
  ["compass-runner.yaml", "DaemonSet"],
  ["rootpilot-eks.yaml", "Deployment"],
  ["rootpilot-gke.yaml", "Deployment"],
];

/** A setting of each workload that, broken, is an error, with the rule that catches it. */
const BROKEN: Record<string, { name: string; value: string; id: string }> = {
  "compass-runner.yaml": { name: "COMPASS_SERVER_ADDR", value: "http://compass-server.compass.svc", id: "CR-02" },
  "rootpilot-eks.yaml": { name: "RUNNER_DRAIN_TIMEOUT_MS", value: "3600000", id: "RP-03" },
};

describe("an equivalent spelling keeps the verdict of the rendered form", () => {
  for (const [name, kind] of WORKLOADS) {
    const base = verdict(example(name));
    for (const { name: spelling, edit } of REWRITES) {
      const objects = example(name);
      edit(objects, kind);
      // An edit with nothing to change here (no readOnly mount to drop) proves nothing.
      if (JSON.stringify(objects) === JSON.stringify(example(name))) continue;
      it(`${name}: ${spelling}`, () => {
        const lines = verdict(objects).filter((line) => !(spelling.includes("twice") && line.startsWith("objects warning")));
        expect(lines).toEqual(base);
      });
    }
  }
});

describe("a broken setting is caught in every spelling", () => {
  for (const [name, { name: setting, value, id }] of Object.entries(BROKEN)) {
    const kind = WORKLOADS.find(([n]) => n === name)![1];
    const broken = (objects: K8sObject[]) => {
      podOf(objects, kind).containers[0].env.find((e: { name: string }) => e.name === setting).value = value;
      return objects;
    };
    it(`${name}: ${id} as written`, () => {
      expect(errorIds(broken(example(name)))).toContain(id);
    });
    for (const how of ["envFrom", "configMapKeyRef"] as const) {
      it(`${name}: ${id} through ${how}`, () => {
        const objects = broken(example(name));
        envToConfigMap(objects, kind, how, [setting]);
        expect(errorIds(objects)).toContain(id);
      });
    }
    it(`${name}: ${id} through $(VAR)`, () => {
      const objects = broken(example(name));
      const env = podOf(objects, kind).containers[0].env;
      const entry = env.find((e: { name: string }) => e.name === setting);
      env.unshift({ name: "RIGGING_TEST_PART", value: entry.value });
      entry.value = "$(RIGGING_TEST_PART)";
      expect(errorIds(objects)).toContain(id);
    });
  }
});

describe("what belongs to a system", () => {
  it("a ConfigMap read only through envFrom belongs to the workload that reads it", () => {
    const objects = example("compass-runner.yaml");
    envToConfigMap(objects, "DaemonSet", "envFrom");
    expect(checked(objects).unrecognised).toEqual([]);
  });

  const binding = (subject: Record<string, string>) => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "runner-reads", namespace: "compass-runner" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    subjects: [subject],
  });
  it.each([
    ["as a ServiceAccount", { kind: "ServiceAccount", name: "compass-runner", namespace: "compass-runner" }],
    ["as the user its token is", { kind: "User", name: "system:serviceaccount:compass-runner:compass-runner", apiGroup: "rbac.authorization.k8s.io" }],
    ["as the group of its namespace's accounts", { kind: "Group", name: "system:serviceaccounts:compass-runner", apiGroup: "rbac.authorization.k8s.io" }],
    ["as the group of every account", { kind: "Group", name: "system:serviceaccounts", apiGroup: "rbac.authorization.k8s.io" }],
  ])("a binding to the Runner's ServiceAccount %s is CR-05", (_, subject) => {
    expect(errorIds([...example("compass-runner.yaml"), binding(subject)])).toContain("CR-05");
  });
});

describe("namespaces", () => {
  it("an object that omits the namespace every other names is judged there, with a warning", () => {
    const objects = example("compass-runner.yaml");
    delete objectOf(objects, "NetworkPolicy").metadata.namespace;
    expect(verdict(objects)).toEqual([expect.stringMatching(/^objects warning NetworkPolicy\//)]);
  });

  it("a NetworkPolicy in another namespace than the Runner leaves it open (CR-15)", () => {
    const objects = example("compass-runner.yaml");
    for (const policy of objects.filter((o) => o.kind === "NetworkPolicy")) policy.metadata.namespace = "elsewhere";
    expect(errorIds(objects)).toContain("CR-15");
  });
});
