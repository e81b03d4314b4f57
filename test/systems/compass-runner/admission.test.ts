// CR-06: the admission policies, evaluated by a real CEL engine over a
// matrix of requests: who asks, which verb on which (sub)resource, and what
// the object becomes. The objects are those the API server hands a policy
// (after defaulting, see test/support/runner-pods.ts). Every row runs for
// every identity, once with per-controller credentials and once with the
// upstream default controllers, which include system:kube-controller-manager.
import { describe, expect, it } from "vitest";
import { admissionPolicies, HOUSEKEEPERS, type AdmissionInput } from "../../../src/systems/compass-runner/admission.ts";
import { admissionChecklist } from "../../../src/systems/compass-runner/admission-notes.ts";
import { toYaml } from "../../../src/emit/emit.ts";
import { parseFastStream } from "../../../src/parse/fast-yaml.ts";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { admit, type AdmissionRequest } from "../../support/admission.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { daemonSetPod, DIGEST_B, RUNNER, runnerDaemonSet, runningPod, storedDaemonSet } from "../../support/runner-pods.ts";

type Json = Record<string, any>;
const NS = RUNNER.namespace;
const DEPLOYER = "system:serviceaccount:flux-system:kustomize-controller";
const DS_CONTROLLER = "system:serviceaccount:kube-system:daemon-set-controller";
const KCM = "system:kube-controller-manager";

