// CR-06 judged by what the policies decide: hand-written policies and
// bindings run through a real CEL engine over the request matrix of
// src/admission/judge.ts. A correct set (phrased unlike rigging's)
// and a stricter correct one pass; a policy of `true`, an Audit-only
// binding, a missing break-glass exception, a token policy that shuts out
// kubelets and a policy that does not compile are errors.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { judgeAdmission, type AdmissionTarget } from "../../src/admission/judge.ts";
import { newAdmissionRun } from "../../src/admission/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT } from "../support/cli.ts";

/** One run's admission state for the whole file, as one check run carries it over. */
const run = newAdmissionRun();
const policies = (): K8sObject[] => parseAllDocuments(readFileSync(join(ROOT, "test", "fixtures", "admission", "policies.yaml"), "utf8")).map((d) => d.toJS());
const runner = (): K8sObject => {
  const objects = parseAllDocuments(readFileSync(join(ROOT, "test", "fixtures", "check", "compass-runner", "valid.yaml"), "utf8")).map(
    (d) => d.toJS() as K8sObject,
  );
  return objects.find((o) => o.kind === "DaemonSet")!;
};
const context = (ds = runner()): AdmissionTarget => ({ namespace: "ci-microvms", serviceAccount: "kvm-runner", daemonSet: ds, anchor: ds });
const named = (objects: K8sObject[], kind: string, suffix: string) => objects.find((o) => o.kind === kind && o.metadata.name.endsWith(suffix)) as any;
const errors = (objects: K8sObject[]) => judgeAdmission(objects, context(), run).filter((f) => f.severity === "error");

