// The G- breakages every system's corpus needs, as one table: each an edit of
// the objects of a system's valid.yaml, and what `check` must say of it there,
// read from the rule and the system's record (test/fixtures/README.md).
import { Document, parseAllDocuments } from "yaml";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { POD_SPEC_PATH } from "../../src/k8s/pod-spec.ts";
import type { PodSecurityLevel } from "../../src/k8s/workload.ts";
import { parseImage } from "../../src/values/image.ts";
import { catalog, type System } from "../../src/systems/registry.ts";

type Path = (string | number)[];

/** One change of the set: a value set at a path of an object, a value appended to a list there, a key removed, or an object added. */
export type Edit =
  | { object: number; path: Path; set: unknown }
  | { object: number; path: Path; append: unknown }
  | { object: number; path: Path; remove: true }
  | { add: K8sObject };

/** What a breakage raises in a system: the rule's own severity, a warning under one of its opinions, or no finding. */
export type Outcome = "rule" | { opinion: string } | "nothing";

export interface Breakage {
  /** The file name without `.yaml`: the ID of the rule it breaks, `G-10`, or the ID and what, `G-10-unset`. */
  name: string;
  /** The header's text: what is broken. */
  says(system: System): string;
  edit(objects: readonly (K8sObject | null)[], system: System): Edit[];
  outcome(system: System): Outcome;
}

/** Pod Security levels, from the most permissive (Kubernetes' order). */
const LEVELS: readonly PodSecurityLevel[] = ["privileged", "baseline", "restricted"];
const ENFORCE = "pod-security.kubernetes.io/enforce";

/** The objects of valid.yaml, one for each document (null for an empty one), so that an index names a document too. */
type Objects = readonly (K8sObject | null)[];

function indexOf(objects: Objects, wanted: (o: K8sObject) => boolean, what: string): number {
  const index = objects.findIndex((o) => o !== null && wanted(o));
  if (index < 0) throw new Error(`valid.yaml holds no ${what}`);
  return index;
}

/** The first object that carries a pod, and the path of its pod spec. */
function firstWorkload(objects: Objects): { object: number; pod: Path } {
  const object = indexOf(objects, (o) => POD_SPEC_PATH[o.kind] !== undefined, "workload");
  return { object, pod: POD_SPEC_PATH[objects[object]!.kind] as Path };
}

/** The value at `path` in `object`, or undefined. */
const at = (object: unknown, path: Path): any => path.reduce<any>((node, key) => node?.[key], object);

/** The last object that carries a pod. */
function lastWorkload(objects: Objects): number {
  const workloads = objects.flatMap((o, i) => (o !== null && POD_SPEC_PATH[o.kind] !== undefined ? [i] : []));
  if (workloads.length === 0) throw new Error("valid.yaml holds no workload");
  return workloads[workloads.length - 1];
}

/** The first container of the first workload: the object's index, the container's path and the container. */
function firstContainer(objects: Objects) {
  const { object, pod } = firstWorkload(objects);
  const path = [...pod, "containers", 0];
  const container = at(objects[object], path);
  if (!container) throw new Error("the first workload of valid.yaml has no container");
  return { object, path, container };
}

const namespace = (objects: Objects) => indexOf(objects, (o) => o.kind === "Namespace", "Namespace");

/** The level other than the system's that the G-10 case enforces: baseline, or restricted where baseline is the system's. */
const otherLevel = (system: System): PodSecurityLevel => (system.podSecurity === "baseline" ? "restricted" : "baseline");

