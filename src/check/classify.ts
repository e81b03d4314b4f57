// Which profile's rules apply to each object: its name label (G-07), else its
// workload's shape, else the workload that refers to or selects it.
import type { Container, PodSpec, Volume } from "kubernetes-types/core/v1";
import type { K8sObject } from "../k8s/objects.ts";
import { POD_SPEC_PATH, type SystemName } from "../rules/engine.ts";
import { dig, isRecord, list, selects } from "../k8s/access.ts";
import { selectsLabels } from "../k8s/selector.ts";
import { SYSTEMS, catalog, type Shape } from "../systems/registry.ts";

interface Workload {
  object: K8sObject;
  profile: SystemName;
  spec: PodSpec;
  /** The pod spec as written: the ConfigMaps its envFrom named are read into env by the normalising stage. */
  written: PodSpec;
  podLabels: Record<string, string>;
}

/** The shapes of every system of the registry, with the system each names. */
let shapeList: { count: number; shapes: (Shape & { profile: SystemName })[] } | undefined;

/** Every system's shapes; made again when a system was added to the registry. */
function shapes(): (Shape & { profile: SystemName })[] {
  if (shapeList?.count !== SYSTEMS.length)
    shapeList = { count: SYSTEMS.length, shapes: SYSTEMS.flatMap((system) => system.shapes.map((shape) => ({ ...shape, profile: system.name }))) };
  return shapeList.shapes;
}

export interface Classified {
  profileOf: Map<K8sObject, SystemName>;
  /** Objects no profile claims: reported, not silently ignored. */
  unrecognised: K8sObject[];
}

/** `inputOf`: the object as written, for a normalised one. */
export function classify(objects: readonly K8sObject[], override?: SystemName, inputOf: (o: K8sObject) => K8sObject = (o) => o): Classified {
  const profileOf = new Map<K8sObject, SystemName>();
  if (override) {
    for (const object of objects) profileOf.set(object, override);
    return { profileOf, unrecognised: [] };
  }
  for (const object of objects) {
    const profile = catalog.profileByLabels(object) ?? byShape(object);
    if (profile) profileOf.set(object, profile);
  }
  const workloads = objects.flatMap((object) => {
    const profile = profileOf.get(object);
    const spec = podSpec(object);
    if (!profile || !spec) return [];
    const podLabels = (object.kind === "Pod" ? object.metadata.labels : dig(object, ["spec", "template", "metadata", "labels"])) ?? {};
    return [{ object, profile, spec, written: podSpec(inputOf(object)) ?? spec, podLabels: podLabels as Record<string, string> }];
  });
  // Two passes: bindings and roles follow what they bind, which the first
  // pass may only just have placed.
  for (let pass = 0; pass < 2; pass++) {
    for (const object of objects) {
      if (profileOf.has(object)) continue;
      const profile = aroundWorkload(object, workloads, objects) ?? followsBound(object, objects, profileOf);
      if (profile) profileOf.set(object, profile);
    }
  }
  // Last: objects that name no workload but serve a system whose workload the input holds.
  const present = new Set(workloads.map((w) => w.profile));
  for (const object of objects) {
    if (profileOf.has(object)) continue;
    const system = SYSTEMS.find((s) => present.has(s.name) && s.claims?.(object, objects));
    if (system) profileOf.set(object, system.name);
  }
  return { profileOf, unrecognised: objects.filter((o) => !profileOf.has(o)) };
}

function byShape(object: K8sObject): SystemName | undefined {
  const spec = podSpec(object);
  return spec ? shapes().find((shape) => shape.matches(spec, object))?.profile : undefined;
}

/** The profile of the first workload this object serves, if any. */
function aroundWorkload(object: K8sObject, workloads: readonly Workload[], objects: readonly K8sObject[]): SystemName | undefined {
  const ns = namespaceOf(object);
  const name = object.metadata.name;
  const same = workloads.filter((w) => namespaceOf(w.object) === ns);
  switch (object.kind) {
    case "Namespace":
      return workloads.find((w) => namespaceOf(w.object) === name)?.profile;
    case "ServiceAccount":
      return same.find((w) => serviceAccountOf(w.spec) === name)?.profile;
    case "ConfigMap":
    case "Secret":
      return same.find((w) => referencedNames(w.written, object.kind).includes(name))?.profile;
    case "NetworkPolicy":
      return same.find((w) => selects(dig(object, ["spec", "podSelector"]) ?? {}, w.podLabels))?.profile;
    case "Service":
      // A Service selector is a plain label map: matchLabels in LabelSelector form.
      return same.find((w) => isRecord(dig(object, ["spec", "selector"])) && selects({ matchLabels: dig(object, ["spec", "selector"]) }, w.podLabels))?.profile;
    case "PriorityClass":
      return workloads.find((w) => w.spec.priorityClassName === name)?.profile;
    case "PodDisruptionBudget":
      return same.find((w) => selects(dig(object, ["spec", "selector"]) ?? {}, w.podLabels))?.profile;
    case "RoleBinding":
    case "ClusterRoleBinding":
      return workloads.find((w) => bindsServiceAccountOf(object, w))?.profile;
    case "ValidatingAdmissionPolicy":
    case "ValidatingAdmissionPolicyBinding": {
      const match = object.kind === "ValidatingAdmissionPolicy" ? ["spec", "matchConstraints"] : ["spec", "matchResources"];
      const selector = dig(object, [...match, "namespaceSelector"]);
      // By what the selector selects (matchLabels or matchExpressions): a workload's namespace, and not every namespace.
      const labelsOf = (ns: string) => ({ ...namespaceObjectLabels(objects, ns), "kubernetes.io/metadata.name": ns });
      if (selector === undefined || selectsLabels(selector, { "kubernetes.io/metadata.name": "rigging-any-other-namespace" })) return undefined;
      return workloads.find((w) => selectsLabels(selector, labelsOf(namespaceOf(w.object))))?.profile;
    }
    default:
      return undefined;
  }
}

