// What kube-apiserver refuses beyond the OpenAPI schema in a pod's and a container's securityContext
// (pkg/apis/core/validation validatePodSpecSecurityContext, ValidateSecurityContext). What a feature
// gate or the cluster decides (procMount, sysctls, privileged by cluster policy) is not judged.
import { byteLength } from "../k8s/validation.ts";
import { isDescendingPath } from "./kube-validate-container.ts";
import { atLeast, type Ctx, int, isRecord, list, type Path, report, show, str } from "./kube-validate-meta.ts";

type Obj = Record<string, unknown>;

/** validation.IsValidUserID and IsValidGroupID: 0 to 2147483647. */
const MAX_ID = 2147483647;

function checkId(value: unknown, path: Path, what: string, ctx: Ctx): void {
  const id = int(value);
  if (id !== undefined && (id < 0 || id > MAX_ID)) report(ctx, path, `${what} ${id} is outside 0-${MAX_ID}`);
}

/** The pod's securityContext, and shareProcessNamespace beside hostPID (both in the pod's security context upstream). */
export function checkPodSecurity(spec: Obj, path: Path, ctx: Ctx): void {
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    report(ctx, [...path, "shareProcessNamespace"], "shareProcessNamespace and hostPID cannot both be true");
  const sc = spec.securityContext;
  if (!isRecord(sc)) return;
  const at = [...path, "securityContext"];
  checkId(sc.fsGroup, [...at, "fsGroup"], "fsGroup", ctx);
  checkId(sc.runAsUser, [...at, "runAsUser"], "runAsUser", ctx);
  checkId(sc.runAsGroup, [...at, "runAsGroup"], "runAsGroup", ctx);
  list(sc.supplementalGroups).forEach((gid, i) => checkId(gid, [...at, "supplementalGroups", i], "supplemental group", ctx));
  checkProfiles(sc, at, ctx);
}

/** A container's securityContext: ids, profiles, and no privilege escalation switched off beside what needs it. */
export function checkContainerSecurity(container: Obj, path: Path, ctx: Ctx): void {
  const sc = container.securityContext;
  if (!isRecord(sc)) return;
  const at = [...path, "securityContext"];
  checkId(sc.runAsUser, [...at, "runAsUser"], "runAsUser", ctx);
  checkId(sc.runAsGroup, [...at, "runAsGroup"], "runAsGroup", ctx);
  checkProfiles(sc, at, ctx);
  if (sc.allowPrivilegeEscalation !== false) return;
  if (sc.privileged === true) report(ctx, at, "allowPrivilegeEscalation cannot be false while privileged is true");
  const added = isRecord(sc.capabilities) ? list(sc.capabilities.add) : [];
  // Upstream compares the text: only this spelling is refused.
  if (added.includes("CAP_SYS_ADMIN")) report(ctx, at, "allowPrivilegeEscalation cannot be false while capabilities.add holds CAP_SYS_ADMIN");
}

/** validateSeccompProfileField and ValidateAppArmorProfileField: a localhostProfile exactly when the type is Localhost. */
function checkProfiles(sc: Obj, path: Path, ctx: Ctx): void {
  const seccomp = sc.seccompProfile;
  if (isRecord(seccomp)) {
    const at = [...path, "seccompProfile", "localhostProfile"];
    const profile = seccomp.localhostProfile;
    const given = profile !== undefined && profile !== null;
    if (seccomp.type === "Localhost" && !given)
      report(ctx, at, "a Localhost seccomp profile needs localhostProfile, its file under the kubelet's seccomp directory");
    else if (seccomp.type === "Localhost" && typeof profile === "string" && !isDescendingPath(profile))
      report(ctx, at, `${show(profile)} must be a relative path without '..'`);
    else if (typeof seccomp.type === "string" && seccomp.type !== "Localhost" && given)
      report(ctx, at, "localhostProfile is set only when the type is Localhost");
  }
  const apparmor = sc.appArmorProfile;
  // The field is served from 1.30.
  if (!isRecord(apparmor) || !atLeast(ctx, 30)) return;
  const at = [...path, "appArmorProfile", "localhostProfile"];
  const profile = str(apparmor.localhostProfile);
  const given = apparmor.localhostProfile !== undefined && apparmor.localhostProfile !== null;
  if (apparmor.type === "Localhost") {
    if (!given || profile === "") report(ctx, at, "a Localhost AppArmor profile needs localhostProfile, the name of a profile loaded on the node");
    else if (profile !== undefined && profile.trim() !== profile) report(ctx, at, `${show(profile)} must not be padded with white space`);
    else if (profile !== undefined && byteLength(profile) > 4095) report(ctx, at, "localhostProfile is longer than 4095 bytes");
  } else if ((apparmor.type === "RuntimeDefault" || apparmor.type === "Unconfined") && given)
    report(ctx, at, "localhostProfile is set only when the type is Localhost");
}
