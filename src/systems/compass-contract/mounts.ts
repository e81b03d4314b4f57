// Where a file a container opens is: its path as the program opens it, and the
// mount, volume and path inside it that hold it, as the kubelet mounts them.
import type { Container, PodSpec, Volume, VolumeMount } from "kubernetes-types/core/v1";
import { cleanPath } from "../../k8s/clean-path.ts";

/** A path as the program opens it: relative to the working directory (`/` when unset, the OCI default), `.`, `..` and `//` cleaned. */
export function openedPath(container: Container, path: string): string {
  const dir = typeof container.workingDir === "string" && container.workingDir.startsWith("/") ? container.workingDir : "/";
  return cleanPath(path.startsWith("/") ? path : `${dir}/${path}`);
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
