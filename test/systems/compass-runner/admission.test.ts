// CR-06: the admission policies, evaluated by a real CEL engine over a
// matrix of requests: who asks, which verb on which (sub)resource, and what
// the object becomes. The objects are those the API server hands a policy
// (after defaulting, see test/support/runner-pods.ts). Every row runs for
// every identity, once with per-controller credentials and once with the
// upstream default controllers, which include system:kube-controller-manager.
import { describe, expect, it } from "vitest";
import { admissionPolicies, HOUSEKEEPERS } from "../../../src/systems/compass-runner/admission.ts";
import { admit, type AdmissionRequest } from "../../support/admission.ts";
import { validateStrict } from "../../support/k8s-schema.ts";
import { daemonSetPod, DIGEST_B, RUNNER, runnerDaemonSet, storedDaemonSet } from "../../support/runner-pods.ts";
import {
  CONFIGS,
  clone,
  container,
  DS,
  dsApply,
  dsRequest,
  dsTemplate,
  edited,
  EVERYONE,
  inputFor,
  type Json,
  PEOPLE,
  type Person,
  POD,
  podCreate,
  podRequest,
  podUpdate,
  RUNNING,
  secret,
  secretRequest,
  tokenRequest,
  type Who,
  withSpec,
  workload,
} from "./admission-requests.ts";

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

type Row = { what: string; request: (who: Who) => AdmissionRequest; allowed: (who: Person, controllers: string[]) => boolean };

const only =
  (...people: Person[]) =>
  (who: Person) =>
    people.includes(who);
const nobody = () => false;
const everyone = () => true;
const isController = (who: Person, controllers: string[]) => controllers.includes(PEOPLE[who].user);
const isHousekeeper = (who: Person) => (HOUSEKEEPERS as readonly string[]).includes(PEOPLE[who].user);

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