export const GENERAL_BREAKAGES: readonly Breakage[] = [
  {
    name: "G-04",
    says: () => "a secret is written inline into the first container of the first workload (CACHE_API_TOKEN).",
    edit(objects) {
      const { object, path } = firstContainer(objects);
      return [{ object, path: [...path, "env"], append: { name: "CACHE_API_TOKEN", value: "s3cr3t-cache-token" } }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-04-secret-object",
    says: () => "a Secret object, labelled as the first workload, joins the set: its value would live in the manifests.",
    edit(objects) {
      const { metadata } = objects[firstWorkload(objects).object]!;
      const secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "cache-token", namespace: metadata.namespace, labels: metadata.labels },
        stringData: { token: "s3cr3t" },
      };
      return [{ add: secret }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-05",
    says: () => "the first container of the first workload pulls its image by tag, not by digest.",
    edit(objects) {
      const { object, path, container } = firstContainer(objects);
      const image = parseImage(String(container.image));
      if (typeof image === "string") throw new Error(`the valid image ${container.image} ${image}`);
      return [{ object, path: [...path, "image"], set: `${image.repository}:1.0` }];
    },
    // A tag is rigging's opinion where no source document of the system asks for a digest.
    outcome: (system) => (system.digestOpinion ? { opinion: system.digestOpinion.key } : "rule"),
  },
  {
    name: "G-06",
    says: () => "the first container of the first workload may gain privileges (allowPrivilegeEscalation: true).",
    edit(objects) {
      const { object, path } = firstContainer(objects);
      return [{ object, path: [...path, "securityContext", "allowPrivilegeEscalation"], set: true }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-06-read-only-root",
    says: () => "the first container of the first workload has a writable root filesystem.",
    edit(objects) {
      const { object, path } = firstContainer(objects);
      return [{ object, path: [...path, "securityContext", "readOnlyRootFilesystem"], set: false }];
    },
    // An error only where a source document of the system asks for a read-only root.
    outcome: (system) => (system.readOnlyRootRequired ? "rule" : { opinion: "read-only-root" }),
  },
  {
    name: "G-07",
    says: () => "the first workload lacks the app.kubernetes.io/version label.",
    edit(objects) {
      const { object } = firstWorkload(objects);
      return [{ object, path: ["metadata", "labels", "app.kubernetes.io/version"], remove: true }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-08",
    says: () => "the last workload gains an init container (its first container's image and securityContext) without resources.",
    edit(objects) {
      const object = lastWorkload(objects);
      const pod = POD_SPEC_PATH[objects[object]!.kind] as Path;
      const container = (at(objects[object], [...pod, "containers", 0]) ?? {}) as { image?: string; securityContext?: unknown };
      // Not a main container, nor in the first workload: CR-19 judges the Runner's resources, CS-03 the Server pod's init containers.
      const init = { name: "wait-for-config", image: container.image, command: ["true"], securityContext: container.securityContext };
      return [{ object, path: [...pod, "initContainers"], append: init }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-09",
    says: () => "the first workload's pods pull with an image pull secret, although the images are public.",
    edit(objects) {
      const { object, pod } = firstWorkload(objects);
      return [{ object, path: [...pod, "imagePullSecrets"], set: [{ name: "registry-creds" }] }];
    },
    outcome: () => "rule",
  },
  {
    name: "G-10",
    says: (system) => `the Namespace enforces ${otherLevel(system)}, not the ${system.podSecurity} level its pods pass.`,
    edit: (objects, system) => [{ object: namespace(objects), path: ["metadata", "labels", ENFORCE], set: otherLevel(system) }],
    // Stricter than the pods pass, the API server refuses them; weaker, it is rigging's opinion.
    outcome: (system) => (LEVELS.indexOf(otherLevel(system)) > LEVELS.indexOf(system.podSecurity) ? "rule" : { opinion: "enforce" }),
  },
  {
    name: "G-10-no-level",
    says: () => "the Namespace's enforce label is no Pod Security level (restrict), so no level is enforced.",
    edit: (objects) => [{ object: namespace(objects), path: ["metadata", "labels", ENFORCE], set: "restrict" }],
    outcome: () => "rule",
  },
  {
    name: "G-10-unset",
    says: () => "the Namespace has no enforce label: the cluster's default level applies.",
    edit: (objects) => [{ object: namespace(objects), path: ["metadata", "labels", ENFORCE], remove: true }],
    outcome: () => ({ opinion: "enforce" }),
  },
  {
    name: "G-10-audit-warn",
    says: (system) => `the Namespace enforces ${system.podSecurity}, without the audit and warn labels.`,
    edit: (objects) =>
      ["audit", "warn"].map((mode) => ({
        object: namespace(objects),
        path: ["metadata", "labels", `pod-security.kubernetes.io/${mode}`],
        remove: true as const,
      })),
    // At privileged, audit and warn would report nothing, so they are not asked for.
    outcome: (system) => (system.podSecurity === "privileged" ? "nothing" : { opinion: "audit-warn" }),
  },
];

/** The rule ID a breakage breaks. */
export const ruleIdOf = (breakage: Breakage) => /^G-\d+/.exec(breakage.name)![0];

/** The severity `check` must give a breakage in a system, from its rule and the system's record; "none" for no finding. */
export function expectedSeverity(breakage: Breakage, system: System): "error" | "warning" | "none" {
  const outcome = breakage.outcome(system);
  if (outcome === "nothing") return "none";
  const rule = catalog.allRules().find((r) => r.id === ruleIdOf(breakage));
  if (!rule) throw new Error(`no rule ${ruleIdOf(breakage)}`);
  if (outcome === "rule") return rule.severity;
  if (!rule.opinions?.[outcome.opinion]) throw new Error(`${rule.id} has no opinion ${outcome.opinion}`);
  return "warning";
}

/** `valid` (a system's valid.yaml) with the edits applied, its comments and layout kept where untouched. */
export function applyEdits(valid: string, edits: readonly Edit[]): string {
  const docs: Document[] = [...parseAllDocuments(valid)];
  for (const edit of edits) {
    if ("add" in edit) docs.push(new Document(edit.add));
    else if ("set" in edit) docs[edit.object].setIn(edit.path, docs[edit.object].createNode(edit.set));
    else if ("append" in edit) {
      const doc = docs[edit.object];
      // addIn would start a missing list as a mapping.
      if (doc.hasIn(edit.path)) doc.addIn(edit.path, doc.createNode(edit.append));
      else doc.setIn(edit.path, doc.createNode([edit.append]));
    } else docs[edit.object].deleteIn(edit.path);
  }
  const text = docs.map((doc, i) => (i > 0 && !doc.directives?.docStart ? `---\n${doc}` : String(doc))).join("");
  // The valid set's own description, its leading comment lines, does not describe the broken one.
  return text.replace(/^(?:#.*\n)+/, "");
}

export interface GeneratedCase {
  /** The file name: `G-10-unset.yaml`. */
  name: string;
  severity: "error" | "warning" | "none";
  text: string;
}

/** Every breakage of the table for one system, in memory: its file name, expected severity and text. */
export function generateCases(system: System, valid: string): GeneratedCase[] {
  const objects = parseAllDocuments(valid).map((d) => d.toJS() as K8sObject | null);
  return GENERAL_BREAKAGES.map((breakage) => {
    const severity = expectedSeverity(breakage, system);
    const kind = severity === "error" ? "BROKEN" : severity === "warning" ? "WARNS" : "CLEAN";
    const header = [
      `# ${kind} (${ruleIdOf(breakage)}): ${breakage.says(system)}`,
      `# Generated from ${system.name}/valid.yaml by test/support/general-breakages.ts.`,
    ];
    return { name: `${breakage.name}.yaml`, severity, text: `${header.join("\n")}\n${applyEdits(valid, breakage.edit(objects, system))}` };
  });
}
