// CR-06: the rendered admission policies, evaluated by a real CEL engine
// over a matrix of requests: who, which verb, which subresource, where.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseValuesFile } from "../../src/core/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { admit, type AdmissionRequest } from "../support/admission.ts";
import { ROOT } from "../support/cli.ts";

const objects = renderSource(parseValuesFile(readFileSync(join(ROOT, "examples/compass-runner.yaml"), "utf8"), "values.yaml")).objects;

const NS = "compass-runner";
const DEPLOYER = "system:serviceaccount:flux-system:kustomize-controller";
const CONTROLLER = "system:serviceaccount:kube-system:daemon-set-controller";

type Who = { user: string; groups?: string[] };
const PEOPLE: Record<string, Who> = {
  "an ordinary user": { user: "alice", groups: ["system:authenticated", "developers"] },
  "a deployer": { user: DEPLOYER, groups: ["system:serviceaccounts", "system:authenticated"] },
  "a controller": { user: CONTROLLER, groups: ["system:serviceaccounts", "system:authenticated"] },
  "a break-glass member": { user: "root-admin", groups: ["system:masters", "system:authenticated"] },
  "a kubelet": { user: "system:node:kvm-node-1", groups: ["system:nodes", "system:authenticated"] },
  "a user with no groups": { user: "bob" },
  "the namespace controller": { user: "system:serviceaccount:kube-system:namespace-controller", groups: ["system:serviceaccounts"] },
  "the garbage collector": { user: "system:serviceaccount:kube-system:generic-garbage-collector", groups: ["system:serviceaccounts"] },
};

const podAccess = (subResource: string, operation: AdmissionRequest["operation"], who: Who, namespace = NS): AdmissionRequest => ({
  operation,
  group: "",
  version: "v1",
  resource: "pods",
  subResource,
  namespace,
  name: "compass-runner-x7k2p",
  ...who,
  object: subResource === "exec" ? { kind: "PodExecOptions", command: ["sh"] } : subResource === "attach" ? { kind: "PodAttachOptions" } : { kind: "Pod" },
});

const decide = (req: AdmissionRequest) => admit(objects, req).allowed;

describe("CR-06a: exec, attach and ephemeral containers on Runner pods", () => {
  const cases: [string, AdmissionRequest["operation"]][] = [
    ["exec", "CONNECT"],
    ["attach", "CONNECT"],
    ["ephemeralcontainers", "UPDATE"],
  ];
  for (const [sub, op] of cases) {
    it.each(Object.entries(PEOPLE))(`${sub}: %s`, (who, person) => {
      expect(decide(podAccess(sub, op, person))).toBe(who === "a break-glass member");
    });
    it(`${sub} in another namespace is left alone`, () => {
      expect(admit(objects, podAccess(sub, op, PEOPLE["an ordinary user"], "default"))).toEqual({ allowed: true, matched: [], messages: [] });
    });
  }

  it("names the requirement and the break-glass groups in the denial", () => {
    expect(admit(objects, podAccess("exec", "CONNECT", PEOPLE["a deployer"])).messages).toEqual([
      "exec, attach and ephemeral containers on Compass Runner pods are reserved to the break-glass groups system:masters (CR-06a)",
    ]);
  });

  it("leaves port-forward and log reads alone (not in the requirement)", () => {
    expect(decide(podAccess("portforward", "CONNECT", PEOPLE["an ordinary user"]))).toBe(true);
    expect(decide({ ...podAccess("log", "CONNECT", PEOPLE["an ordinary user"]) })).toBe(true);
  });
});

describe("CR-06b: only the controllers create Runner pods", () => {
  const create = (who: Who, namespace = NS): AdmissionRequest => ({ operation: "CREATE", group: "", version: "v1", resource: "pods", namespace, name: "compass-runner-x7k2p", ...who, object: { kind: "Pod" } });
  it.each(Object.entries(PEOPLE))("pod creation by %s", (who, person) => {
    expect(decide(create(person))).toBe(who === "a controller");
  });
  it("pod creation in another namespace is left alone", () => {
    expect(decide(create(PEOPLE["an ordinary user"], "default"))).toBe(true);
  });
  it("kubelets updating pod status and the DaemonSet controller deleting pods keep working", () => {
    const kubelet = PEOPLE["a kubelet"];
    expect(decide({ operation: "UPDATE", group: "", version: "v1", resource: "pods", subResource: "status", namespace: NS, name: "compass-runner-x7k2p", ...kubelet })).toBe(true);
    expect(decide({ operation: "DELETE", group: "", version: "v1", resource: "pods", namespace: NS, name: "compass-runner-x7k2p", ...PEOPLE["a controller"] })).toBe(true);
  });
});

describe("CR-06c: only the deployers change the Runner DaemonSet", () => {
  const change = (operation: AdmissionRequest["operation"], who: Who, namespace = NS): AdmissionRequest => ({
    operation,
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    namespace,
    name: "compass-runner",
    ...who,
    object: operation === "DELETE" ? undefined : { kind: "DaemonSet" },
    oldObject: operation === "CREATE" ? undefined : { kind: "DaemonSet" },
  });
  for (const op of ["CREATE", "UPDATE", "DELETE"] as const) {
    it.each(Object.entries(PEOPLE))(`${op} by %s`, (who, person) => {
      const housekeeping = (who === "the namespace controller" || who === "the garbage collector") && op !== "CREATE";
      expect(decide(change(op, person))).toBe(who === "a deployer" || housekeeping);
    });
  }
  it("a second DaemonSet in the Runner namespace is guarded too", () => {
    expect(decide({ ...change("CREATE", PEOPLE["an ordinary user"]), name: "sneaky" })).toBe(false);
  });
  it("DaemonSets in other namespaces and status updates are left alone", () => {
    expect(decide(change("UPDATE", PEOPLE["an ordinary user"], "default"))).toBe(true);
    expect(decide({ ...change("UPDATE", PEOPLE["a controller"]), subResource: "status" })).toBe(true);
  });
});

describe("CR-06d: only kubelets and break-glass mint Runner tokens", () => {
  const token = (who: Who, name = "compass-runner", namespace = NS): AdmissionRequest => ({ operation: "CREATE", group: "", version: "v1", resource: "serviceaccounts", subResource: "token", namespace, name, ...who, object: { kind: "TokenRequest" } });
  it.each(Object.entries(PEOPLE))("token request by %s", (who, person) => {
    expect(decide(token(person))).toBe(who === "a kubelet" || who === "a break-glass member");
  });
  it("tokens for other ServiceAccounts or namespaces are left alone", () => {
    expect(decide(token(PEOPLE["an ordinary user"], "default"))).toBe(true);
    expect(decide(token(PEOPLE["an ordinary user"], "compass-runner", "default"))).toBe(true);
  });
});

describe("the policies themselves", () => {
  it("fail closed and are bound with Deny", () => {
    const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
    expect(policies).toHaveLength(4);
    for (const p of policies) expect((p.spec as any).failurePolicy).toBe("Fail");
    const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
    expect(bindings.map((b) => [(b.spec as any).policyName, (b.spec as any).validationActions])).toEqual(policies.map((p) => [p.metadata.name, ["Deny"]]));
  });
});
