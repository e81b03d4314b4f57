// What the normalising stage itself finds: copies that disagree, references
// that cannot resolve, selectors Kubernetes does not know.
import type { K8sObject } from "../k8s/objects.ts";

export interface Note {
  /** The normalised object the note is about. */
  object: K8sObject;
  path: PropertyKey[];
  severity: "error" | "warning";
  message: string;
}

/** Why a warning of the stage is one: Kubernetes accepts the input, but it may not mean what it says. */
export const NOTE_BECAUSE = "Kubernetes accepts it, but the object it runs may not be the one the text seems to describe";
