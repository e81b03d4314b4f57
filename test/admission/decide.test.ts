// The decider decides identities as classes, and the judge asks each
// DaemonSet request through one request object however often it asks it
// (src/admission/decide.ts, src/admission/requests.ts). Neither may change a decision.
import { describe, expect, it } from "vitest";
import { decider } from "../../src/admission/decide.ts";
import type { RequestShape } from "../../src/admission/match.ts";
import { planPolicies } from "../../src/admission/plan.ts";
import { newAdmissionRun, type AdmissionRun } from "../../src/admission/run.ts";
import { judgeAdmission } from "../../src/admission/judge.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";

const policy = (validations: string[]): K8sObject[] => [
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "p" },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CONNECT"], resources: ["pods/exec"] }] },
      validations: validations.map((expression) => ({ expression })),
    },
  },
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: "b" },
    spec: { policyName: "p", validationActions: ["Deny"] },
  },
];

const namespace: K8sObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } };
const exec: RequestShape = {
  operation: "CONNECT",
  group: "",
  version: "v1",
  resource: "pods",
  subResource: "exec",
  kind: "PodExecOptions",
  namespace: "ns",
  name: "runner-x",
  object: { kind: "PodExecOptions", apiVersion: "v1", command: ["sh"] },
};

/** The decisions of one decider over `asks`, in order, and the plain path's. */
function decisions(objects: K8sObject[], asks: [string, string[] | undefined][]) {
  const decided = (run: AdmissionRun) => {
    const decide = decider(run, planPolicies(run, objects).planned, namespace);
    return asks.map(([user, groups]) => decide(exec, user, groups).allowed);
  };
  return { fast: decided(newAdmissionRun()), plain: decided(newAdmissionRun({ plain: true })) };
}

describe("an identity's class", () => {
  it("tells one user name with other groups apart", () => {
    const masters = ["system:masters", "system:authenticated"];
    const developers = ["developers", "system:authenticated"];
    const { fast, plain } = decisions(policy(["'system:masters' in request.userInfo.groups"]), [
      ["alice", masters],
      ["alice", developers],
      ["alice", undefined],
      ["alice", masters],
      ["bob", developers],
    ]);
    expect(fast).toEqual(plain);
    expect(fast).toEqual([true, false, false, true, false]);
  });

  it("tells user names with the same groups apart", () => {
    const groups = ["system:authenticated"];
    const { fast, plain } = decisions(policy(["request.userInfo.username == 'alice'"]), [
      ["alice", groups],
      ["bob", groups],
      ["alice", groups],
    ]);
    expect(fast).toEqual(plain);
    expect(fast).toEqual([true, false, true]);
  });
});

describe("the DaemonSet requests, each asked through one request", () => {
  const rendered = (): K8sObject[] => renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;
  const context = (objects: K8sObject[]) => {
    const ds = objects.find((o) => o.kind === "DaemonSet")!;
    return { namespace: ds.metadata.namespace!, serviceAccount: "compass-runner", daemonSet: ds, anchor: ds };
  };
  // Each DaemonSet operation and the status update decided apart: a policy
  // that tells them apart is judged for each, with the findings each asks for.
  const variants: [string, (spec: Record<string, unknown>) => void, RegExp[]][] = [
    ["as rendered", () => {}, []],
    [
      "status updates denied",
      (spec) => {
        (spec as { matchConstraints: { resourceRules: { resources: string[] }[] } }).matchConstraints.resourceRules[0].resources.push("daemonsets/status");
        (spec.validations as unknown[]).unshift({ expression: "request.subResource != 'status'" });
      },
      [/^a DaemonSet status update by the ServiceAccount kube-system\/daemon-set-controller is denied/],
    ],
    [
      "deletes denied",
      (spec) => (spec.validations as unknown[]).unshift({ expression: "request.operation != 'DELETE'" }),
      [
        /^no identity may delete the Runner DaemonSet/,
        /^deleting the Runner DaemonSet by the ServiceAccount kube-system\/namespace-controller is denied/,
        /^deleting the Runner DaemonSet by the ServiceAccount kube-system\/generic-garbage-collector is denied/,
      ],
    ],
    [
      "updates denied",
      (spec) => (spec.validations as unknown[]).unshift({ expression: "request.operation != 'UPDATE' || request.subResource == 'status'" }),
      [/^no identity may update the Runner DaemonSet/, /^updating the Runner DaemonSet by the ServiceAccount kube-system\/generic-garbage-collector is denied/],
    ],
    [
      "creates denied",
      (spec) => (spec.validations as unknown[]).unshift({ expression: "request.operation != 'CREATE'" }),
      [/^no identity may create the Runner DaemonSet/],
    ],
  ];
  for (const [name, change, expected] of variants) {
    it(`finds what the plain path finds: ${name}`, () => {
      const objects = rendered();
      for (const p of objects.filter((o) => o.kind === "ValidatingAdmissionPolicy" && String(o.metadata.name).endsWith("-daemonset")))
        change(p.spec as Record<string, unknown>);
      const plain = judgeAdmission(objects, context(objects), newAdmissionRun({ plain: true }));
      const findings = judgeAdmission(objects, context(objects), newAdmissionRun());
      expect(findings).toEqual(plain);
      const messages = findings.map((f) => f.message);
      for (const pattern of expected) expect(messages.filter((m) => pattern.test(m))).toHaveLength(1);
      if (expected.length === 0) expect(findings).toEqual([]);
    });
  }
});