type Who = { user: string; groups?: string[] };
const PEOPLE = {
  "an ordinary user": { user: "alice", groups: ["system:authenticated", "developers"] },
  "a user with no groups": { user: "bob" },
  "a deployer": { user: DEPLOYER, groups: ["system:serviceaccounts", "system:serviceaccounts:flux-system", "system:authenticated"] },
  "the DaemonSet controller": { user: DS_CONTROLLER, groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "the controller manager": { user: KCM, groups: ["system:authenticated"] },
  "the namespace controller": { user: HOUSEKEEPERS[0], groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "the garbage collector": { user: HOUSEKEEPERS[1], groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"] },
  "a kubelet": { user: "system:node:kvm-node-1", groups: ["system:nodes", "system:authenticated"] },
  "a break-glass member": { user: "root-admin", groups: ["system:masters", "system:authenticated"] },
} satisfies Record<string, Who>;
type Person = keyof typeof PEOPLE;
const EVERYONE = Object.keys(PEOPLE) as Person[];

/** The two ways a cluster names its controllers (upstream defaults include the controller manager). */
const CONFIGS: [string, string[]][] = [
  ["per-controller credentials", [DS_CONTROLLER]],
  ["the upstream default controllers", [DS_CONTROLLER, KCM]],
];

function inputFor(controllers: string[]): AdmissionInput {
  return {
    prefix: `${RUNNER.name}.${RUNNER.namespace}`,
    namespace: NS,
    labels: { "app.kubernetes.io/name": "compass-runner" },
    daemonSetName: RUNNER.name,
    containerName: RUNNER.containerName,
    serviceAccount: RUNNER.serviceAccount,
    imageRepository: RUNNER.repository,
    hostPaths: [RUNNER.sessions, RUNNER.runtime],
    seccompProfile: RUNNER.seccompProfile,
    podSelector: RUNNER.selector,
    controllers,
    deployers: [DEPLOYER],
    breakGlassGroups: ["system:masters"],
  };
}

// --- objects -------------------------------------------------------------

const DS = storedDaemonSet(runnerDaemonSet());
const POD = daemonSetPod(DS);
const RUNNING = runningPod(POD);
const clone = <T>(o: T): T => structuredClone(o);
/** A copy of `object` changed by `edit`. */
const edited = (object: K8sObject, edit: (o: Json) => void): K8sObject => {
  const copy = clone(object) as Json;
  edit(copy);
  return copy as K8sObject;
};
const container = (spec: Json) => spec.containers[0];

/** Ways to break a Runner pod spec, each against one invariant. */
const BROKEN_SPECS: [string, (spec: Json) => void][] = [
  ["hostUsers left out (an API server without user namespaces drops it)", (s) => delete s.hostUsers],
  ["hostUsers: true", (s) => (s.hostUsers = true)],
  ["hostNetwork", (s) => (s.hostNetwork = true)],
  ["hostPID", (s) => (s.hostPID = true)],
  ["hostIPC", (s) => (s.hostIPC = true)],
  ["a privileged container", (s) => (container(s).securityContext.privileged = true)],
  ["an added capability", (s) => (container(s).securityContext.capabilities.add = ["SYS_ADMIN"])],
  ["the host root mounted", (s) => (s.volumes[1].hostPath.path = "/")],
  ["a parent of a host tree mounted", (s) => (s.volumes[1].hostPath.path = "/var/lib/compass")],
  ["a third hostPath", (s) => s.volumes.push({ name: "etc", hostPath: { path: "/etc", type: "" } })],
  ["a PersistentVolumeClaim", (s) => s.volumes.push({ name: "data", persistentVolumeClaim: { claimName: "host-disk" } })],
  ["seccomp RuntimeDefault", (s) => (s.securityContext.seccompProfile = { type: "RuntimeDefault" })],
  ["no seccomp profile", (s) => delete s.securityContext.seccompProfile],
  ["another Localhost profile", (s) => (s.securityContext.seccompProfile.localhostProfile = "profiles/permissive.json")],
  ["a container that sets seccomp Unconfined", (s) => (container(s).securityContext.seccompProfile = { type: "Unconfined" })],
  ["an image by tag", (s) => (container(s).image = `${RUNNER.repository}:v1.4.2`)],
  ["an image by tag and digest", (s) => (container(s).image = `${RUNNER.repository}:latest@${DIGEST_B}`)],
  ["another repository by digest", (s) => (container(s).image = `registry.example.com/attacker/runner@${DIGEST_B}`)],
  ["the default ServiceAccount", (s) => (s.serviceAccountName = "default")],
  ["another ServiceAccount", (s) => (s.serviceAccountName = "builder")],
  ["a second container", (s) => s.containers.push({ ...clone(container(s)), name: "sidecar" })],
  ["an init container", (s) => (s.initContainers = [{ ...clone(container(s)), name: "init" }])],
  ["the container renamed", (s) => (container(s).name = "runner")],
];

// --- requests ------------------------------------------------------------

type Row = { what: string; request: (who: Who) => AdmissionRequest; allowed: (who: Person, controllers: string[]) => boolean };

const only =
  (...people: Person[]) =>
  (who: Person) =>
    people.includes(who);
const nobody = () => false;
const everyone = () => true;
const isController = (who: Person, controllers: string[]) => controllers.includes(PEOPLE[who].user);
const isHousekeeper = (who: Person) => (HOUSEKEEPERS as readonly string[]).includes(PEOPLE[who].user);

const podRequest =
  (operation: AdmissionRequest["operation"], subResource: string | undefined, object: unknown, oldObject?: unknown) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "",
    version: "v1",
    resource: "pods",
    subResource,
    namespace: NS,
    name: POD.metadata.name,
    ...who,
    object,
    oldObject,
  });
const podUpdate = (subResource: string | undefined, edit: (o: Json) => void) => podRequest("UPDATE", subResource, edited(RUNNING, edit), RUNNING);
const podCreate =
  (pod: K8sObject, namespace = NS) =>
  (who: Who): AdmissionRequest => ({ ...podRequest("CREATE", undefined, pod)(who), namespace: namespace, name: pod.metadata.name });
const withSpec = (edit: (spec: Json) => void) => edited(POD, (p) => edit(p.spec));

const dsRequest =
  (operation: AdmissionRequest["operation"], object: unknown, oldObject?: unknown, name = RUNNER.name) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "apps",
    version: "v1",
    resource: "daemonsets",
    namespace: NS,
    name,
    ...who,
    object,
    oldObject,
  });
/** A deployer's apply: the same DaemonSet, one generation on. */
const dsApply = (edit: (o: Json) => void) => dsRequest("UPDATE", storedDaemonSet(edited(runnerDaemonSet(), edit), 2), DS);
const dsTemplate = (edit: (spec: Json) => void) => dsApply((o) => edit(o.spec.template.spec));

