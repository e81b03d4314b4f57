// Where each pod-carrying kind keeps its pod spec: every stage reads pods the same way.

/** Where each pod-carrying kind keeps its pod spec. */
export const POD_SPEC_PATH: Record<string, PropertyKey[]> = {
  Pod: ["spec"],
  DaemonSet: ["spec", "template", "spec"],
  Deployment: ["spec", "template", "spec"],
  StatefulSet: ["spec", "template", "spec"],
  ReplicaSet: ["spec", "template", "spec"],
  Job: ["spec", "template", "spec"],
};
