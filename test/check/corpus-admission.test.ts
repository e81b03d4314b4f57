// The admission policies of the valid Compass Runner sets, decided by the
// real CEL engine for each request that CR-06 guards.
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { admit, type AdmissionRequest } from "../support/admission.ts";
import { objectsOf, validFiles } from "../support/corpus.ts";

describe("the valid Runner sets' admission policies decide as CR-06 asks (real CEL engine)", () => {
  const NS = "ci-microvms";
  const people = {
    user: { user: "alice", groups: ["system:authenticated"] },
    deployer: { user: "system:serviceaccount:argocd:argocd-application-controller", groups: ["system:serviceaccounts"] },
    controller: { user: "system:serviceaccount:kube-system:daemon-set-controller", groups: ["system:serviceaccounts"] },
    admin: { user: "root-admin", groups: ["system:masters", "system:authenticated"] },
    kubelet: { user: "system:node:metal-07", groups: ["system:nodes", "system:authenticated"] },
    gc: { user: "system:serviceaccount:kube-system:generic-garbage-collector", groups: ["system:serviceaccounts"] },
  };
  type Who = keyof typeof people;
  const requests: [string, Omit<AdmissionRequest, "user" | "groups">, Who[]][] = [
    ["exec", { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "exec", namespace: NS, name: "kvm-runner-x7k2p" }, ["admin"]],
    ["attach", { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "attach", namespace: NS, name: "kvm-runner-x7k2p" }, ["admin"]],
    [
      "debug",
      { operation: "UPDATE", group: "", version: "v1", resource: "pods", subResource: "ephemeralcontainers", namespace: NS, name: "kvm-runner-x7k2p" },
      ["admin"],
    ],
    ["pod create", { operation: "CREATE", group: "", version: "v1", resource: "pods", namespace: NS, name: "kvm-runner-x7k2p" }, ["controller"]],
    ["DaemonSet update", { operation: "UPDATE", group: "apps", version: "v1", resource: "daemonsets", namespace: NS, name: "kvm-runner" }, ["deployer", "gc"]],
    ["DaemonSet create", { operation: "CREATE", group: "apps", version: "v1", resource: "daemonsets", namespace: NS, name: "kvm-runner" }, ["deployer"]],
    [
      "token request",
      { operation: "CREATE", group: "", version: "v1", resource: "serviceaccounts", subResource: "token", namespace: NS, name: "kvm-runner" },
      ["kubelet", "admin"],
    ],
    [
      "exec elsewhere",
      { operation: "CONNECT", group: "", version: "v1", resource: "pods", subResource: "exec", namespace: "default", name: "web-1" },
      Object.keys(people) as Who[],
    ],
  ];
  const withPolicies = validFiles("compass-runner").filter((f) => objectsOf(f).some((o) => o.kind === "ValidatingAdmissionPolicy"));

  it.each(
    withPolicies.flatMap((f) => requests.map(([what, req, allowed]) => [basename(f), what, f, req, allowed] as const)),
  )("%s: %s", (_name, _what, file, req, allowed) => {
    const objects = objectsOf(file);
    const decided = (Object.keys(people) as Who[]).filter((who) => admit(objects, { ...req, ...people[who] }).allowed);
    expect(decided.sort()).toEqual([...allowed].sort());
  });
});
