// The CEL judge bounds an expression's cost as the API server does: an
// expression whose estimated cost passes the per-expression limit
// (celconfig.PerCallLimit, 1,000,000) is refused, as the API server refuses
// the policy, and is never run. Before, nested comprehensions over lists
// written in the expression were run, in time growing with a power of the
// text (1.2 times the text took 5.9 times the time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { CEL_COST_LIMIT } from "../../src/admission/cost.ts";
import { judgeAdmission, type AdmissionTarget } from "../../src/admission/judge.ts";
import { newAdmissionRun } from "../../src/admission/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { ROOT } from "../support/cli.ts";
import { expectLinear } from "../support/linear.ts";

/** One run's admission state for the whole file, as one check run carries it over. */
const run = newAdmissionRun();
const policies = (): K8sObject[] => parseAllDocuments(readFileSync(join(ROOT, "test", "fixtures", "admission", "policies.yaml"), "utf8")).map((d) => d.toJS());
const daemonSet = (): K8sObject =>
  parseAllDocuments(readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "valid.yaml"), "utf8"))
    .map((d) => d.toJS() as K8sObject)
    .find((o) => o.kind === "DaemonSet")!;
const context = (): AdmissionTarget => {
  const ds = daemonSet();
  return { namespace: "ci-microvms", serviceAccount: "kvm-runner", daemonSet: ds, anchor: ds };
};

/** `levels` nested `all`s, each over a list of `items` literals: true, at a cost of about items^levels. */
function nested(items: number, levels: number): string {
  const list = `[${Array.from({ length: items }, (_, i) => i).join(", ")}]`;
  let body = "true";
  for (let level = levels; level > 0; level--) body = `${list}.all(v${level}, ${body})`;
  return body;
}

/** The set with `extra` joined to the pod-create policy's first validation. */
function withExtra(extra: string): K8sObject[] {
  const objects = policies();
  const policy = objects.find((o) => o.kind === "ValidatingAdmissionPolicy" && o.metadata.name.endsWith("pod-create")) as any;
  policy.spec.validations[0].expression = `(${extra}) && (${policy.spec.validations[0].expression})`;
  return objects;
}

const errors = (objects: K8sObject[]) => judgeAdmission(objects, context(), run).filter((f) => f.severity === "error");

describe("the cost of one CEL expression", () => {
  it("over the API server's limit: refused as the API server refuses the policy, at the expression", () => {
    expect(101 ** 3).toBeGreaterThan(CEL_COST_LIMIT);
    expect(errors(withExtra(nested(101, 3)))[0]).toMatchObject({
      id: "CR-06",
      path: ["spec", "validations", 0, "expression"],
      message: expect.stringMatching(/does not compile \(its estimated cost is over the API server's limit of 1000000 per expression/),
    });
  });

  it("under it: run, and the set judged as without it", () => {
    expect(errors(withExtra(nested(20, 3)))).toEqual(errors(policies()));
  });

  it("time grows linearly with the text of nested comprehensions", () => {
    // Sizes whose least time is tens of milliseconds: a pause on a busy machine is not a trend.
    expectLinear([600, 1200, 2400, 4800], (items) => {
      const objects = withExtra(nested(items, 3));
      return () => expect(errors(objects).length).toBeGreaterThan(0);
    });
  });
});
