// Edits and verdicts the Server's spelling tests share.
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { errorIds, example, objectOf, verdict } from "../../support/spellings.ts";

export type Objects = K8sObject[];
export type Edit = (objects: Objects) => void;

export const SERVER = "compass-server.yaml";
export const deployment = (objects: Objects) => objectOf(objects, "Deployment", "compass-server");
export const pod = (objects: Objects) => deployment(objects).spec.template.spec;
export const server = (objects: Objects) => pod(objects).containers[0];
export const natsPolicy = (objects: Objects) => objectOf(objects, "NetworkPolicy", "compass-server-nats");
export const serverPolicy = (objects: Objects) => objectOf(objects, "NetworkPolicy", "compass-server");

/** The edited example's verdict, less the lines about objects the edit added (`apart`, by name). */
export function verdictOf(name: string, edit: Edit, apart: readonly string[] = []): string[] {
  const objects = example(name);
  edit(objects);
  return verdict(objects).filter((line) => !apart.some((n) => line.split(" ")[2].endsWith(`/${n}`)) && !/^objects warning/.test(line));
}

export function errorsAfter(name: string, ...edits: Edit[]): string[] {
  const objects = example(name);
  for (const edit of edits) edit(objects);
  return errorIds(objects);
}

/** A selector's matchLabels written as matchExpressions `In`. */
export function asExpressions(selector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] }): void {
  selector.matchExpressions = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: "In", values: [value] }));
  delete selector.matchLabels;
}

/** Moves a flag with a variable twin into the environment as a literal value. */
export function flagToEnv(flag: string, env: string): Edit {
  return (objects) => {
    const c = server(objects);
    const i = c.args.indexOf(flag);
    c.env.push({ name: env, value: c.args[i + 1] });
    c.args.splice(i, 2);
  };
}
