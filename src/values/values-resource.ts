// A values file may also be a KRM resource; apiVersion and metadata are
// checked and set aside before validation.
import { formatLocation } from "../core/diagnostic.ts";
import { UsageError } from "../core/errors.ts";
import type { SourceDocument } from "../parse/source.ts";
import { isRecord } from "../k8s/access.ts";

/** The API group and version of rigging's values, as a KRM resource. */
export const VALUES_API_VERSION = "rigging.dev/v1alpha1";

/** The keys a KRM resource adds to the values; none of them is a values key. */
export const RESOURCE_KEYS = ["apiVersion", "metadata"] as const;

/** `source` without `apiVersion` and `metadata`, keeping its positions. */
export function valuesOf(source: SourceDocument): SourceDocument {
  const data = source.data;
  // values/layers.ts takes `base` out of every file it reads; what still holds it came another way.
  if (isRecord(data) && Object.hasOwn(data, "base"))
    throw new UsageError(
      `${formatLocation(source.locate(["base"]))} base: a function config is read alone, without its base; render layered values with rigging render -f BASE -f FILE`,
    );
  if (!isRecord(data) || !(Object.hasOwn(data, "apiVersion") || Object.hasOwn(data, "metadata"))) return source;
  const { apiVersion, metadata, ...values } = data;
  const where = (path: string[]) => formatLocation(source.locate(path));
  if (apiVersion === undefined)
    throw new UsageError(
      `${where(["metadata"])} metadata: a values file carries metadata only as a KRM resource; add apiVersion: ${VALUES_API_VERSION}, or remove metadata`,
    );
  if (apiVersion !== VALUES_API_VERSION)
    throw new UsageError(
      `${where(["apiVersion"])} apiVersion: ${JSON.stringify(apiVersion)} is not rigging's; expected apiVersion: ${VALUES_API_VERSION} (or no apiVersion and metadata at all)`,
    );
  if (metadata !== undefined && !isRecord(metadata)) throw new UsageError(`${where(["metadata"])} metadata: expected a mapping (name, annotations, labels)`);
  const name = isRecord(metadata) ? metadata.name : undefined;
  if (name !== undefined && typeof name !== "string") throw new UsageError(`${where(["metadata", "name"])} metadata.name: expected a string`);
  return { file: source.file, data: values, locate: (path, options) => source.locate(path, options) };
}