/** The labels of a Namespace object of the input, if it is there. */
function namespaceObjectLabels(objects: readonly K8sObject[], name: string): Record<string, string> {
  const labels = objects.find((o) => o.kind === "Namespace" && o.metadata.name === name)?.metadata.labels;
  return isRecord(labels) ? (labels as Record<string, string>) : {};
}

/** A binding follows its policy or role; a role follows its binding. */
function followsBound(object: K8sObject, objects: readonly K8sObject[], profileOf: Map<K8sObject, SystemName>): SystemName | undefined {
  const placed = (predicate: (o: K8sObject) => boolean) => objects.filter((o) => profileOf.has(o) && predicate(o)).map((o) => profileOf.get(o)!)[0];
  const name = object.metadata.name;
  switch (object.kind) {
    case "ValidatingAdmissionPolicyBinding":
      return placed((o) => o.kind === "ValidatingAdmissionPolicy" && o.metadata.name === dig(object, ["spec", "policyName"]));
    case "Role":
    case "ClusterRole":
      return placed(
        (o) =>
          (o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding") &&
          dig(o, ["roleRef", "kind"]) === object.kind &&
          dig(o, ["roleRef", "name"]) === name &&
          (object.kind === "ClusterRole" || namespaceOf(o) === namespaceOf(object)),
      );
    default:
      return undefined;
  }
}

function bindsServiceAccountOf(binding: K8sObject, workload: Workload): boolean {
  const subjects = binding.subjects;
  if (!Array.isArray(subjects)) return false;
  const account = serviceAccountOf(workload.spec);
  const namespace = namespaceOf(workload.object);
  return subjects.some((s) => isRecord(s) && namesServiceAccount(s, namespaceOf(binding), namespace, account));
}

/** Whether an RBAC subject takes in a ServiceAccount: by kind, or as the user or groups its token authenticates as. */
export function namesServiceAccount(subject: Record<string, unknown>, bindingNamespace: string, namespace: string, account: string): boolean {
  if (subject.kind === "ServiceAccount") return subject.name === account && (subject.namespace ?? bindingNamespace) === namespace;
  if (subject.kind === "User") return subject.name === `system:serviceaccount:${namespace}:${account}`;
  if (subject.kind === "Group") return subject.name === "system:serviceaccounts" || subject.name === `system:serviceaccounts:${namespace}`;
  return false;
}

function podSpec(object: K8sObject): PodSpec | undefined {
  const path = POD_SPEC_PATH[object.kind];
  const spec = path ? dig(object, path) : undefined;
  return isRecord(spec) ? (spec as unknown as PodSpec) : undefined;
}

function namespaceOf(object: K8sObject): string {
  return object.metadata.namespace ?? "";
}

function serviceAccountOf(spec: PodSpec): string {
  return spec.serviceAccountName ?? "default";
}

function containers(spec: PodSpec): Container[] {
  return [...list<Container>(spec.initContainers), ...list<Container>(spec.containers)].filter(isRecord) as Container[];
}

/** Names of the ConfigMaps or Secrets a pod spec mounts or reads. */
function referencedNames(spec: PodSpec, kind: string): string[] {
  const names: unknown[] = [];
  const secret = kind === "Secret";
  for (const volume of list<Volume>(spec.volumes)) {
    if (!isRecord(volume)) continue;
    names.push(secret ? volume.secret?.secretName : volume.configMap?.name);
    for (const source of list<Record<string, { name?: string }>>(volume.projected?.sources)) names.push(source?.[secret ? "secret" : "configMap"]?.name);
  }
  for (const container of containers(spec)) {
    for (const env of list<Record<string, Record<string, { name?: string }>>>(container.env))
      names.push(env?.valueFrom?.[secret ? "secretKeyRef" : "configMapKeyRef"]?.name);
    for (const from of list<Record<string, { name?: string }>>(container.envFrom)) names.push(from?.[secret ? "secretRef" : "configMapRef"]?.name);
  }
  return names.filter((n): n is string => typeof n === "string");
}