const workload =
  (group: string, resource: string, kind: string) =>
  (who: Who): AdmissionRequest => {
    const template = clone((DS as Json).spec.template);
    const spec = kind === "CronJob" ? { schedule: "* * * * *", jobTemplate: { spec: { template } } } : { selector: { matchLabels: RUNNER.selector }, template };
    return {
      operation: "CREATE",
      group,
      version: "v1",
      resource,
      namespace: NS,
      name: "borrowed",
      ...who,
      object: { apiVersion: group ? `${group}/v1` : "v1", kind, metadata: { name: "borrowed", namespace: NS }, spec },
    };
  };

const secret = (type: string, account?: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "long-lived", namespace: NS, ...(account ? { annotations: { "kubernetes.io/service-account.name": account } } : {}) },
  type,
});
const secretRequest =
  (operation: "CREATE" | "UPDATE" | "DELETE", object: unknown, oldObject?: unknown) =>
  (who: Who): AdmissionRequest => ({
    operation,
    group: "",
    version: "v1",
    resource: "secrets",
    namespace: NS,
    name: "long-lived",
    ...who,
    object,
    oldObject,
  });
const tokenRequest =
  (account: string) =>
  (who: Who): AdmissionRequest => ({
    operation: "CREATE",
    group: "",
    version: "v1",
    resource: "serviceaccounts",
    subResource: "token",
    namespace: NS,
    name: account,
    ...who,
    object: { kind: "TokenRequest", spec: { audiences: ["compass-runner"], boundObjectRef: { kind: "Pod", apiVersion: "v1", name: POD.metadata.name } } },
  });

const SA_TOKEN = "kubernetes.io/service-account-token";
const WITH_FINALIZER = edited(RUNNING, (p) => (p.metadata.finalizers = ["foregroundDeletion"]));
const DS_BEING_DELETED = edited(DS, (d) => {
  d.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
  d.metadata.finalizers = ["foregroundDeletion"];
});

