// The Rootpilot runner examples, edited so a setting reaches the runner in each spelling, for the spelling tests of this folder.
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { envToConfigMap, example, podOf } from "../../support/spellings.ts";

export const EKS = "rootpilot-eks.yaml";
export const GKE = "rootpilot-gke.yaml";
export const KIND = "Deployment";

export type Env = { name: string; value?: string; valueFrom?: unknown };

export function runner(objects: K8sObject[]): { env: Env[]; envFrom?: unknown[]; volumeMounts: { name: string; mountPath: string }[]; workingDir?: string } {
  return podOf(objects, KIND).containers[0];
}

/** The example with one variable set (added when absent). */
export function withEnv(name: string, value: string, file: string): K8sObject[] {
  const objects = example(file);
  const env = runner(objects).env;
  const entry = env.find((e) => e.name === name);
  if (entry) entry.value = value;
  else env.push({ name, value });
  return objects;
}

/** The ways a variable reaches the runner: as written, from a ConfigMap in the input, or through $(VAR). */
export const SPELLINGS: Record<string, (objects: K8sObject[], name: string) => void> = {
  "as written": () => {},
  "through envFrom of a ConfigMap": (objects, name) => void envToConfigMap(objects, KIND, "envFrom", [name]),
  "through configMapKeyRef": (objects, name) => void envToConfigMap(objects, KIND, "configMapKeyRef", [name]),
  "through $(VAR)": (objects, name) => {
    const env = runner(objects).env;
    const entry = env.find((e) => e.name === name)!;
    env.unshift({ name: "RIGGING_TEST_PART", value: entry.value });
    entry.value = "$(RIGGING_TEST_PART)";
  },
};

/** The lines of a verdict that name `id`. */
export const of = (lines: string[], id: string) => lines.filter((line) => line.startsWith(`${id} `));
export const errorsOf = (lines: string[], id: string) => lines.filter((line) => line.startsWith(`${id} error `));
