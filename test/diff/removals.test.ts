// `rigging diff LIVE NEW`: a field the live object's record of what was applied
// (last-applied-configuration, or the kubectl Apply entry of managedFields)
// holds and NEW drops is removed by the apply; a default or another
// manager's field is not.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { clientSideApplied, serverSideApplied } from "./live-apply.ts";

const RUNNER = "examples/compass-runner.yaml";
const TOLERATION = 'toleration:\n  key: compass.rigel.build/kvm\n  value: "true"\n  effect: NoSchedule\n';
const rendered = (file: string) => renderSource(parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file)).objects;
const diff = (...args: string[]) => runInProcess(["diff", ...args]);

/** The Runner's values without its toleration. */
function withoutToleration(): string {
  const text = readFileSync(join(ROOT, RUNNER), "utf8");
  expect(text).toContain(TOLERATION);
  return tempFile(text.replace(TOLERATION, ""), "values.yaml");
}

const daemonSet = (list: Record<string, any>) => list.items.find((o: K8sObject) => o.kind === "DaemonSet");
const fieldLines = (out: string) => out.split("\n").filter((l) => l.startsWith("    "));

describe("diff: what the apply removes from the live object", () => {
  it("client-side apply: a toleration in last-applied-configuration that NEW drops is a removal, with its path", () => {
    const list = clientSideApplied(rendered(RUNNER));
    const ds = daemonSet(list);
    // Real shapes: the annotation holds what was applied, the Update entry owns the server's defaults too.
    expect(JSON.parse(ds.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]).spec.template.spec.tolerations).toHaveLength(1);
    const owned = ds.metadata.managedFields[0].fieldsV1["f:spec"]["f:template"]["f:spec"];
    expect(owned["f:tolerations"]).toEqual({});
    expect(owned["f:containers"]['k:{"name":"compass-runner"}']["f:terminationMessagePath"]).toEqual({});
    const live = tempFile(stringify(list), "live.yaml");
    expect(diff(live, RUNNER)).toEqual({ code: 0, out: "summary: no change\n", err: "" });

    const r = diff(live, withoutToleration());
    expect(r.code).toBe(1);
    expect(r.out).toContain("~ apps/DaemonSet compass-runner/compass-runner\n");
    expect(fieldLines(r.out)).toEqual([
      '    spec.template.spec.tolerations: [{"key":"compass.rigel.build/kvm","operator":"Equal","value":"true","effect":"NoSchedule"}] -> (none)',
    ]);
    expect(r.out).toContain("  consequence: restarts the Runner on its node kvm-node-1");
    // The other way: the live side's applied field is what NEW adds.
    expect(fieldLines(diff(withoutToleration(), live).out)).toEqual([
      '    spec.template.spec.tolerations: (none) -> [{"key":"compass.rigel.build/kvm","operator":"Equal","value":"true","effect":"NoSchedule"}]',
    ]);
  });

  it("server-side apply: what the kubectl Apply entry owns alone goes; defaults and another manager's env entry stay", () => {
    const applied = structuredClone(rendered(RUNNER)) as Record<string, any>[];
    const container = applied.find((o) => o.kind === "DaemonSet")!.spec.template.spec.containers[0];
    container.env = [...(container.env ?? []), { name: "LEGACY", value: "1" }];
    const list = serverSideApplied(applied as K8sObject[]);
    const ds = daemonSet(list);
    ds.spec.template.spec.containers[0].env.push({ name: "DEBUG", value: "1" });
    ds.spec.template.spec.nodeSelector["example.com/pool"] = "kvm";
    ds.metadata.managedFields.push(
      {
        apiVersion: "apps/v1",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:spec": {
            "f:template": {
              "f:spec": {
                "f:containers": { 'k:{"name":"compass-runner"}': { "f:env": { 'k:{"name":"DEBUG"}': { ".": {}, "f:name": {}, "f:value": {} } } } },
                "f:nodeSelector": { "f:example.com/pool": {} },
              },
            },
          },
        },
        manager: "kubectl-edit",
        operation: "Update",
        time: "2026-12-01T09:30:00Z",
      },
      {
        apiVersion: "apps/v1",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:status": { "f:currentNumberScheduled": {}, "f:numberReady": {}, "f:observedGeneration": {} } },
        manager: "kube-controller-manager",
        operation: "Update",
        subresource: "status",
        time: "2026-12-01T09:31:00Z",
      },
    );
    expect(ds.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]).toBeUndefined();
    expect(
      ds.metadata.managedFields[0].fieldsV1["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"compass-runner"}']["f:terminationMessagePath"],
    ).toBeUndefined();
    const live = tempFile(stringify(list), "live.yaml");

    const r = diff(live, withoutToleration());
    expect(r.code).toBe(1);
    expect(fieldLines(r.out)).toEqual([
      '    spec.template.spec.containers[compass-runner].env[LEGACY]: {"name":"LEGACY","value":"1"} -> (none)',
      '    spec.template.spec.tolerations: [{"key":"compass.rigel.build/kvm","operator":"Equal","value":"true","effect":"NoSchedule"}] -> (none)',
    ]);
    // Another manager, not kubectl's: --field-manager names the one that applies.
    const other = diff(live, withoutToleration(), "--field-manager", "kustomize-controller");
    expect(other.out).toBe("summary: no change\n");
  });

  it("a map a manager owns with another: only the keys it owns alone go", () => {
    const list = serverSideApplied(rendered(RUNNER));
    const ds = daemonSet(list);
    ds.spec.template.spec.nodeSelector["example.com/pool"] = "kvm";
    ds.metadata.managedFields.push({
      apiVersion: "apps/v1",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:nodeSelector": { "f:example.com/pool": {} } } } } },
      manager: "node-pool-labeller",
      operation: "Apply",
    });
    const next = structuredClone(rendered(RUNNER)) as Record<string, any>[];
    delete next.find((o) => o.kind === "DaemonSet")!.spec.template.spec.nodeSelector;
    const r = diff(tempFile(stringify(list), "live.yaml"), tempFile(next.map((o) => stringify(o)).join("---\n"), "next.yaml"));
    // example.com/pool, the other manager's, stays: not among the removals.
    expect(fieldLines(r.out)).toEqual([
      '    spec.template.spec.nodeSelector.kubernetes.io/arch: "amd64" -> (none)',
      '    spec.template.spec.nodeSelector.kubernetes.io/hostname: "kvm-node-1" -> (none)',
      '    spec.template.spec.nodeSelector.kubernetes.io/os: "linux" -> (none)',
    ]);
  });
});
