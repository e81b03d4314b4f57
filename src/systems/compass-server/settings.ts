// A Server container's settings as compass-server reads them: Go's `flag`,
// then a non-empty flag over its variable twin (`firstNonEmpty(flag, env)`).
import type { Container, PodSpec, Volume, VolumeMount } from "kubernetes-types/core/v1";
import { cleanPath } from "../../k8s/clean-path.ts";
import type { FlagOrEnv, Reading } from "../../k8s/flag-or-env.ts";
import { BOOL_FLAGS, SERVER_FLAGS } from "./interface.ts";

/**
 * How compass-server reads its settings: Go's flag set (every flag known), the binary named in `command`, and `orEnv`;
 * a variable an envFrom outside the input may set reads as `from: "envFrom"`, which the rules leave not judged.
 */
export const SERVER_READING: Reading = {
  program: /(^|\/)compass-server$/,
  flags: { known: SERVER_FLAGS, bool: BOOL_FLAGS },
  emptyIsUnset: true,
  envFrom: true,
};

/** A setting an envFrom of a ConfigMap or Secret outside the input may set: not judged. */
export function unseen(r: FlagOrEnv | undefined): boolean {
  return r?.from === "envFrom";
}

/** A setting whose value the input cannot show: possibly set by envFrom, or read from a valueFrom (a Secret's key). */
export function valueNotShown(r: FlagOrEnv | undefined): boolean {
  return unseen(r) || (r?.value === undefined && r?.valueFrom !== undefined);
}

/** A path as the program opens it: relative to the working directory (`/` when unset, the OCI default), `.`, `..` and `//` cleaned. */
export function openedPath(container: Container, path: string): string {
  const dir = typeof container.workingDir === "string" && container.workingDir.startsWith("/") ? container.workingDir : "/";
  return cleanPath(path.startsWith("/") ? path : `${dir}/${path}`);
}

/** Where a finding about a setting points: the flag's value word, or the whole env entry. */
export function settingPath(r: FlagOrEnv): (string | number)[] {
  return r.from === "env" ? r.path.slice(0, 2) : r.path;
}

/** True when the setting's value comes from a Secret (secretKeyRef). */
export function fromSecret(r: FlagOrEnv | undefined): boolean {
  return r?.valueFrom?.secretKeyRef !== undefined;
}

/**
 * The mount that covers `file` (the deepest one), with its volume and the path inside it (subPath included);
 * paths compared as the kubelet and the program read them, cleaned (`/etc//tls/./tls.crt` is `/etc/tls/tls.crt`).
 */
export function mountOver(spec: PodSpec, container: Container, file: string): { mount?: VolumeMount; volume?: Volume; index: number; rest: string } {
  const path = openedPath(container, file);
  const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts.filter((m) => typeof m?.mountPath === "string") : [];
  let mount: VolumeMount | undefined;
  let at = "";
  for (const m of mounts) {
    const dir = cleanPath(m.mountPath);
    const covers = path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);
    if (covers && (mount === undefined || dir.length > at.length)) [mount, at] = [m, dir];
  }
  if (!mount) return { index: -1, rest: path };
  const index = (Array.isArray(spec.volumes) ? spec.volumes : []).findIndex((v) => v?.name === mount.name);
  const below = path === at ? "" : path.slice(at === "/" ? 1 : at.length + 1);
  const subPath = mount.subPath ? cleanPath(mount.subPath) : "";
  return {
    mount,
    volume: index < 0 ? undefined : spec.volumes![index],
    index,
    rest: subPath && below ? `${subPath}/${below}` : subPath || below,
  };
}

/** Whether a volume item's path (a key's file inside the volume) is `rest`, both cleaned. */
export function samePath(item: unknown, rest: string): boolean {
  return typeof item === "string" && cleanPath(item) === cleanPath(rest);
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
