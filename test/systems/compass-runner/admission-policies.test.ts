// CR-06: the admission policies' denial messages, their own shape (fail closed, standard CEL, fast YAML) and the checklist lines that go with them.
import { describe, expect, it } from "vitest";
import { admissionPolicies } from "../../../src/systems/compass-runner/admission.ts";
import { admissionChecklist } from "../../../src/systems/compass-runner/admission-notes.ts";
import { toYaml } from "../../../src/emit/emit.ts";
import { parseFastStream } from "../../../src/parse/fast-yaml.ts";
import { admit, type AdmissionRequest } from "../../support/admission.ts";
import { RUNNER } from "../../support/runner-pods.ts";
import {
  CONFIGS,
  container,
  DEPLOYER,
  DS,
  DS_CONTROLLER,
  dsRequest,
  dsTemplate,
  edited,
  inputFor,
  type Json,
  KCM,
  NS,
  PEOPLE,
  POD,
  podCreate,
  podRequest,
  RUNNING,
  secret,
  secretRequest,
  withSpec,
} from "./admission-requests.ts";

describe("CR-06 denials say what is wrong", () => {
  const objects = admissionPolicies(inputFor([DS_CONTROLLER, KCM]));
  const deny = (request: AdmissionRequest) => admit(objects, request).messages;

  it("names the break-glass groups for exec", () => {
    expect(deny(podRequest("CONNECT", "exec", { kind: "PodExecOptions" })(PEOPLE["a deployer"]))).toEqual([
      "exec, attach, port-forward, proxy, ephemeral containers and resizing on Compass Runner pods are reserved to the break-glass groups system:masters (CR-06a, CR-06e)",
    ]);
  });

  it("names only the broken invariant when the controller manager creates a pod without hostUsers", () => {
    const messages = deny(podCreate(withSpec((s) => delete s.hostUsers))(PEOPLE["the controller manager"]));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^a Compass Runner pod must set hostUsers: false\. .*UserNamespacesSupport.*1\.33.*\(CR-06e, CR-09\)$/);
  });

  it("names the owner when a Job's pod borrows the ServiceAccount", () => {
    const pod = edited(POD, (p) => (p.metadata.ownerReferences = [{ apiVersion: "batch/v1", kind: "Job", name: "borrowed", uid: "u", controller: true }]));
    expect(deny(podCreate(pod)(PEOPLE["the controller manager"]))).toEqual([
      `a pod in the Compass Runner namespace ${NS} must be owned (controller ownerReference) by the DaemonSet ${RUNNER.name} (CR-06e)`,
    ]);
  });

  it("names the deployers and the invariant when a deployer makes the DaemonSet privileged", () => {
    expect(deny(dsTemplate((s) => (container(s).securityContext.privileged = true))(PEOPLE["a deployer"]))).toEqual([
      "the Compass Runner DaemonSet's pod template must not run a privileged container or add capabilities (CR-06e)",
    ]);
    expect(deny(dsRequest("CREATE", DS)(PEOPLE["an ordinary user"]))).toEqual([
      `only ${DEPLOYER} may create, change or delete the Compass Runner DaemonSet; the namespace controller and the garbage collector may delete it and change its metadata (CR-06c)`,
    ]);
  });

  it("matches each request with the policy meant for it", () => {
    const names = (request: AdmissionRequest) => admit(objects, request).matched.map((n) => n.slice(`${RUNNER.name}.${NS}-`.length));
    expect(names(podRequest("CONNECT", "portforward", {})(PEOPLE["an ordinary user"]))).toEqual(["pod-access"]);
    expect(names(podCreate(POD)(PEOPLE["the DaemonSet controller"]))).toEqual(["pod-create"]);
    expect(names(dsRequest("DELETE", null, DS)(PEOPLE["the namespace controller"]))).toEqual(["daemonset"]);
    expect(names(secretRequest("CREATE", secret("Opaque"))(PEOPLE["an ordinary user"]))).toEqual(["token"]);
    expect(names(podRequest("DELETE", undefined, null, RUNNING)(PEOPLE["an ordinary user"]))).toEqual([]);
  });
});

