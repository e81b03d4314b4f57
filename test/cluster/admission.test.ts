// CR-06 on a real kube-apiserver: the rendered Runner policies refuse and
// allow what the requirement says, and rigging's admission simulator decides
// every request of its matrix exactly as the API server does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXED, namedActors, type Actor } from "../../src/admission/actors.ts";
import { decider } from "../../src/admission/decide.ts";
import { planPolicies } from "../../src/admission/plan.ts";
import { requestsFor, type RequestName } from "../../src/admission/requests.ts";
import { newAdmissionRun } from "../../src/admission/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { startControlPlane, type As, type ControlPlane } from "./support/control-plane.ts";
import { deployerOf, examplePath, install, rendered } from "./support/install.ts";
import { seenAs, serverVerdict } from "./support/requests.ts";

let cp: ControlPlane;
let objects: K8sObject[];
let ds: K8sObject & { spec: { template: { metadata: Record<string, unknown>; spec: Record<string, unknown> } } };
let ns: string;
let policyNames: string[];
const DS_CONTROLLER = "system:serviceaccount:kube-system:daemon-set-controller";
const asSa = (user: string): As => ({ user, groups: ["system:serviceaccounts", `system:serviceaccounts:${user.split(":")[2]}`] });
const glass: As = { user: "carol", groups: ["system:masters"] };

beforeAll(async () => {
  cp = await startControlPlane();
  const file = examplePath("compass-runner.yaml");
  objects = await rendered(file);
  ds = objects.find((o) => o.kind === "DaemonSet") as typeof ds;
  ns = ds.metadata.namespace!;
  policyNames = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy").map((o) => o.metadata.name);
  await install(cp, objects, deployerOf(file));
});
afterAll(async () => {
  await cp?.stop();
});

/** The pod the DaemonSet controller makes from the live DaemonSet: its template, owned by it, bound to the pinned node. */
async function runnerPod(name: string): Promise<Record<string, unknown>> {
  const live = (await cp.api("GET", `/apis/apps/v1/namespaces/${ns}/daemonsets/${ds.metadata.name}`)).json() as { metadata: { uid: string } };
  const owner = { apiVersion: "apps/v1", kind: "DaemonSet", name: ds.metadata.name, uid: live.metadata.uid, controller: true, blockOwnerDeletion: true };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { ...ds.spec.template.metadata, name, namespace: ns, ownerReferences: [owner] },
    spec: { ...ds.spec.template.spec, nodeName: "kvm-node-1" },
  };
}

const deniedBy = (text: string) => /ValidatingAdmissionPolicy '([^']+)'/.exec(text)?.[1];

describe("CR-06 on the API server", () => {
  it("CR-06b: the DaemonSet controller creates the Runner pod; an ordinary user is refused, by name of the policy", async () => {
    const pod = await runnerPod(`${ds.metadata.name}-byuser`);
    const refused = await cp.api("POST", `/api/v1/namespaces/${ns}/pods`, pod, { identity: "alice" });
    expect(refused.status, refused.text).toBe(403);
    expect(policyNames).toContain(deniedBy(refused.text));
    const created = await cp.api("POST", `/api/v1/namespaces/${ns}/pods`, await runnerPod(`${ds.metadata.name}-x7k2p`), asSa(DS_CONTROLLER));
    expect(created.status, created.text).toBe(201);
  });

  it("CR-06a/e: exec, attach, ephemeral containers, port-forward and proxy are refused for users and pass for the break-glass group", async () => {
    const requests = requestsFor({ namespace: ns, serviceAccount: String(ds.spec.template.spec.serviceAccountName), daemonSet: ds, anchor: ds });
    const names: RequestName[] = ["exec", "attach", "ephemeral", "portforward", "proxy"];
    for (const name of names) {
      for (const user of [{ identity: "alice" } as As, { identity: "bob" } as As]) {
        const verdict = await serverVerdict(cp, name, requests[name].request, user);
        expect(verdict, `${name} by ${user.identity}`).toMatchObject({ allowed: false });
        if (!verdict.allowed) expect(policyNames).toContain(verdict.policy);
      }
      expect(await serverVerdict(cp, name, requests[name].request, glass), `${name} by system:masters`).toEqual({ allowed: true });
    }
  });

  it("the simulator decides every request of its matrix as the API server does, for every identity it tries", async () => {
    const pod = await cp.api("GET", `/api/v1/namespaces/${ns}/pods/${ds.metadata.name}-x7k2p`);
    if (pod.status === 404) await cp.api("POST", `/api/v1/namespaces/${ns}/pods`, await runnerPod(`${ds.metadata.name}-x7k2p`), asSa(DS_CONTROLLER));
    const target = { namespace: ns, serviceAccount: String(ds.spec.template.spec.serviceAccountName), daemonSet: ds, anchor: ds };
    const requests = requestsFor(target);
    const policies = objects.filter((o) => o.kind.startsWith("ValidatingAdmissionPolicy"));
    const run = newAdmissionRun();
    const namespace = objects.find((o) => o.kind === "Namespace" && o.metadata.name === ns)!;
    const decide = decider(run, planPolicies(run, policies).planned, namespace);
    const actors: Actor[] = [...FIXED, ...namedActors(policies)];
    expect(actors.length).toBeGreaterThan(FIXED.length);
    const differences: string[] = [];
    let denied = 0;
    for (const actor of actors) {
      const as: As = { user: actor.user, groups: actor.groups };
      const seen = await seenAs(cp, as);
      for (const [name, check] of Object.entries(requests) as [RequestName, (typeof requests)[RequestName]][]) {
        const simulated = decide(check.request, seen.user, seen.groups);
        const server = await serverVerdict(cp, name, check.request, as);
        if (!server.allowed) denied++;
        if (simulated.unknown !== undefined || simulated.allowed !== server.allowed)
          differences.push(
            `${name} by ${actor.who}: simulator ${simulated.allowed ? "allows" : "denies"}${simulated.unknown ? ` (${simulated.unknown})` : ""}, server ${server.allowed ? "allows" : `denies (${server.policy})`}`,
          );
      }
    }
    expect(differences).toEqual([]);
    // Both outcomes occur, so the comparison is not of one constant.
    expect(denied).toBeGreaterThan(0);
    expect(denied).toBeLessThan(actors.length * Object.keys(requests).length);
  });
});
