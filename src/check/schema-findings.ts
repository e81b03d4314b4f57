// Schema hits and unschematised custom resources, placed in files like rule findings.
import { formatPath } from "../core/diagnostic.ts";
import { objectRef, type K8sObject } from "../k8s/objects.ts";
import type { SystemName } from "../rules/engine.ts";
import { kubeIndex, notKubernetes, schemaHits } from "./kube-schema.ts";
import { SCHEMA_RULE } from "./pseudo-rules.ts";
import type { CheckFinding, ObjectIdentity, Unrecognised } from "./run.ts";

type Place = (object: K8sObject, path: readonly PropertyKey[]) => Pick<CheckFinding, "file" | "line" | "column" | "input">;

/** The Kubernetes schema's findings (rule schema), and the custom resources it has no schema for. */
export function schemaChecked(
  objects: readonly K8sObject[],
  version: string,
  { place, profileOf, identity }: { place: Place; profileOf: (object: K8sObject) => SystemName | undefined; identity: (object: K8sObject) => ObjectIdentity },
): { findings: CheckFinding[]; unchecked: Unrecognised[] } {
  // What is not Kubernetes (another tool's YAML beside objects) gets no schema entry: it is listed as not recognised.
  const { hits, unchecked } = schemaHits(objects, version, kubeIndex()!);
  const findings = hits.map((hit): CheckFinding => {
    const profile = profileOf(hit.object);
    return {
      ...place(hit.object, hit.path),
      ruleId: SCHEMA_RULE.id,
      severity: hit.severity,
      ...(profile ? { profile } : {}),
      object: identity(hit.object),
      path: formatPath(hit.path),
      message: hit.message,
      fix: SCHEMA_RULE.fix,
      ...(hit.because !== undefined ? { because: hit.because } : {}),
    };
  });
  return {
    findings,
    unchecked: unchecked.map((object): Unrecognised => {
      const { file, line } = place(object, []);
      return {
        file,
        ...(line !== undefined ? { line } : {}),
        object: objectRef(object),
        identity: identity(object),
        workload: false,
        unchecked: `a custom resource: Kubernetes ${version} has no schema for ${object.apiVersion}, not validated`,
      };
    }),
  };
}

/** Whether every object of a file is not Kubernetes at this version: the file is skipped as the walk skips one without objects. */
export function notKubernetesFile(objects: readonly K8sObject[], version: string): boolean {
  const known = kubeIndex();
  return known !== undefined && objects.length > 0 && objects.every((object) => notKubernetes(object, version, known));
}
