// check's findings that no catalog rule raises, each with its own ID.
import { NOTE_BECAUSE } from "../normalise/notes.ts";
import { POD_SPEC_PATH } from "../rules/engine.ts";
import { catalog } from "../systems/registry.ts";

export interface PseudoRule {
  id: string;
  summary: string;
  fix: string;
  why: string;
  /** Its warnings, each with why it is one (the rest of its findings are errors). */
  opinions?: { summary: string; because: string }[];
}

export const INPUT_RULE: PseudoRule = {
  id: "input",
  summary: "A file that holds Kubernetes objects can be read as kubectl would apply it",
  fix: "make the file valid YAML of Kubernetes objects (kubectl apply --dry-run=client -f FILE), or leave it out with --exclude",
  why: "kubectl refuses the whole file: none of its objects would be applied.",
};

export const UNRECOGNISED_RULE: PseudoRule = {
  id: "unrecognised",
  summary: "Every workload checked is recognised as one of rigging's profiles",
  fix: `give the workload the app.kubernetes.io/name label of its system (${catalog.names().join(", ")}), or check it with --profile NAME`,
  why: "A workload no profile claims is not judged at all: a Runner whose labels are misnamed would pass unseen. It is skipped, or an error with --strict.",
};

/** Why a deprecated apiVersion is a warning. */
export const DEPRECATED_BECAUSE =
  "a beta API version is removed once its stable version has been served for a while; the stable one is served beside it already";

export const SCHEMA_RULE: PseudoRule = {
  id: "schema",
  summary: "Every object is one the API server of the target version (--kube-version) accepts: its schema, and the validation the API server applies beyond it",
  fix: "write each field as the Kubernetes API of the target version names and types it (kubectl explain KIND.FIELD), with a value it allows and a name, label or port Kubernetes accepts (the message names the rule), and an apiVersion it serves; name the cluster's version with --kube-version",
  why: "The API server refuses an object with a field of the wrong type, without a required field, or with a value outside the field's enum (imagePullPolicy: Sometimes), and kubectl's strict field validation refuses an unknown field: a misspelt field (hostNetwrk) would otherwise be dropped in silence. Its validation refuses more than the schema says: a name the kind does not allow (Server_server-499), a label or annotation key, a port out of range, two containers or volumes of one name, requests above limits, a selector that does not select the template. An apiVersion the cluster does not serve is refused whole. What only the cluster knows (a ServiceAccount's existence, the Service IP and node port ranges, quotas, admission webhooks) is not judged. A beta apiVersion beside its stable one is a warning: a later release stops serving it.",
  opinions: [{ summary: "a beta or alpha apiVersion the target version also serves as a stable one", because: DEPRECATED_BECAUSE }],
};

export const OBJECTS_RULE: PseudoRule = {
  id: "objects",
  summary: "The input describes one object per identity, and each reference and selector in it resolves as Kubernetes resolves it",
  fix: "give each object once, name the namespace of every namespaced object (or of none), and write references and selectors Kubernetes resolves (the message names the one)",
  why: "check judges the objects Kubernetes will run: after the API server's defaults, with each container's environment as the kubelet builds it from the ConfigMaps and Secrets in the input. Where the text and that object part ways (two different copies of one object, a ConfigMap key that is not there, a selector operator the API server refuses) the object is not the one the text seems to describe.",
  opinions: [
    {
      summary:
        "an object given twice, a namespace omitted beside named ones, a $(VAR) that refers to itself or to a later entry, a ConfigMap two envFrom entries read",
      because: NOTE_BECAUSE,
    },
  ],
};

export const PSEUDO_RULES: readonly PseudoRule[] = [INPUT_RULE, UNRECOGNISED_RULE, SCHEMA_RULE, OBJECTS_RULE];

/** Whether objects of this kind run pods (the kinds whose pod spec the rules read). */
export function isWorkloadKind(kind: string): boolean {
  return POD_SPEC_PATH[kind] !== undefined;
}
