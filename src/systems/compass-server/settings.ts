// A Server container's settings as compass-server reads them: Go's `flag`,
// then a non-empty flag over its variable twin (compass-interfaces §2.1).
import type { Container, PodSpec, Volume, VolumeMount } from "kubernetes-types/core/v1";
import type { FlagOrEnv, Reading } from "../../k8s/flag-or-env.ts";
import { BOOL_FLAGS, SERVER_FLAGS } from "./runtime.ts";

/** How compass-server reads its settings: Go's flag set (every flag known), the binary named in `command`, and `orEnv`. */
export const SERVER_READING: Reading = {
  program: /(^|\/)compass-server$/,
  flags: { known: SERVER_FLAGS, bool: BOOL_FLAGS },
  emptyIsUnset: true,
};

/** Where a finding about a setting points: the flag's value word, or the whole env entry. */
export function settingPath(r: FlagOrEnv): (string | number)[] {
  return r.from === "env" ? r.path.slice(0, 2) : r.path;
}

/** True when the setting's value comes from a Secret (secretKeyRef). */
export function fromSecret(r: FlagOrEnv | undefined): boolean {
  return r?.valueFrom?.secretKeyRef !== undefined;
}

/** The mount that covers `file` (the deepest one), with its volume and the path inside it. */
export function mountOver(spec: PodSpec, container: Container, file: string): { mount?: VolumeMount; volume?: Volume; index: number; rest: string } {
  const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts.filter((m) => typeof m?.mountPath === "string") : [];
  const covering = mounts.filter((m) => file === m.mountPath || file.startsWith(m.mountPath.replace(/\/?$/, "/")));
  const mount = covering.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return { index: -1, rest: file };
  const index = (Array.isArray(spec.volumes) ? spec.volumes : []).findIndex((v) => v?.name === mount.name);
  const rest = file === mount.mountPath ? (mount.subPath ?? "") : file.slice(mount.mountPath.replace(/\/?$/, "/").length);
  return {
    mount,
    volume: index < 0 ? undefined : spec.volumes![index],
    index,
    rest: mount.subPath && file !== mount.mountPath ? `${mount.subPath}/${rest}` : rest,
  };
}

export function isSecretVolume(volume: Volume | undefined): boolean {
  if (!volume) return false;
  return volume.secret !== undefined || (volume.projected?.sources ?? []).some((s) => s.secret !== undefined);
}

/** Whether the container can write at `path`: a writable volume, or a writable root. */
export function writableAt(spec: PodSpec, container: Container, path: string): boolean {
  const { mount, volume } = mountOver(spec, container, path);
  if (!mount) return container.securityContext?.readOnlyRootFilesystem !== true;
  if (mount.readOnly) return false;
  return Boolean(volume && (volume.emptyDir || volume.ephemeral || volume.persistentVolumeClaim || volume.hostPath));
}

/** The port of a `host:port` listen address, if it has one. */
export function listenPort(address: string): number | undefined {
  const match = /:(\d{1,5})$/.exec(address);
  const port = match ? Number(match[1]) : NaN;
  return port >= 1 && port <= 65535 ? port : undefined;
}
