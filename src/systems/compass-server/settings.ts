// A Server container's settings as compass-server reads them: Go's `flag`,
// then a non-empty flag over its variable twin (`firstNonEmpty(flag, env)`).
import type { Container, PodSpec, Volume } from "kubernetes-types/core/v1";
import type { FlagOrEnv } from "../../k8s/flag-or-env.ts";
import { mountOver } from "../compass-contract/mounts.ts";

/** A setting an envFrom of a ConfigMap or Secret outside the input may set: not judged. */
export function unseen(r: FlagOrEnv | undefined): boolean {
  return r?.from === "envFrom";
}

/** A setting whose value the input cannot show: possibly set by envFrom, or read from a valueFrom (a Secret's key). */
export function valueNotShown(r: FlagOrEnv | undefined): boolean {
  return unseen(r) || (r?.value === undefined && r?.valueFrom !== undefined);
}

/** Where a finding about a setting points: the flag's value word, or the whole env entry. */
export function settingPath(r: FlagOrEnv): (string | number)[] {
  return r.from === "env" ? r.path.slice(0, 2) : r.path;
}

/** True when the setting's value comes from a Secret (secretKeyRef). */
export function fromSecret(r: FlagOrEnv | undefined): boolean {
  return r?.valueFrom?.secretKeyRef !== undefined;
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
