// What kube-apiserver refuses beyond the OpenAPI schema in the common volume sources: secret, configMap,
// hostPath, persistentVolumeClaim, downwardAPI and projected (pkg/apis/core/validation validateVolumeSource).
// A downward API field path and the gated projections (clusterTrustBundle, podCertificate) are not judged.
import { isDescendingPath } from "./kube-validate-container.ts";
import { type Ctx, int, isRecord, list, type Path, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;
const MODE_MAX = 0o777;
/** ServiceAccountTokenProjection's bounds: ten minutes to 2^32 seconds. */
const TOKEN_MIN = 600;
const TOKEN_MAX = 2 ** 32;

/** The problems of one volume's source; whether it had none (ValidateVolumes remembers only a volume without errors). */
export function checkVolumeSource(volume: Obj, path: Path, ctx: Ctx): boolean {
  const before = ctx.problems.length;
  if (isRecord(volume.secret)) {
    const at = [...path, "secret"];
    if (!str(volume.secret.secretName)) report(ctx, [...at, "secretName"], "a secret volume needs secretName");
    checkModes(volume.secret, at, ctx);
  }
  if (isRecord(volume.configMap)) {
    const at = [...path, "configMap"];
    if (!str(volume.configMap.name)) report(ctx, [...at, "name"], "a configMap volume needs the ConfigMap's name");
    checkModes(volume.configMap, at, ctx);
  }
  if (isRecord(volume.hostPath)) {
    const hostPath = str(volume.hostPath.path);
    // A missing path is the schema's (a required field).
    if (hostPath === "") report(ctx, [...path, "hostPath", "path"], "a hostPath volume needs its path");
    else if (hostPath?.split("/").includes("..")) report(ctx, [...path, "hostPath", "path"], `${show(hostPath)} must not contain '..'`);
  }
  if (isRecord(volume.persistentVolumeClaim) && !str(volume.persistentVolumeClaim.claimName))
    report(ctx, [...path, "persistentVolumeClaim", "claimName"], "a persistentVolumeClaim volume needs claimName");
  if (isRecord(volume.downwardAPI)) {
    const at = [...path, "downwardAPI"];
    checkMode(volume.downwardAPI.defaultMode, [...at, "defaultMode"], ctx);
    list(volume.downwardAPI.items).forEach((file, i) => {
      if (isRecord(file)) checkDownwardFile(file, [...at, "items", i], ctx);
    });
  }
  if (isRecord(volume.projected)) checkProjected(volume.projected, [...path, "projected"], ctx);
  return ctx.problems.length === before;
}

/** A mode is 0 to 0777 (octal). */
function checkMode(value: unknown, path: Path, ctx: Ctx): void {
  const mode = int(value);
  if (mode !== undefined && (mode < 0 || mode > MODE_MAX)) report(ctx, path, `mode ${mode} is outside 0 to 0777 (octal; 511 in decimal)`);
}

/** A secret's or configMap's defaultMode and items. */
function checkModes(source: Obj, path: Path, ctx: Ctx, paths?: Set<string>): void {
  checkMode(source.defaultMode, [...path, "defaultMode"], ctx);
  list(source.items).forEach((item, i) => {
    if (isRecord(item)) checkKeyToPath(item, [...path, "items", i], ctx, paths);
  });
}

/** ValidateLocalNonReservedPath: relative, no '..' element, not starting with '..'. */
function localPath(value: string): boolean {
  return isDescendingPath(value) && !value.startsWith("..");
}

/** validateKeyToPath: a key, a path inside the volume, a mode; in a projection each path once. */
function checkKeyToPath(item: Obj, path: Path, ctx: Ctx, paths?: Set<string>): void {
  if (!str(item.key)) report(ctx, [...path, "key"], "an item needs the key it takes");
  const target = str(item.path) ?? "";
  if (target === "") report(ctx, [...path, "path"], "an item needs the path it is written to");
  else if (!localPath(target)) report(ctx, [...path, "path"], `${show(target)} must be a relative path inside the volume, without '..'`);
  checkMode(item.mode, [...path, "mode"], ctx);
  if (paths && target !== "") {
    if (paths.has(target)) report(ctx, [...path, "path"], `path ${show(target)} is written twice in the projected volume`);
    paths.add(target);
  }
}

/** validateDownwardAPIVolumeFile: a path inside the volume, exactly one of fieldRef and resourceFieldRef, a mode. */
function checkDownwardFile(file: Obj, path: Path, ctx: Ctx, paths?: Set<string>): void {
  const target = str(file.path) ?? "";
  if (target === "") report(ctx, [...path, "path"], "a downward API file needs its path");
  else if (!localPath(target)) report(ctx, [...path, "path"], `${show(target)} must be a relative path inside the volume, without '..'`);
  const field = isRecord(file.fieldRef);
  const resource = isRecord(file.resourceFieldRef);
  if (field && resource) report(ctx, path, "a downward API file takes fieldRef or resourceFieldRef, not both");
  else if (!field && !resource) report(ctx, path, "a downward API file needs fieldRef or resourceFieldRef");
  checkMode(file.mode, [...path, "mode"], ctx);
  if (paths && target !== "") {
    if (paths.has(target)) report(ctx, [...path, "path"], `path ${show(target)} is written twice in the projected volume`);
    paths.add(target);
  }
}

const PROJECTIONS = ["secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle", "podCertificate"];

/** validateProjectedVolumeSource: one type per source, items as above, a token of ten minutes to 2^32 seconds at a local path. */
function checkProjected(projected: Obj, path: Path, ctx: Ctx): void {
  checkMode(projected.defaultMode, [...path, "defaultMode"], ctx);
  const paths = new Set<string>();
  list(projected.sources).forEach((source, i) => {
    if (!isRecord(source)) return;
    const at = [...path, "sources", i];
    const set = PROJECTIONS.filter((k) => source[k] !== undefined && source[k] !== null);
    if (set.length > 1) report(ctx, at, `a projected source takes one of ${set.join(" and ")}: split it into ${set.length} sources`);
    for (const kind of ["secret", "configMap"] as const) {
      const s = source[kind];
      if (!isRecord(s)) continue;
      if (!str(s.name)) report(ctx, [...at, kind, "name"], `a projected ${kind} needs the ${kind === "secret" ? "Secret" : "ConfigMap"}'s name`);
      list(s.items).forEach((item, j) => {
        if (isRecord(item)) checkKeyToPath(item, [...at, kind, "items", j], ctx, paths);
      });
    }
    if (isRecord(source.downwardAPI))
      list(source.downwardAPI.items).forEach((file, j) => {
        if (isRecord(file)) checkDownwardFile(file, [...at, "downwardAPI", "items", j], ctx, paths);
      });
    if (isRecord(source.serviceAccountToken)) checkToken(source.serviceAccountToken, [...at, "serviceAccountToken"], ctx);
  });
}

/** A projected token after SetDefaults_ServiceAccountTokenProjection (3600 seconds when unset). */
function checkToken(token: Obj, path: Path, ctx: Ctx): void {
  const seconds = int(token.expirationSeconds) ?? 3600;
  if (seconds < TOKEN_MIN) report(ctx, [...path, "expirationSeconds"], `expirationSeconds ${seconds} is under ten minutes (600)`);
  else if (seconds > TOKEN_MAX) report(ctx, [...path, "expirationSeconds"], `expirationSeconds ${seconds} is over 2^32 seconds`);
  const target = str(token.path) ?? "";
  if (target === "") report(ctx, [...path, "path"], "a projected token needs the path it is written to");
  else if (!localPath(target)) report(ctx, [...path, "path"], `${show(target)} must be a relative path inside the volume, without '..'`);
}
