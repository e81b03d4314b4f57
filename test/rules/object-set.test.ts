// ObjectSet finds a set's kinds, pods and containers once and shares them
// with every rule: the shared lists must hold what a scan of the objects
// finds, in order, and no rule may change them for the next.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ObjectSet } from "../../src/rules/engine.ts";
import { ROOT } from "../support/cli.ts";

const rendered = (): K8sObject[] => renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;

const pod = (name: string, spec: unknown): K8sObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec }) as K8sObject;

describe("ObjectSet", () => {
  it("ofKind lists the objects of a kind in their order, and nothing for a kind the set lacks", () => {
    const objects = rendered();
    const set = new ObjectSet("compass-runner", objects);
    for (const kind of new Set(objects.map((o) => o.kind))) expect(set.ofKind(kind)).toEqual(objects.filter((o) => o.kind === kind));
    expect(set.ofKind("ValidatingAdmissionPolicy").map((o) => o.metadata.name)).toEqual(
      objects.filter((o) => o.kind === "ValidatingAdmissionPolicy").map((o) => o.metadata.name),
    );
    expect(set.ofKind("Ingress")).toEqual([]);
  });

  it("pods and containers: every pod spec (bare Pods and templates) and every init and app container, with their paths", () => {
    const objects = [
      pod("a", { initContainers: [{ name: "i" }], containers: [{ name: "c1" }, { name: "c2" }] }),
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" } } as K8sObject,
      { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds" }, spec: { template: { spec: { containers: [{ name: "d" }] } } } } as K8sObject,
      pod("no-spec", undefined),
      pod("odd", { containers: "not a list" }),
    ];
    const set = new ObjectSet("compass-runner", objects);
    expect(set.pods().map((p) => [p.object.metadata.name, p.path])).toEqual([
      ["a", ["spec"]],
      ["ds", ["spec", "template", "spec"]],
      ["odd", ["spec"]],
    ]);
    expect(set.containers().map((c) => [c.object.metadata.name, c.container.name, c.containerPath])).toEqual([
      ["a", "i", ["spec", "initContainers", 0]],
      ["a", "c1", ["spec", "containers", 0]],
      ["a", "c2", ["spec", "containers", 1]],
      ["ds", "d", ["spec", "template", "spec", "containers", 0]],
    ]);
  });

  it("is computed once: every rule gets the same lists, which no rule can change", () => {
    const set = new ObjectSet("compass-runner", rendered());
    expect(set.pods()).toBe(set.pods());
    expect(set.containers()).toBe(set.containers());
    expect(set.ofKind("DaemonSet")).toBe(set.ofKind("DaemonSet"));
    expect(() => (set.ofKind("DaemonSet") as K8sObject[]).push(set.objects[0])).toThrow(TypeError);
    expect(() => set.pods().pop()).toThrow(TypeError);
    expect(() => set.containers().splice(0, 1)).toThrow(TypeError);
    expect(() => (set.ofKind("Ingress") as K8sObject[]).push(set.objects[0])).toThrow(TypeError);
    expect(set.ofKind("DaemonSet")).toHaveLength(1);
    expect(set.ofKind("Ingress")).toHaveLength(0);
  });

  it("derived: computed once per set by the first rule that asks, and per set", () => {
    const calls: ObjectSet[] = [];
    const daemonSets = (set: ObjectSet) => {
      calls.push(set);
      return set.objects.filter((o) => o.kind === "DaemonSet");
    };
    const one = new ObjectSet("compass-runner", rendered());
    const other = new ObjectSet("compass-runner", rendered().slice(0, 1));
    expect(one.derived(daemonSets)).toBe(one.derived(daemonSets));
    expect(one.derived(daemonSets)).toHaveLength(1);
    expect(other.derived(daemonSets)).toEqual([]);
    expect(calls).toEqual([one, other]);
  });
});
