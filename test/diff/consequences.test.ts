// diff's own consequences and the systems' records (System.consequences): diff
// knows no system, so a Compass object's consequences come from the Compass
// record alone, a record two systems share is judged once, and a record names
// and restarts its own Deployments in diff's rollout.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { consequenceRecords, judge, shortOf } from "../../src/diff/consequences.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import type { ObjectDiff, SystemConsequences } from "../../src/systems/consequences.ts";
import { type System, SYSTEMS, systemOf } from "../../src/systems/registry.ts";
import { ROOT } from "../support/cli.ts";

const rendered = (file: string) => renderSource(parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file)).objects;

/** A change to the pod template of `file`'s object of `kind`: its image, on the first container. */
function templateChange(file: string, kind: string): { diffs: ObjectDiff[]; sides: { old: K8sObject[]; new: K8sObject[] } } {
  const old = rendered(file);
  const next = structuredClone(old) as K8sObject[];
  const at = old.findIndex((o) => o.kind === kind);
  const path = "spec.template.spec.containers[0].image";
  (next[at].spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image += "-next";
  const diffs: ObjectDiff[] = [
    { key: `${kind} ${old[at].metadata.name}`, change: "changed", old: old[at], new: next[at], fields: [{ path }], consequences: [] },
  ];
  return { diffs, sides: { old, new: next } };
}

/** A system with nothing but a consequences record: all diff reads of a system. */
const holding = (name: string, consequences: SystemConsequences) => ({ name, consequences }) as unknown as System;

describe("diff's consequences: its own, and each system's record", () => {
  it("with no system, a Compass Runner's template change says nothing and the Server's Deployment gets diff's own downtime, by its name", () => {
    const runner = templateChange("examples/compass-runner.yaml", "DaemonSet");
    judge(runner.diffs, runner.sides, []);
    expect(runner.diffs[0].consequences).toEqual([]);
    const server = templateChange("examples/compass-server.yaml", "Deployment");
    judge(server.diffs, server.sides, []);
    expect(server.diffs[0].consequences.map((c) => c.message)).toEqual([
      "downtime: under Recreate compass-server's pod stops before its new pod starts, so compass-server is down until the new pod is ready",
    ]);
  });

  it("the registered Compass record restarts the Runner and names the Server", () => {
    const runner = templateChange("examples/compass-runner.yaml", "DaemonSet");
    judge(runner.diffs, runner.sides);
    expect(runner.diffs[0].consequences.map((c) => c.id)).toEqual(["runner-restart"]);
    const server = templateChange("examples/compass-server.yaml", "Deployment");
    judge(server.diffs, server.sides);
    expect(server.diffs[0].consequences[0].message).toContain("under Recreate the Compass Server's pod stops");
  });

  it("a record two systems share is judged once, after diff's own; it names and restarts its Deployments itself", () => {
    let judged = 0;
    const record: SystemConsequences = {
      short: { "lamp-restart": "lamp restarts" },
      rows: [],
      nameOf: (d) => (d.metadata.name === "rootpilot-runner" ? "the lamp" : undefined),
      restartsItself: () => false,
      judge(diffs) {
        judged++;
        for (const d of diffs) d.consequences.push({ id: "lamp-restart", message: "the lamp restarts" });
      },
    };
    const change = templateChange("examples/rootpilot-gke.yaml", "Deployment");
    const systems = [holding("lamp-a", record), holding("lamp-b", record)];
    expect(consequenceRecords(systems)).toEqual([record]);
    judge(change.diffs, change.sides, systems);
    expect(judged).toBe(1);
    expect(change.diffs[0].consequences).toEqual([
      { id: "rollout", message: "the lamp rolls out new pods (RollingUpdate)" },
      { id: "lamp-restart", message: "the lamp restarts" },
    ]);
    expect(shortOf("lamp-restart", systems)).toBe("lamp restarts");
    expect(shortOf("rollout", systems)).toBe("rollout");

    const own = templateChange("examples/rootpilot-gke.yaml", "Deployment");
    judge(own.diffs, own.sides, [holding("lamp-c", { ...record, restartsItself: () => true })]);
    expect(own.diffs[0].consequences.map((c) => c.id)).toEqual(["lamp-restart"]);
  });

  it("the Runner's and the Server's records are the one Compass record", () => {
    const records = consequenceRecords(SYSTEMS);
    expect(records).toHaveLength(1);
    expect(systemOf("compass-runner").consequences).toBe(systemOf("compass-server").consequences);
    expect(shortOf("runner-restart")).toBe("Runner restarts");
  });
});
