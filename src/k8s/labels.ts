// The recommended `app.kubernetes.io/*` labels (G-07); selectors use only the
// two that never change, since selectors are immutable.
import type { ImageRef } from "../values/image.ts";
import { isLabelValue } from "./names.ts";

export const MANAGED_BY = "rigging";

export interface AppIdentity {
  /** The application: `compass-runner`, `compass-server`, `rootpilot-runner`. */
  name: string;
  /** This installation, usually the release name. */
  instance: string;
  component: string;
  partOf: string;
  image: ImageRef;
}

export function selectorLabels(app: AppIdentity): Record<string, string> {
  return { "app.kubernetes.io/name": app.name, "app.kubernetes.io/instance": app.instance };
}

export function recommendedLabels(app: AppIdentity): Record<string, string> {
  return {
    ...selectorLabels(app),
    "app.kubernetes.io/component": app.component,
    "app.kubernetes.io/part-of": app.partOf,
    "app.kubernetes.io/managed-by": MANAGED_BY,
    "app.kubernetes.io/version": versionOf(app.image),
  };
}

/** The tag when it is a valid label value, else the digest's first 12 hex digits. */
export function versionOf(image: ImageRef): string {
  return image.tag !== undefined && isLabelValue(image.tag) ? image.tag : `sha256-${image.digest.slice("sha256:".length, "sha256:".length + 12)}`;
}

export const RECOMMENDED_LABEL_KEYS = [
  "app.kubernetes.io/name",
  "app.kubernetes.io/instance",
  "app.kubernetes.io/component",
  "app.kubernetes.io/part-of",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/version",
] as const;
