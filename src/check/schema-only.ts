// `check --schema-only`: the objects as written against the Kubernetes schema,
// with the findings a full run gives under `--include-rule schema`.
import type { K8sObject } from "../k8s/objects.ts";
import { normalise } from "../normalise/index.ts";
import type { SystemName } from "../rules/engine.ts";
import { classify } from "./classify.ts";
import { inputProfiles } from "./notes.ts";
import type { CheckFinding, CheckOptions, CheckReport, ObjectIdentity } from "./run.ts";
import { schemaChecked } from "./schema-findings.ts";

type Place = (object: K8sObject, path: PropertyKey[]) => Pick<CheckFinding, "file" | "line" | "column" | "input">;

/** The schema's findings and unchecked custom resources of one directory's objects; no profile's rules run. */
export function schemaOnlyChecked(
  objects: K8sObject[],
  place: Place,
  options: CheckOptions,
  identity: (object: K8sObject) => ObjectIdentity,
): Pick<CheckReport, "profiles" | "findings" | "unrecognised"> {
  if (options.kubeVersion === undefined) return { profiles: [], findings: [], unrecognised: [] };
  // A finding names the profile a full run names, classified from the normalised objects only when there is a finding.
  let profiles: Map<K8sObject, SystemName> | undefined;
  const profileOf = (object: K8sObject) => {
    if (!profiles) {
      const normal = normalise(objects);
      profiles = inputProfiles(normal, classify(normal.objects, options.profile, (o) => normal.provenance.input(o)).profileOf);
    }
    return profiles.get(object);
  };
  const schema = schemaChecked(objects, options.kubeVersion, { place: (object, path) => place(object, [...path]), profileOf, identity });
  const named = new Set(schema.findings.flatMap((f) => (f.profile ? [f.profile] : [])));
  return { profiles: [...named], findings: schema.findings, unrecognised: schema.unchecked };
}
