// CR-06: the Runner invariants' CEL, shared by the pod and DaemonSet policies.
// Standard CEL only, every optional field behind has().
import { KUBERNETES_DEFAULT_ON } from "./admission-notes.ts";

/** A CEL string literal. JSON escapes are a subset of CEL's. */
export function celString(value: string): string {
  return JSON.stringify(value);
}

/** A CEL list literal of strings. */
export function celList(items: readonly string[]): string {
  return `[${items.map(celString).join(", ")}]`;
}

/** A CEL map literal of strings. */
export function celMap(entries: Readonly<Record<string, string>>): string {
  return `{${Object.entries(entries)
    .map(([k, v]) => `${celString(k)}: ${celString(v)}`)
    .join(", ")}}`;
}

export interface Validation {
  expression: string;
  message: string;
  reason?: "Forbidden" | "Invalid";
}

/** What a Runner pod is made of; every value comes from the values file. */
export interface RunnerShape {
  containerName: string;
  serviceAccount: string;
  /** The image repository; the image is `<repository>@sha256:<64 hex>`. */
  imageRepository: string;
  /** The two host trees, the only hostPath volumes (CR-11). */
  hostPaths: readonly string[];
  /** The Localhost seccomp profile, relative to the kubelet's seccomp root (CR-10). */
  seccompProfile: string;
}

/** Volume kinds a Runner pod uses: the projected token, /tmp, the Server CA, the two trees. */
export const RUNNER_VOLUME_KINDS = ["projected", "emptyDir", "configMap", "secret", "downwardAPI", "hostPath"] as const;

/** The name of the policy variable that holds the pod selector labels. */
export const POD_SELECTOR_VAR = "podSelector";

type InvariantPaths = { spec: string; meta: string; metaPresent?: string; skipWhen?: string };

/** The invariants a Runner pod spec keeps (CR-06e), one validation each so a denial names what is wrong; `skipWhen` exempts a request. */
export function invariants(where: string, shape: RunnerShape, paths: InvariantPaths): Validation[] {
  const { spec, meta, metaPresent, skipWhen } = paths;
  const skip = (expression: string) => (skipWhen ? `${skipWhen} || (${expression})` : expression);
  const sc = (c: string) => `${c}.securityContext`;
  const profile = celString(shape.seccompProfile);
  const localhost = (s: string) =>
    `${s}.seccompProfile.type == "Localhost" && has(${s}.seccompProfile.localhostProfile) && ${s}.seccompProfile.localhostProfile == ${profile}`;
  const kinds = RUNNER_VOLUME_KINDS.map((kind) => `has(v.${kind})`).join(" || ");
  const checks: [string, string][] = [
    [
      `has(${spec}.hostUsers) && ${spec}.hostUsers == false`,
      `${where} must set hostUsers: false. An API server without user namespaces (feature gate UserNamespacesSupport, on by default from Kubernetes ${KUBERNETES_DEFAULT_ON}) drops the field without an error; the Runner must not run in the host user namespace (CR-06e, CR-09)`,
    ],
    [
      `!(has(${spec}.hostNetwork) && ${spec}.hostNetwork) && !(has(${spec}.hostPID) && ${spec}.hostPID) && !(has(${spec}.hostIPC) && ${spec}.hostIPC)`,
      `${where} must not use hostNetwork, hostPID or hostIPC (CR-06e)`,
    ],
    [
      `size(${spec}.containers) == 1 && ${spec}.containers[0].name == ${celString(shape.containerName)} && (!has(${spec}.initContainers) || size(${spec}.initContainers) == 0) && (!has(${spec}.ephemeralContainers) || size(${spec}.ephemeralContainers) == 0)`,
      `${where} must hold only the container ${shape.containerName}: no other, init or ephemeral container (CR-06e)`,
    ],
    [
      `${spec}.containers.all(c, !has(${sc("c")}) || ((!has(${sc("c")}.privileged) || !${sc("c")}.privileged) && (!has(${sc("c")}.capabilities) || !has(${sc("c")}.capabilities.add) || size(${sc("c")}.capabilities.add) == 0)))`,
      `${where} must not run a privileged container or add capabilities (CR-06e)`,
    ],
    [
      `!has(${spec}.volumes) || ${spec}.volumes.all(v, !has(v.hostPath) || v.hostPath.path in ${celList(shape.hostPaths)})`,
      `${where} may mount only the host trees ${shape.hostPaths.join(" and ")} from the node (CR-06e, CR-11)`,
    ],
    [
      `!has(${spec}.volumes) || ${spec}.volumes.all(v, ${kinds})`,
      `${where} may use only ${RUNNER_VOLUME_KINDS.join(", ")} volumes: another kind (a PersistentVolumeClaim, CSI, an image) can reach node storage the host-tree check does not see (CR-06e)`,
    ],
    [
      `has(${sc(spec)}) && has(${sc(spec)}.seccompProfile) && ${localhost(sc(spec))} && ${spec}.containers.all(c, !has(${sc("c")}) || !has(${sc("c")}.seccompProfile) || (${localhost(sc("c"))}))`,
      `${where} must use the seccomp profile Localhost ${shape.seccompProfile}, and no container may set another (CR-06e, CR-10)`,
    ],
    [
      `${spec}.containers.all(c, has(c.image) && c.image.startsWith(${celString(`${shape.imageRepository}@sha256:`)}) && c.image.matches("^[^@]+@sha256:[0-9a-f]{64}$"))`,
      `${where} must run ${shape.imageRepository} by digest (${shape.imageRepository}@sha256:<64 hex digits>), never by tag (CR-06e, G-05)`,
    ],
    [
      `has(${spec}.serviceAccountName) && ${spec}.serviceAccountName == ${celString(shape.serviceAccount)}`,
      `${where} must run as the ServiceAccount ${shape.serviceAccount} (CR-06e)`,
    ],
    [
      `${metaPresent ? `${metaPresent} && ` : ""}has(${meta}.labels) && variables.${POD_SELECTOR_VAR}.all(k, k in ${meta}.labels && ${meta}.labels[k] == variables.${POD_SELECTOR_VAR}[k])`,
      `${where} must carry the Runner's selector labels, which the DaemonSet and the NetworkPolicy select it by (CR-06e, CR-15)`,
    ],
  ];
  return checks.map(([expression, message]) => ({ expression: skip(expression), message, reason: "Forbidden" }));
}
