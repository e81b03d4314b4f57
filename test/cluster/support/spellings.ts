// Ways of writing the rendered Runner DaemonSet that the API server stores
// as the same object (or with the default filled in): the corpus the
// defaults test compares rigging's verdicts over.
import type { K8sObject } from "../../../src/k8s/objects.ts";

// The edits reach into a DaemonSet's spec.
type Ds = K8sObject & { spec: any };

const podSpec = (ds: Ds) => ds.spec.template.spec;
const runner = (ds: Ds) => podSpec(ds).containers[0];
const tokenSource = (ds: Ds) =>
  podSpec(ds)
    .volumes.flatMap((v: { projected?: { sources: { serviceAccountToken?: Record<string, unknown> }[] } }) => v.projected?.sources ?? [])
    .find((s: { serviceAccountToken?: unknown }) => s.serviceAccountToken).serviceAccountToken;

export interface Spelling {
  name: string;
  edit(ds: K8sObject): K8sObject;
}

export const SPELLINGS: Spelling[] = [
  {
    name: "expirationSeconds left to its default of 3600",
    edit: (ds: Ds) => (delete tokenSource(ds).expirationSeconds, ds),
  },
  {
    name: "the deprecated serviceAccount field",
    edit: (ds: Ds) => {
      podSpec(ds).serviceAccount = podSpec(ds).serviceAccountName;
      delete podSpec(ds).serviceAccountName;
      return ds;
    },
  },
  {
    name: "the KVM device as 1000m",
    edit: (ds: Ds) => {
      for (const side of ["limits", "requests"]) runner(ds).resources[side]["devices.kubevirt.io/kvm"] = "1000m";
      return ds;
    },
  },
  {
    name: "memory in another unit",
    edit: (ds: Ds) => {
      const mib = Number.parseInt(runner(ds).resources.limits.memory, 10);
      for (const side of ["limits", "requests"]) runner(ds).resources[side].memory = String(mib * 1024 * 1024);
      return ds;
    },
  },
  {
    name: "requests left to default to the limits",
    edit: (ds: Ds) => {
      delete runner(ds).resources.requests.memory;
      delete runner(ds).resources.requests["devices.kubevirt.io/kvm"];
      return ds;
    },
  },
];
