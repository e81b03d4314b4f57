// Edits of the rendered examples/compass-runner.yaml for the spelling tests of this folder.
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { example, podOf, verdict } from "../../support/spellings.ts";

export const EXAMPLE = "compass-runner.yaml";

/** The rendered Runner, edited. */
export function runner(edit: (objects: K8sObject[], pod: any, container: any) => void): K8sObject[] {
  const objects = example(EXAMPLE);
  const pod = podOf(objects, "DaemonSet");
  edit(objects, pod, pod.containers[0]);
  return objects;
}

/** A literal variable of the Runner container, set (or added) to `value`. */
export function setEnv(container: any, name: string, value: string): void {
  const entry = container.env.find((e: { name: string }) => e.name === name);
  if (entry) entry.value = value;
  else container.env.push({ name, value });
}

/** The verdict's lines of one rule. */
export const linesOf = (objects: K8sObject[], id: string) => verdict(objects).filter((line) => line.startsWith(`${id} `));
