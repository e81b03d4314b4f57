// The Compass Runner's policies judged by what they select, not their
// spelling: NetworkPolicy ipBlocks as address ranges (CR-15), admission
// policies selecting the namespace as a set (CR-01, CR-06), and requests
// judged on the object after the API server's defaults (CR-06). Each test
// edits the rendered examples/compass-runner.yaml.
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { errorIds, objectOf, verdict } from "../../support/spellings.ts";
import { linesOf, runner } from "./spelling-edits.ts";

describe("CR-15: everywhere in every spelling", () => {
  // egress[3] opens the OTLP collector's pods on 4318 (egress[2], on the Server's port 443, is another case).
  const policy = (objects: K8sObject[]) => objectOf(objects, "NetworkPolicy");
  const otlp = (objects: K8sObject[]) => policy(objects).spec.egress[3];

  it.each(["0.0.0.0/0", "0::/0", "::/0", "10.0.0.0/0", "000.0.0.0/0", "::ffff:0.0.0.0/0"])("%s is caught", (cidr) => {
    const objects = runner((o) => void (otlp(o).to[0].ipBlock.cidr = cidr));
    expect(linesOf(objects, "CR-15")).toEqual(["CR-15 error NetworkPolicy/compass-runner spec.egress[3].to[0].ipBlock.cidr"]);
  });

  it.each([
    ["two IPv4 halves in one rule", ["0.0.0.0/1", "128.0.0.0/1"]],
    ["two IPv6 halves in one rule", ["::/1", "8000::/1"]],
    ["quarters, one of them with leading zeros", ["0.0.0.0/2", "064.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"]],
  ])("%s are caught", (_, cidrs) => {
    const objects = runner((o) => void (otlp(o).to = cidrs.map((cidr) => ({ ipBlock: { cidr } }))));
    expect(linesOf(objects, "CR-15")).toEqual(["CR-15 error NetworkPolicy/compass-runner spec.egress[3].to"]);
  });

  it("two halves in two rules on the same ports are caught", () => {
    const objects = runner((o) => {
      otlp(o).to = [{ ipBlock: { cidr: "0.0.0.0/1" } }];
      policy(o).spec.egress.push({ to: [{ ipBlock: { cidr: "128.0.0.0/1" } }], ports: [{ protocol: "TCP", port: 4318 }] });
    });
    expect(linesOf(objects, "CR-15")).toEqual([
      "CR-15 error NetworkPolicy/compass-runner spec.egress[3].to",
      "CR-15 error NetworkPolicy/compass-runner spec.egress[4].to",
    ]);
  });

  it("two halves in two policies on the same ports are caught", () => {
    const objects = runner((o) => {
      otlp(o).to = [{ ipBlock: { cidr: "0.0.0.0/1" } }];
      const other = structuredClone(policy(o));
      other.metadata.name = "compass-runner-more";
      other.spec.egress = [{ to: [{ ipBlock: { cidr: "128.0.0.0/1" } }], ports: [{ protocol: "TCP", port: 4318 }] }];
      o.push(other);
    });
    expect(linesOf(objects, "CR-15")).toEqual([
      "CR-15 error NetworkPolicy/compass-runner spec.egress[3].to",
      "CR-15 error NetworkPolicy/compass-runner-more spec.egress[0].to",
    ]);
  });

  it("halves on different ports are no everywhere", () => {
    const objects = runner((o) => {
      otlp(o).to = [{ ipBlock: { cidr: "0.0.0.0/1" } }];
      policy(o).spec.egress.push({ to: [{ ipBlock: { cidr: "128.0.0.0/1" } }], ports: [{ protocol: "TCP", port: 4317 }] });
    });
    expect(linesOf(objects, "CR-15")).toEqual([]);
  });

  it("a range split in two, or written with leading zeros, keeps the verdict", () => {
    const split = runner((o) => void (otlp(o).to = [{ ipBlock: { cidr: "10.244.20.0/25" } }, { ipBlock: { cidr: "10.244.20.128/25" } }]));
    expect(verdict(split)).toEqual([]);
    const zeros = runner((o) => void (otlp(o).to[0].ipBlock.cidr = "010.244.020.0/24"));
    expect(verdict(zeros)).toEqual([]);
  });
});