describe("correct policies pass", () => {
  it("the corpus Runner's DaemonSet is in the namespace the policies guard", () => {
    expect([runner().metadata.namespace, (runner() as any).spec.template.spec.serviceAccountName]).toEqual(["ci-microvms", "kvm-runner"]);
  });

  it("a hand-written correct set: no error (port-forward and proxy are left open: CR-06e warnings only)", () => {
    const findings = judgeAdmission(policies(), context(), run);
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^port-forward to a Runner pod by .* is allowed: CR-06e/),
      expect.stringMatching(/^a proxied request to a Runner pod by .* is allowed: CR-06e/),
    ]);
    for (const f of findings) expect([f.id, f.because]).toEqual(["CR-06", expect.stringMatching(/inference/)]);
  });

  it("a stricter correct policy (pods/* on CONNECT, so port-forward and proxy too) passes without a finding", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-access").spec.matchConstraints.resourceRules[0].resources = ["pods/*"];
    expect(judgeAdmission(objects, context(), run)).toEqual([]);
  });

  it("rigging's own rendered policies pass", () => {
    const rendered = renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;
    const ds = rendered.find((o) => o.kind === "DaemonSet")!;
    const ctx: AdmissionTarget = {
      namespace: ds.metadata.namespace!,
      serviceAccount: (ds as any).spec.template.spec.serviceAccountName,
      daemonSet: ds,
      anchor: ds,
    };
    expect(judgeAdmission(rendered, ctx, run).filter((f) => f.severity === "error")).toEqual([]);
  });
});

describe("policies that decide wrongly are CR-06 errors", () => {
  it("a no-op policy (validation `true`): exec by anyone is allowed, pointed at its validations", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-access").spec.validations[0].expression = "true";
    const found = errors(objects);
    const exec = found.find((f) => f.message.startsWith("exec on a Runner pod"))!;
    expect(exec.message).toMatch(/by an ordinary user \(alice\), a user with no groups \(bob\) and \d+ other identities is allowed: CR-06a/);
    expect([exec.object.metadata.name, exec.path]).toEqual(["ci-microvms-pod-access", ["spec", "validations"]]);
  });

  it("an Audit-only binding: the policy denies nothing, pointed at the binding's validationActions", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicyBinding", "token").spec.validationActions = ["Audit", "Warn"];
    const found = errors(objects);
    expect(found.map((f) => [f.object.kind, f.path.join(".")])).toEqual([["ValidatingAdmissionPolicyBinding", "spec.validationActions"]]);
    expect(found[0].message).toMatch(/^a token request for the Runner ServiceAccount kvm-runner by .* is allowed: anyone who can mint/);
  });

  it("a missing break-glass exception: nobody may exec", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-access").spec.validations[0].expression = "false";
    expect(errors(objects).map((f) => f.message)).toContainEqual(
      expect.stringMatching(/^no identity may exec into a Runner pod: the break-glass exception of CR-06a .* is missing/),
    );
  });

  it("a token policy that shuts out kubelets: the Runner cannot get its token", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "token").spec.validations[0].expression =
      "has(request.userInfo.groups) && 'ops:break-glass' in request.userInfo.groups";
    const [f] = errors(objects);
    expect(f.message).toMatch(/^a token request for the Runner ServiceAccount kvm-runner by a kubelet \(system:node:node-1\) is denied: kubelets mint/);
    expect(f.path).toEqual(["spec", "validations", 0, "expression"]);
  });

  it("a DaemonSet policy that forgets the garbage collector breaks housekeeping", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "daemonset").spec.validations[0].expression =
      "request.userInfo.username == 'system:serviceaccount:flux-system:kustomize-controller'";
    expect(errors(objects).map((f) => f.message)).toEqual([
      expect.stringMatching(/^deleting the Runner DaemonSet by the ServiceAccount kube-system\/namespace-controller is denied: the namespace controller/),
      expect.stringMatching(/^deleting the Runner DaemonSet by the ServiceAccount kube-system\/generic-garbage-collector is denied: the garbage collector/),
      expect.stringMatching(
        /^updating the Runner DaemonSet by the ServiceAccount kube-system\/generic-garbage-collector is denied: the garbage collector must update/,
      ),
    ]);
  });

  it("a pod-create policy open to everyone (`request.operation == 'CREATE'`)", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-create").spec.validations[0].expression = "request.operation == 'CREATE'";
    expect(errors(objects).map((f) => f.message)).toEqual([
      expect.stringMatching(/^creating a Runner pod by an ordinary user \(alice\), .* is allowed: CR-06b/),
    ]);
  });

  it("no policy at all: every guarded request is allowed, at the anchor", () => {
    const found = errors([]);
    expect(found.length).toBeGreaterThan(3);
    for (const f of found) expect(f.object.kind).toBe("DaemonSet");
  });

  it("a policy that does not compile is refused by the API server: an error at its expression", () => {
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-create").spec.validations[0].expression = "request.userInfo.username ==";
    expect(errors(objects)[0]).toMatchObject({
      id: "CR-06",
      path: ["spec", "validations", 0, "expression"],
      message: expect.stringMatching(/does not compile/),
    });
  });

  it("failurePolicy Ignore with an expression that fails for users without groups admits them", () => {
    const objects = policies();
    const access = named(objects, "ValidatingAdmissionPolicy", "pod-access");
    access.spec.failurePolicy = "Ignore";
    access.spec.validations[0].expression = "'ops:break-glass' in request.userInfo.groups";
    expect(errors(objects).map((f) => f.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^exec on a Runner pod by a user with no groups \(bob\) is allowed/)]),
    );
  });
});

describe("the CEL engine loads only for sets that hold policies", () => {
  it("a fresh process judging no policy never loads it; one policy loads it", () => {
    const script = `
      import { planPolicies } from "./src/admission/plan.ts";
      import { newAdmissionRun } from "./src/admission/run.ts";
      import { createRequire } from "node:module";
      const require = createRequire(import.meta.url);
      const loaded = () => Object.keys(require.cache).some((k) => k.includes("@bufbuild/cel"));
      const run = newAdmissionRun();
      planPolicies(run, [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }]);
      const before = loaded();
      planPolicies(run, [{ apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", metadata: { name: "p" }, spec: { validations: [{ expression: "true" }] } }]);
      console.log(JSON.stringify([before, loaded()]));`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual([false, true]);
  });
});

describe("admissionHits: the judge as a rule's hits", () => {
  it("errors stay errors; warnings name an opinion the CR-06 rule can list", async () => {
    const { admissionHits } = await import("../../src/admission/judge.ts");
    const { CR } = await import("../../src/systems/compass-runner/requirements.ts");
    const ADMISSION_OPINIONS = CR["CR-06"].opinions;
    const { runRules, ObjectSet, RunScope } = await import("../../src/rules/engine.ts");
    const objects = policies();
    named(objects, "ValidatingAdmissionPolicy", "pod-create").spec.validations[0].expression = "true";
    const rule = {
      id: "CR-06",
      summary: "s",
      fix: "f",
      severity: "error" as const,
      opinions: ADMISSION_OPINIONS,
      profiles: ["compass-runner" as const],
      check: () => admissionHits(objects, context(), new RunScope()),
    };
    const findings = runRules([rule], new ObjectSet("compass-runner", objects));
    expect(findings.map((f) => f.severity).sort()).toEqual(["error", "warning", "warning"]);
    expect(findings.filter((f) => f.severity === "warning").map((f) => f.because)).toEqual([
      ADMISSION_OPINIONS["port-forward-proxy"].because,
      ADMISSION_OPINIONS["port-forward-proxy"].because,
    ]);
  });
});
