// What kube-apiserver refuses beyond the OpenAPI schema in a PersistentVolumeClaim and in a StatefulSet's
// volumeClaimTemplates (pkg/apis/core/validation ValidatePersistentVolumeClaimSpec; the schema's enums
// judge the access modes and volumeMode themselves).
import { parseQuantity } from "../k8s/quantity.ts";
import { isDNS1123Subdomain } from "../k8s/validation.ts";
import { atLeast, type Ctx, checkLabelSelector, isRecord, list, type Path, RULES, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;

/** A claim's spec: an access mode, a positive storage request, a class name, a selector, its data source. */
export function checkClaimSpec(spec: unknown, path: Path, ctx: Ctx, claim = false): void {
  if (!isRecord(spec)) return;
  const modes = list(spec.accessModes);
  if (modes.length === 0)
    report(ctx, [...path, "accessModes"], "a claim needs at least one access mode (ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod)");
  if (modes.includes("ReadWriteOncePod") && modes.some((m) => m !== "ReadWriteOncePod" && typeof m === "string"))
    report(ctx, [...path, "accessModes"], "ReadWriteOncePod cannot be combined with another access mode");
  checkLabelSelector(spec.selector, [...path, "selector"], ctx);
  const requests = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : undefined;
  if (requests === undefined || !Object.hasOwn(requests, "storage"))
    report(ctx, [...path, "resources", "requests"], 'a claim needs resources.requests.storage, the size it asks for (such as "10Gi")');
  else {
    const storage = parseQuantity(requests.storage);
    if (storage !== undefined && storage.mantissa <= 0n)
      report(ctx, [...path, "resources", "requests", "storage"], `storage ${show(requests.storage)} must be greater than zero`);
  }
  const className = str(spec.storageClassName);
  if (className && isDNS1123Subdomain(className).length > 0)
    report(ctx, [...path, "storageClassName"], `${show(className)} is not a valid StorageClass name: ${RULES.subdomain}`);
  // A claim's create drops a dataSource other than a claim or a VolumeSnapshot when no dataSourceRef is set
  // (EnforceDataSourceBackwardsCompatibility, pkg/api/persistentvolumeclaim); a StatefulSet's templates keep theirs.
  const dropped = claim && !isRecord(spec.dataSourceRef) && !claimOrSnapshot(spec.dataSource);
  if (isRecord(spec.dataSource) && !dropped) checkDataSource(spec.dataSource, [...path, "dataSource"], ctx);
  if (isRecord(spec.dataSourceRef)) checkDataSource(spec.dataSourceRef, [...path, "dataSourceRef"], ctx);
}

/** validateDataSource, validateDataSourceRef: a kind and a name; in the core group only a claim; a group named as a subdomain. */
function checkDataSource(source: Obj, path: Path, ctx: Ctx): void {
  if (source.name === "") report(ctx, [...path, "name"], "a data source needs the name of the object it copies");
  if (source.kind === "") report(ctx, [...path, "kind"], "a data source needs the kind of the object it copies");
  const group = str(source.apiGroup) ?? "";
  const kind = str(source.kind);
  if (group === "" && kind !== undefined && kind !== "PersistentVolumeClaim")
    report(ctx, path, `a data source in the core group ("" or no apiGroup) is a PersistentVolumeClaim, not ${show(kind)}`);
  // Checked in 1.29's source, not in 1.24's (releases between not read: not judged there).
  if (group !== "" && atLeast(ctx, 29) && isDNS1123Subdomain(group).length > 0)
    report(ctx, [...path, "apiGroup"], `${show(group)} is not a valid API group: ${RULES.subdomain}`);
  // dataSourceRef.namespace is dropped on create while the alpha CrossNamespaceVolumeDataSource gate is off: not judged.
}

function claimOrSnapshot(source: unknown): boolean {
  if (!isRecord(source)) return false;
  const group = str(source.apiGroup) ?? "";
  return (source.kind === "PersistentVolumeClaim" && group === "") || (source.kind === "VolumeSnapshot" && group === "snapshot.storage.k8s.io");
}

/** ValidatePersistentVolumeClaim's spec, after the create's normalising. */
export function checkPersistentVolumeClaim(object: Obj, ctx: Ctx): void {
  checkClaimSpec(object.spec, ["spec"], ctx, true);
}

/** validateVolumeClaimTemplates (apps/validation): each template's spec, as a claim's; the API server validates them from 1.34. */
export function checkVolumeClaimTemplates(spec: Obj, ctx: Ctx): void {
  if (!atLeast(ctx, TEMPLATES_FROM)) return;
  list(spec.volumeClaimTemplates).forEach((template, i) => {
    if (isRecord(template)) checkClaimSpec(template.spec, ["spec", "volumeClaimTemplates", i, "spec"], ctx);
  });
}

/** The first minor whose StatefulSet validation judges volumeClaimTemplates' specs (checked against each release's source). */
const TEMPLATES_FROM = 34;