describe("CR-01 and CR-06: admission policies selecting the namespace as a set", () => {
  const ADMISSION = ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"];
  const policies = (objects: K8sObject[]) => objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as any[];
  const bySelector = (objects: K8sObject[], selector: unknown) => {
    for (const p of policies(objects)) p.spec.matchConstraints.namespaceSelector = structuredClone(selector);
  };
  const unlabelled = (objects: K8sObject[]) => {
    for (const o of objects) if (ADMISSION.includes(o.kind)) delete o.metadata.labels;
  };
  const IN_RUNNER = { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["compass-runner"] }] };

  it.each([
    ["matchExpressions In", IN_RUNNER],
    [
      "matchExpressions In with another namespace too",
      { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["compass-runner", "x"] }] },
    ],
    ["matchLabels and matchExpressions together", { matchLabels: { "kubernetes.io/metadata.name": "compass-runner" }, ...IN_RUNNER }],
  ])("%s keeps the verdict", (_, selector) => {
    expect(verdict(runner((o) => bySelector(o, selector)))).toEqual([]);
  });

  it("unlabelled policies selecting by matchExpressions are the Runner's, as by matchLabels", () => {
    const byLabels = verdict(runner((o) => unlabelled(o)));
    const byExpressions = verdict(
      runner((o) => {
        unlabelled(o);
        bySelector(o, IN_RUNNER);
      }),
    );
    expect(byExpressions).toEqual(byLabels);
    expect(byExpressions.filter((line) => / error /.test(line))).toEqual([]);
  });

  it("unlabelled policies selecting the namespace by a label of its Namespace are the Runner's", () => {
    const objects = runner((o) => {
      unlabelled(o);
      objectOf(o, "Namespace").metadata.labels = { ...objectOf(o, "Namespace").metadata.labels, "compass.rigel.build/runner": "true" };
      bySelector(o, { matchExpressions: [{ key: "compass.rigel.build/runner", operator: "Exists" }] });
    });
    expect(errorIds(objects)).toEqual([]);
  });

  it.each([
    ["another namespace", { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["elsewhere"] }] }],
    ["every namespace but the Runner's", { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["compass-runner"] }] }],
  ])("policies selecting %s are caught", (_, selector) => {
    expect(errorIds(runner((o) => bySelector(o, selector)))).toContain("CR-06");
    const unplaced = runner((o) => {
      unlabelled(o);
      bySelector(o, selector);
    });
    expect(errorIds(unplaced)).toEqual(expect.arrayContaining(["CR-01"]));
  });

  it("a binding whose matchResources leaves the Runner's namespace out is caught", () => {
    const objects = runner((o) => {
      for (const b of o.filter((x) => x.kind === "ValidatingAdmissionPolicyBinding") as any[])
        b.spec.matchResources = {
          namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["compass-runner"] }] },
        };
    });
    expect(errorIds(objects)).toContain("CR-06");
  });
});

describe("CR-06: the admission simulator judges the object after defaults", () => {
  it("a Runner pod without restartPolicy gets the verdict of restartPolicy: Always", () => {
    const without = runner((_o, p) => void delete p.restartPolicy);
    const always = runner((_o, p) => void (p.restartPolicy = "Always"));
    expect(verdict(without)).toEqual(verdict(always));
    expect(verdict(without)).toEqual([]);
  });

  it("a bare Runner Pod without restartPolicy gets the verdict of restartPolicy: Always", () => {
    const asPod = (restartPolicy?: string) =>
      runner((objects) => {
        const ds = objectOf(objects, "DaemonSet");
        const spec = structuredClone(ds.spec.template.spec);
        if (restartPolicy) spec.restartPolicy = restartPolicy;
        objects.splice(objects.indexOf(ds), 1, {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { ...ds.spec.template.metadata, name: "compass-runner", namespace: ds.metadata.namespace },
          spec,
        } as K8sObject);
      });
    expect(verdict(asPod())).toEqual(verdict(asPod("Always")));
  });
});
