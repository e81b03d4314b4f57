// The rendered Runner through its own CR-06 policies: the DaemonSet and pod
// rigging renders are what the policies let through, for the identities of
// the values, and a rollout of a new digest is one apply by a deployer.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { admit, type AdmissionRequest } from "../../support/admission.ts";
import { ROOT } from "../../support/cli.ts";
import { daemonSetPod, DIGEST_B, storedDaemonSet } from "../../support/runner-pods.ts";
import { render } from "../../support/values.ts";

const files = ["examples/compass-runner.yaml", "test/fixtures/upstream/values.example.json"];

describe.each(files)("the Runner rendered from %s", (file) => {
  const objects = render(readFileSync(join(ROOT, file), "utf8"));
  const policies = objects.filter((o) => o.kind.startsWith("ValidatingAdmissionPolicy"));
  const ds = objects.find((o) => o.kind === "DaemonSet") as K8sObject & { spec: any };
  const namespace = ds.metadata.namespace!;
  const controllers = (policies.flatMap((p: any) => p.spec?.variables ?? []).find((v: any) => v.name === "controllers")?.expression ?? "") as string;
  const deployer = "system:serviceaccount:flux-system:kustomize-controller";
  const dsRequest = (operation: AdmissionRequest["operation"], user: string, object: unknown, oldObject?: unknown): AdmissionRequest => ({
    operation,
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    namespace,
    name: ds.metadata.name,
    user,
    groups: ["system:authenticated"],
    object,
    oldObject,
  });

  it("lets a deployer create the DaemonSet and refuses anyone else", () => {
    const stored = storedDaemonSet(ds);
    expect(admit(policies, dsRequest("CREATE", deployer, stored))).toMatchObject({ allowed: true, errors: [] });
    expect(admit(policies, dsRequest("CREATE", "jane@example.com", stored)).allowed).toBe(false);
  });

  it("lets the DaemonSet controller create its pod", () => {
    expect(controllers).toContain("system:serviceaccount:kube-system:daemon-set-controller");
    const pod = daemonSetPod(storedDaemonSet(ds));
    const decision = admit(policies, {
      operation: "CREATE",
      group: "",
      version: "v1",
      resource: "pods",
      namespace,
      name: "",
      user: "system:serviceaccount:kube-system:daemon-set-controller",
      groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
      object: pod,
    });
    expect(decision).toMatchObject({ allowed: true, errors: [] });
  });

  it("rolls out a new digest in one apply by a deployer", () => {
    const old = storedDaemonSet(ds, 1);
    const next = structuredClone(old) as any;
    const container = next.spec.template.spec.containers[0];
    container.image = container.image.replace(/sha256:[0-9a-f]{64}$/, DIGEST_B);
    next.metadata.generation = 2;
    expect(admit(policies, dsRequest("UPDATE", deployer, next, old))).toMatchObject({ allowed: true, errors: [] });
  });
});
