// What `render -o DIR` writes into DIR, and a fleet into each OUT/NAME:
// - "manifests" (default): `manifests.yaml`, byte for byte what `render FILE`
//   prints, and a `kustomization.yaml` listing it;
// - "per-object" (`--per-object`): one file per object and a kustomization.
// The default suits fleets, where every file created costs; one installation
// looks the same rendered alone or in a fleet (docs/fleet.md).
import { directoryFiles, kustomizationOf, toYamlStream } from "./emit.ts";
import type { K8sObject } from "./objects.ts";

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
