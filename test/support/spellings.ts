// Rendered examples edited into other spellings, and check's verdict on them:
// an equivalent spelling must keep the verdict, a broken one must be caught.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { type CheckReport, checkFiles } from "../../src/check/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { renderFile } from "../../src/pipeline.ts";
import { ROOT, tempDir } from "./cli.ts";

/** A rendered example's objects, a fresh copy on each call (examples/NAME). */
export function example(name: string): K8sObject[] {
  return structuredClone(renderFile(join(ROOT, "examples", name), { notes: false }).objects);
}

/** The first object of `kind` (and `name`, when given). */
export function objectOf(objects: readonly K8sObject[], kind: string, name?: string): K8sObject & { spec?: any; data?: any } {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind}${name ? ` ${name}` : ""} among ${objects.map((o) => o.kind).join(", ")}`);
  return found as K8sObject & { spec?: any };
}

/** The pod spec of the first workload of `kind`. */
export function podOf(objects: readonly K8sObject[], kind: string): any {
  return objectOf(objects, kind).spec.template.spec;
}

let dir: string | undefined;
let count = 0;

/** rigging check's report on the objects, written as one YAML stream. */
export function checked(objects: readonly unknown[], options: { kubeVersion?: string } = {}): CheckReport {
  dir ??= tempDir();
  const file = join(dir, `objects-${count++}.yaml`);
  writeFileSync(file, objects.map((o) => stringify(o)).join("---\n"));
  const report = checkFiles([file], options);
  if (report.problems.length > 0) throw new Error(report.problems.join("\n"));
  return report;
}

/** rigging check's findings on the objects, as sorted `rule severity Kind/name path` lines. */
export function verdict(objects: readonly unknown[], options: { kubeVersion?: string } = {}): string[] {
  return checked(objects, options)
    .findings.map((f) => `${f.ruleId} ${f.severity} ${f.object.kind}/${f.object.name ?? ""} ${f.path}`)
    .sort();
}

/** The rule IDs of the verdict's errors. */
export function errorIds(objects: readonly unknown[]): string[] {
  return [
    ...new Set(
      verdict(objects)
        .filter((line) => line.split(" ")[1] === "error")
        .map((line) => line.split(" ")[0]),
    ),
  ].sort();
}

/** A ConfigMap in the namespace of `beside`. */
export function configMap(beside: K8sObject, name: string, data: Record<string, string>): K8sObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: beside.metadata.namespace, labels: beside.metadata.labels }, data } as K8sObject;
}

/** Moves a container's literal env variables into a ConfigMap read by envFrom (or by configMapKeyRef), returning the ConfigMap. */
export function envToConfigMap(objects: K8sObject[], kind: string, how: "envFrom" | "configMapKeyRef", names?: readonly string[]): K8sObject {
  const workload = objectOf(objects, kind);
  const container = workload.spec.template.spec.containers[0];
  const name = `moved-settings-${objects.filter((o) => o.kind === "ConfigMap").length}`;
  const data: Record<string, string> = {};
  const kept: unknown[] = [];
  for (const env of container.env ?? []) {
    // The kubelet expands $(VAR) in env values only, never in a ConfigMap's: such a value stays.
    if (typeof env.value === "string" && !env.value.includes("$(") && (names === undefined || names.includes(env.name))) {
      data[env.name] = env.value;
      if (how === "configMapKeyRef") kept.push({ name: env.name, valueFrom: { configMapKeyRef: { name, key: env.name } } });
    } else kept.push(env);
  }
  container.env = kept;
  if (how === "envFrom") container.envFrom = [...(container.envFrom ?? []), { configMapRef: { name } }];
  const map = configMap(workload, name, data);
  objects.push(map);
  return map;
}

/** A rewrite of a rendered example into a spelling Kubernetes treats alike; `kind` is its workload's. */
export interface Rewrite {
  name: string;
  edit: (objects: K8sObject[], kind: string) => void;
}

/** Rewrites every rendered example takes without a change of verdict (but the duplicate's own warning). */
export const REWRITES: Rewrite[] = [
  { name: "settings read through envFrom of a ConfigMap", edit: (objects, kind) => void envToConfigMap(objects, kind, "envFrom") },
  { name: "settings read through configMapKeyRef", edit: (objects, kind) => void envToConfigMap(objects, kind, "configMapKeyRef") },
  {
    name: "a setting written as $(VAR) of another",
    edit: (objects, kind) => {
      const container = podOf(objects, kind).containers[0];
      const literal = (container.env ?? []).find((e: { value?: unknown }) => typeof e.value === "string");
      if (!literal) return;
      container.env.unshift({ name: "RIGGING_TEST_PART", value: literal.value });
      literal.value = "$(RIGGING_TEST_PART)";
    },
  },
  {
    name: "the deprecated serviceAccount field",
    edit: (objects, kind) => {
      const pod = podOf(objects, kind);
      pod.serviceAccount = pod.serviceAccountName;
      delete pod.serviceAccountName;
    },
  },
  {
    name: "requests left to default to the limits",
    edit: (objects, kind) => {
      const resources = podOf(objects, kind).containers[0].resources;
      for (const name of Object.keys(resources.limits ?? {})) delete resources.requests[name];
    },
  },
  {
    name: "projected and Secret mounts without readOnly",
    edit: (objects, kind) => {
      for (const container of podOf(objects, kind).containers) for (const mount of container.volumeMounts ?? []) delete mount.readOnly;
    },
  },
  {
    name: "the same objects given twice",
    edit: (objects) => void objects.push(...structuredClone(objects)),
  },
];
