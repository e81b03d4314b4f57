// Rendered examples edited into other spellings, and check's verdict on them:
// an equivalent spelling must keep the verdict, a broken one must be caught.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { type CheckReport, checkFiles } from "../../src/check/run.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { renderFile } from "../../src/pipeline.ts";
import { parseQuantity, toBytes } from "../../src/k8s/quantity.ts";
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
  {
    name: "mount paths written with `//` and a trailing slash",
    edit: (objects, kind) => {
      const pod = podOf(objects, kind);
      for (const field of ["initContainers", "containers"])
        for (const container of pod[field] ?? [])
          for (const mount of container.volumeMounts ?? []) if (mount.mountPath !== "/") mount.mountPath = `/${mount.mountPath}/`;
    },
  },
  {
    name: "NetworkPolicy selectors written as matchExpressions",
    edit: (objects) => {
      const asExpressions = (selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | undefined) => {
        if (!selector?.matchLabels) return;
        const labels = Object.entries(selector.matchLabels).map(([key, value]) => ({ key, operator: "In", values: [value] }));
        selector.matchExpressions = [...(selector.matchExpressions ?? []), ...labels];
        delete selector.matchLabels;
      };
      for (const policy of objects.filter((o) => o.kind === "NetworkPolicy") as (K8sObject & { spec?: any })[]) {
        asExpressions(policy.spec?.podSelector);
        for (const rule of [...(policy.spec?.ingress ?? []), ...(policy.spec?.egress ?? [])])
          for (const peer of [...(rule.from ?? []), ...(rule.to ?? [])]) {
            asExpressions(peer.podSelector);
            asExpressions(peer.namespaceSelector);
          }
      }
    },
  },
  {
    name: "memory in another unit",
    edit: (objects, kind) => {
      // 8704Mi as 8912896Ki, 1Gi as 1048576Ki: the same number of bytes.
      for (const container of podOf(objects, kind).containers)
        for (const list of [container.resources?.limits, container.resources?.requests]) {
          const bytes = list?.memory === undefined ? undefined : parseQuantity(list.memory);
          const value = bytes && toBytes(bytes);
          if (value !== undefined && value % 1024n === 0n) list.memory = `${value / 1024n}Ki`;
        }
    },
  },
  {
    name: "the KVM device as 1000m",
    edit: (objects, kind) => {
      for (const container of podOf(objects, kind).containers)
        for (const list of [container.resources?.limits, container.resources?.requests])
          for (const name of Object.keys(list ?? {})) if (name.includes("/") && String(list[name]) === "1") list[name] = "1000m";
    },
  },
  {
    name: "path settings and mount paths with ./ and //",
    edit: (objects, kind) => {
      const spelled = (path: string) => path.replace(/^\/([^/]+)\//, "/./$1//");
      for (const container of podOf(objects, kind).containers) {
        for (const env of container.env ?? []) if (typeof env.value === "string" && /^\/[^\s:$]+$/.test(env.value)) env.value = spelled(env.value);
        for (const mount of container.volumeMounts ?? []) mount.mountPath = spelled(mount.mountPath);
      }
    },
  },
  {
    name: "Go flags in their other spellings (--flag value as -flag=value, --flag=value as -flag value)",
    edit: (objects) => {
      // Every workload's: the rendered arguments are flags with values, none a bool flag.
      for (const object of objects as (K8sObject & { spec?: any })[]) {
        const pod = object.kind === "Pod" ? object.spec : object.spec?.template?.spec;
        for (const container of pod?.containers ?? []) {
          const args: unknown[] = container.args ?? [];
          const out: unknown[] = [];
          for (let i = 0; i < args.length; i++) {
            const word = String(args[i]);
            const next = args[i + 1];
            if (/^--[^=-][^=]*=/.test(word)) out.push(word.slice(1, word.indexOf("=")), word.slice(word.indexOf("=") + 1));
            else if (/^--[^=-][^=]*$/.test(word) && typeof next === "string" && !next.startsWith("-")) {
              out.push(`${word.slice(1)}=${next}`);
              i++;
            } else out.push(args[i]);
          }
          if (container.args) container.args = out;
        }
      }
    },
  },
];