const ROWS: Row[] = [
  // CR-06a, e: getting into a Runner pod.
  ...(
    [
      ["exec", { kind: "PodExecOptions", command: ["sh"], stdin: true, tty: true }],
      ["attach", { kind: "PodAttachOptions", stdin: true }],
      ["portforward", { kind: "PodPortForwardOptions", ports: [8080] }],
      ["proxy", { kind: "PodProxyOptions", path: "/" }],
    ] as const
  ).map(([sub, options]): Row => ({ what: `${sub} (CONNECT)`, request: podRequest("CONNECT", sub, options), allowed: only("a break-glass member") })),
  {
    what: "an ephemeral container",
    request: podUpdate(
      "ephemeralcontainers",
      (p) => (p.spec.ephemeralContainers = [{ name: "debugger", image: "busybox", targetContainerName: RUNNER.containerName }]),
    ),
    allowed: only("a break-glass member"),
  },
  {
    what: "an in-place resize",
    request: podUpdate("resize", (p) => (container(p.spec).resources.limits.memory = "8Gi")),
    allowed: only("a break-glass member"),
  },

  // CR-06e: changing a Runner pod in place.
  {
    what: "swapping the image of a running pod",
    request: podUpdate(undefined, (p) => (container(p.spec).image = `${RUNNER.repository}@${DIGEST_B}`)),
    allowed: only("a break-glass member"),
  },
  {
    what: "relabelling a pod (out of its NetworkPolicy and DaemonSet)",
    request: podUpdate(undefined, (p) => (p.metadata.labels["app.kubernetes.io/name"] = "other")),
    allowed: only("a break-glass member"),
  },
  { what: "adding a label", request: podUpdate(undefined, (p) => (p.metadata.labels.team = "ci")), allowed: only("a break-glass member") },
  { what: "annotating a pod", request: podUpdate(undefined, (p) => (p.metadata.annotations = { note: "x" })), allowed: only("a break-glass member") },
  {
    what: "adding a toleration",
    request: podUpdate(undefined, (p) => p.spec.tolerations.push({ key: "k", operator: "Exists", effect: "NoExecute" })),
    allowed: only("a break-glass member"),
  },
  {
    what: "relabelling through pods/status",
    request: podUpdate("status", (p) => (p.metadata.labels["app.kubernetes.io/instance"] = "other")),
    allowed: only("a break-glass member"),
  },
  // Housekeeping on pods.
  {
    what: "the DaemonSet controller relabelling a pod's revision (merging duplicate revisions)",
    request: podUpdate(undefined, (p) => (p.metadata.labels["controller-revision-hash"] = "7f8e9d")),
    allowed: (who, controllers) => who === "a break-glass member" || isController(who, controllers),
  },
  {
    what: "a controller changing another label with the revision",
    request: podUpdate(undefined, (p) => Object.assign(p.metadata.labels, { "controller-revision-hash": "7f8e9d", team: "ci" })),
    allowed: only("a break-glass member"),
  },
  {
    what: "a controller removing the revision label",
    request: podUpdate(undefined, (p) => delete p.metadata.labels["controller-revision-hash"]),
    allowed: only("a break-glass member"),
  },
  { what: "a kubelet's status update", request: podUpdate("status", (p) => (p.status.conditions = [{ type: "Ready", status: "False" }])), allowed: everyone },
  { what: "the garbage collector adding a finalizer", request: podRequest("UPDATE", undefined, WITH_FINALIZER, RUNNING), allowed: everyone },
  { what: "the garbage collector removing a finalizer", request: podRequest("UPDATE", undefined, RUNNING, WITH_FINALIZER), allowed: everyone },
  { what: "orphaning a pod (ownerReferences removed)", request: podUpdate(undefined, (p) => delete p.metadata.ownerReferences), allowed: everyone },
  {
    what: "adopting a pod (ownerReferences added)",
    request: podRequest(
      "UPDATE",
      undefined,
      RUNNING,
      edited(RUNNING, (p) => delete p.metadata.ownerReferences),
    ),
    allowed: everyone,
  },
  { what: "deleting a pod", request: podRequest("DELETE", undefined, null, RUNNING), allowed: everyone },
  { what: "namespace deletion deleting the pods", request: (who) => ({ ...podRequest("DELETE", undefined, null, RUNNING)(who), name: "" }), allowed: everyone },

  // CR-06b, e: new pods.
  { what: "the DaemonSet controller creating a conforming pod", request: podCreate(POD), allowed: isController },
  {
    what: "a conforming pod with no CA volume",
    request: podCreate(daemonSetPod(storedDaemonSet(runnerDaemonSet({ ...RUNNER, ca: undefined })))),
    allowed: isController,
  },
  {
    what: "a conforming pod with the CA from a Secret",
    request: podCreate(daemonSetPod(storedDaemonSet(runnerDaemonSet({ ...RUNNER, ca: { secret: "ca" } })))),
    allowed: isController,
  },
  {
    what: "a Deployment's pod with the Runner ServiceAccount (owner ReplicaSet)",
    request: podCreate(
      edited(
        POD,
        (p) =>
          (p.metadata.ownerReferences = [
            { apiVersion: "apps/v1", kind: "ReplicaSet", name: "borrowed-5d8f", uid: "u", controller: true, blockOwnerDeletion: true },
          ]),
      ),
    ),
    allowed: nobody,
  },
  {
    what: "a Job's pod with the Runner ServiceAccount",
    request: podCreate(
      edited(POD, (p) => (p.metadata.ownerReferences = [{ apiVersion: "batch/v1", kind: "Job", name: "borrowed", uid: "u", controller: true }])),
    ),
    allowed: nobody,
  },
  {
    what: "a StatefulSet's pod whose owner has the DaemonSet's name",
    request: podCreate(
      edited(POD, (p) => (p.metadata.ownerReferences = [{ apiVersion: "apps/v1", kind: "StatefulSet", name: RUNNER.name, uid: "u", controller: true }])),
    ),
    allowed: nobody,
  },
  { what: "a bare pod (no owner)", request: podCreate(edited(POD, (p) => delete p.metadata.ownerReferences)), allowed: nobody },
  { what: "a pod owned by another DaemonSet", request: podCreate(edited(POD, (p) => (p.metadata.ownerReferences[0].name = "other"))), allowed: nobody },
  {
    what: "a pod naming the Runner DaemonSet as a non-controller owner",
    request: podCreate(edited(POD, (p) => (p.metadata.ownerReferences[0].controller = false))),
    allowed: nobody,
  },
  {
    what: "a pod without the selector labels",
    request: podCreate(edited(POD, (p) => delete p.metadata.labels["app.kubernetes.io/instance"])),
    allowed: nobody,
  },
  ...BROKEN_SPECS.map(([what, edit]): Row => ({ what: `a pod with ${what}`, request: podCreate(withSpec(edit)), allowed: nobody })),
  {
    what: "a pod in another namespace",
    request: podCreate(
      edited(POD, (p) => (p.metadata.namespace = "default")),
      "default",
    ),
    allowed: everyone,
  },

  // CR-06e: no other workload in the namespace.
  { what: "a Deployment", request: workload("apps", "deployments", "Deployment"), allowed: nobody },
  { what: "a ReplicaSet", request: workload("apps", "replicasets", "ReplicaSet"), allowed: nobody },
  { what: "a StatefulSet", request: workload("apps", "statefulsets", "StatefulSet"), allowed: nobody },
  { what: "a Job", request: workload("batch", "jobs", "Job"), allowed: nobody },
  { what: "a CronJob", request: workload("batch", "cronjobs", "CronJob"), allowed: nobody },
  { what: "a ReplicationController", request: workload("", "replicationcontrollers", "ReplicationController"), allowed: nobody },
  {
    what: "a Deployment in another namespace",
    request: (who) => ({ ...workload("apps", "deployments", "Deployment")(who), namespace: "default" }),
    allowed: everyone,
  },

  // CR-06c, e: the DaemonSet.
  { what: "creating the conforming DaemonSet", request: dsRequest("CREATE", DS), allowed: only("a deployer") },
  {
    what: "rolling out a new digest",
    request: dsApply((o) => (container(o.spec.template.spec).image = `${RUNNER.repository}@${DIGEST_B}`)),
    allowed: only("a deployer"),
  },
  {
    what: "kubectl rollout restart (a template annotation)",
    request: dsApply((o) => (o.spec.template.metadata.annotations = { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z" })),
    allowed: only("a deployer"),
  },
  {
    what: "moving the Runner to another node",
    request: dsApply((o) => (o.spec.template.spec.nodeSelector = { "kubernetes.io/hostname": "kvm-node-2" })),
    allowed: only("a deployer"),
  },
  ...BROKEN_SPECS.map(([what, edit]): Row => ({ what: `a DaemonSet with ${what}`, request: dsTemplate(edit), allowed: nobody })),
  {
    what: "a DaemonSet template without the selector labels' values",
    request: dsApply((o) => (o.spec.template.metadata.labels["app.kubernetes.io/instance"] = "other")),
    allowed: nobody,
  },
  {
    what: "creating a DaemonSet that breaks an invariant",
    request: dsRequest("CREATE", storedDaemonSet(edited(runnerDaemonSet(), (o) => (o.spec.template.spec.hostPID = true)))),
    allowed: nobody,
  },
  {
    what: "a second DaemonSet in the namespace",
    request: dsRequest(
      "CREATE",
      edited(DS, (o) => (o.metadata.name = "sneaky")),
      undefined,
      "sneaky",
    ),
    allowed: nobody,
  },
  { what: "deleting the DaemonSet", request: dsRequest("DELETE", null, DS), allowed: (who) => who === "a deployer" || isHousekeeper(who) },
  {
    what: "namespace deletion deleting the DaemonSet (deletecollection)",
    request: dsRequest("DELETE", null, DS, ""),
    allowed: (who) => who === "a deployer" || isHousekeeper(who),
  },
  {
    what: "the garbage collector removing the DaemonSet's finalizer",
    request: dsRequest(
      "UPDATE",
      edited(DS_BEING_DELETED, (d) => (d.metadata.finalizers = [])),
      DS_BEING_DELETED,
    ),
    allowed: (who) => who === "a deployer" || isHousekeeper(who),
  },
  {
    what: "labelling the DaemonSet",
    request: dsRequest(
      "UPDATE",
      edited(DS, (d) => (d.metadata.labels.team = "ci")),
      DS,
    ),
    allowed: (who) => who === "a deployer" || isHousekeeper(who),
  },
  {
    what: "relabelling a DaemonSet whose template breaks an invariant (spec unchanged)",
    request: (who) => {
      const legacy = storedDaemonSet(edited(runnerDaemonSet(), (o) => delete o.spec.template.spec.hostUsers));
      return dsRequest(
        "UPDATE",
        edited(legacy, (d) => (d.metadata.labels.team = "ci")),
        legacy,
      )(who);
    },
    allowed: (who) => who === "a deployer" || isHousekeeper(who),
  },
  { what: "a DaemonSet status update", request: (who) => ({ ...dsRequest("UPDATE", DS, DS)(who), subResource: "status" }), allowed: everyone },
  {
    what: "a DaemonSet in another namespace",
    request: (who) => ({
      ...dsRequest(
        "CREATE",
        edited(DS, (d) => (d.spec.template.spec.hostPID = true)),
      )(who),
      namespace: "default",
    }),
    allowed: everyone,
  },

  // CR-06d: the Runner's credentials.
  { what: "a TokenRequest for the Runner ServiceAccount", request: tokenRequest(RUNNER.serviceAccount), allowed: only("a kubelet", "a break-glass member") },
  { what: "a TokenRequest for another ServiceAccount", request: tokenRequest("default"), allowed: everyone },
  {
    what: "a Secret-type token for the Runner ServiceAccount",
    request: secretRequest("CREATE", secret(SA_TOKEN, RUNNER.serviceAccount)),
    allowed: only("a break-glass member"),
  },
  {
    what: "retargeting a token Secret to the Runner ServiceAccount",
    request: secretRequest("UPDATE", secret(SA_TOKEN, RUNNER.serviceAccount), secret(SA_TOKEN, "default")),
    allowed: only("a break-glass member"),
  },
  {
    what: "the token controller filling in an existing Runner token Secret",
    request: secretRequest("UPDATE", { ...secret(SA_TOKEN, RUNNER.serviceAccount), data: { token: "ZXlK" } }, secret(SA_TOKEN, RUNNER.serviceAccount)),
    allowed: everyone,
  },
  { what: "a Secret-type token for another ServiceAccount", request: secretRequest("CREATE", secret(SA_TOKEN, "default")), allowed: everyone },
  { what: "an Opaque Secret naming the Runner ServiceAccount", request: secretRequest("CREATE", secret("Opaque", RUNNER.serviceAccount)), allowed: everyone },
  { what: "namespace deletion deleting a Secret", request: secretRequest("DELETE", null, secret(SA_TOKEN, RUNNER.serviceAccount)), allowed: everyone },
];

describe("the matrix's objects", () => {
  it("are valid upstream objects, unknown fields refused", () => {
    const objects = [DS, POD, RUNNING, ...BROKEN_SPECS.map(([, edit]) => withSpec(edit))];
    expect(objects.map((o) => validateStrict(o))).toEqual(objects.map(() => []));
  });

  it("are defaulted as the API server stores them: hostNetwork: false is absent, hostUsers: false is not", () => {
    const spec = (DS as Json).spec.template.spec;
    expect([spec.hostNetwork, spec.hostUsers, spec.securityContext.seccompProfile.type]).toEqual([undefined, false, "Localhost"]);
    expect((POD as Json).metadata.ownerReferences).toEqual([
      { apiVersion: "apps/v1", kind: "DaemonSet", name: RUNNER.name, uid: (DS as Json).metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
  });
});

describe.each(CONFIGS)("CR-06 request matrix, with %s", (_, controllers) => {
  const objects = admissionPolicies(inputFor(controllers));
  for (const row of ROWS) {
    it(row.what, () => {
      const got = Object.fromEntries(EVERYONE.map((who) => [who, admit(objects, row.request(PEOPLE[who]))]));
      // No denial may come from an expression that failed to evaluate.
      expect(Object.values(got).flatMap((d) => d.errors)).toEqual([]);
      expect(Object.fromEntries(EVERYONE.map((who) => [who, got[who].allowed]))).toEqual(
        Object.fromEntries(EVERYONE.map((who) => [who, row.allowed(who, controllers)])),
      );
    });
  }
});

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