describe("the CR-06 policies themselves", () => {
  const objects = admissionPolicies(inputFor([DS_CONTROLLER]));
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");

  it("fail closed and are bound with Deny, policies before bindings", () => {
    expect(objects.map((o) => o.kind)).toEqual([...Array(4).fill("ValidatingAdmissionPolicy"), ...Array(4).fill("ValidatingAdmissionPolicyBinding")]);
    for (const p of policies) expect((p.spec as Json).failurePolicy).toBe("Fail");
    const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
    expect(bindings.map((b) => [(b.spec as Json).policyName, (b.spec as Json).validationActions])).toEqual(policies.map((p) => [p.metadata.name, ["Deny"]]));
  });

  it("select the Runner namespace by its name label (the API server sets it on every namespace)", () => {
    for (const p of policies) expect((p.spec as Json).matchConstraints.namespaceSelector).toEqual({ matchLabels: { "kubernetes.io/metadata.name": NS } });
  });

  // The API server's CEL has Kubernetes libraries (strings, lists, regex,
  // authz, quantity) the test engine does not; the policies use none of
  // them, so both run the same text. Every method call is a standard one.
  it("call only functions of standard CEL", () => {
    const STANDARD = new Set(["all", "exists", "exists_one", "map", "filter", "startsWith", "endsWith", "contains", "matches", "size"]);
    const expressions = policies.flatMap((p) =>
      [...((p.spec as Json).variables ?? []), ...(p.spec as Json).validations].map((e: Json) => e.expression as string),
    );
    const calls = new Set(expressions.flatMap((e) => [...e.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(/\.?([A-Za-z_]\w*)\(/g)].map((m) => m[1])));
    expect([...calls].filter((name) => !STANDARD.has(name) && name !== "has")).toEqual([]);
  });

  // `check` reads a fleet's manifests with a fast YAML reader and hands
  // text it cannot be sure of (node properties, explicit keys, lines of 1000
  // characters) to a slower one: the policies' CEL, `, !` and all, stays fast.
  it("read back on the fast YAML path of check, for both controller sets", () => {
    for (const [, controllers] of CONFIGS) {
      for (const object of admissionPolicies(inputFor(controllers)))
        expect({ name: object.metadata.name, fast: parseFastStream(toYaml(object), 64) !== undefined }).toEqual({ name: object.metadata.name, fast: true });
      expect(admissionPolicies(inputFor(controllers)).some((object) => toYaml(object).includes(", !"))).toBe(true);
    }
  });

  it("write identities into CEL so that CEL reads them back unchanged", async () => {
    const { run } = await import("@bufbuild/cel");
    const { celList } = await import("../../../src/systems/compass-runner/admission.ts");
    const names = [
      "system:serviceaccount:flux-system:kustomize-controller",
      "oidc:https://issuer.example/#a?b=c",
      "jörg@example.com",
      "$(whoami)",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal string the engine must not expand
      "a/b ${x} %s",
    ];
    const back = run(celList(names), {}) as Iterable<unknown>;
    expect([...back]).toEqual(names);
  });
});

describe("the CR-06 checklist lines", () => {
  it("name the version floor and gates for API server and kubelet, the node's needs, and who must apply", () => {
    const lines = admissionChecklist({ deployers: [DEPLOYER], hostPaths: [RUNNER.sessions, RUNNER.runtime] });
    expect(lines[0]).toMatch(/CR-06/);
    expect(lines.join("\n")).toMatch(
      /1\.33 or newer on the API server and the Runner node's kubelet; on 1\.32, feature gates UserNamespacesSupport=true and ProcMountType=true on both/,
    );
    expect(lines.join("\n")).toContain(`${RUNNER.sessions} and ${RUNNER.runtime} support idmap mounts`);
    expect(lines.at(-1)).toContain(`whoever applies this output is ${DEPLOYER} (admission.deployers; kubectl auth whoami`);
    expect(admissionChecklist({ deployers: ["a", "b"], hostPaths: [] }).at(-1)).toContain("is one of a, b");
  });
});
