// What `render -o DIR` writes: `manifests.yaml` and a kustomization by default
// (fewer files for fleets), or one file per object with `--per-object`.
import { directoryFiles, kustomizationOf, toYamlStream } from "./emit.ts";
import type { K8sObject } from "../k8s/objects.ts";

export type Layout = "manifests" | "per-object";

export const DEFAULT_LAYOUT: Layout = "manifests";

/** The one stream file of the default layout. */
export const STREAM_FILE = "manifests.yaml";

/** The kustomization of the default layout, the same for every installation: made once. */
let streamKustomization: string | undefined;

/** The files of one installation, by name, in the order they are listed. */
export function layoutFiles(objects: readonly K8sObject[], layout: Layout): Map<string, string> {
  if (layout === "per-object") return directoryFiles(objects);
  streamKustomization ??= kustomizationOf([STREAM_FILE]);
  return new Map([
    [STREAM_FILE, toYamlStream(objects)],
    ["kustomization.yaml", streamKustomization],
  ]);
}
