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
  const profileOf = new FilledOnRead<K8sObject, SystemName>(() => {
    const normal = normalise(objects);
    return inputProfiles(normal, classify(normal.objects, options.profile, (o) => normal.provenance.input(o)).profileOf);
  });
  const schema = schemaChecked(objects, options.kubeVersion, { place: (object, path) => place(object, [...path]), profileOf, identity });
  const profiles = new Set(schema.findings.flatMap((f) => (f.profile ? [f.profile] : [])));
  return { profiles: [...profiles], findings: schema.findings, unrecognised: schema.unchecked };
}

/** A Map filled on its first lookup. */
class FilledOnRead<K, V> extends Map<K, V> {
  #fill?: () => Map<K, V>;
  constructor(fill: () => Map<K, V>) {
    super();
    this.#fill = fill;
  }
  override get(key: K): V | undefined {
    this.#filled();
    return super.get(key);
  }
  override has(key: K): boolean {
    this.#filled();
    return super.has(key);
  }
  #filled(): void {
    const fill = this.#fill;
    this.#fill = undefined;
    if (fill) for (const [k, v] of fill()) this.set(k, v);
  }
}
