// A Server container's settings as compass-server reads them: Go's `flag`,
// then a non-empty flag over its variable twin (compass-interfaces §2.1).
import type { Container, EnvVar, PodSpec, Volume, VolumeMount } from "kubernetes-types/core/v1";
import { BOOL_FLAGS, SERVER_FLAGS, type InterfaceName } from "./runtime.ts";

/** One argument and where it sits in the container (`args` or `command`). */
interface Token {
  text: string;
  at: (string | number)[];
}

export interface ParsedFlag {
  /** Normalised to two dashes. */
  flag: string;
  value: string;
  /** Where the value is written (the flag's own token for `--x=v`). */
  at: (string | number)[];
  known: boolean;
}

/** The arguments compass-server receives: `command` past the binary (when it is compass-server), then `args`. */
function tokens(container: Container): Token[] {
  const out: Token[] = [];
  // Hand-written manifests may hold anything: a number where a string belongs reads as its text.
  const command = Array.isArray(container.command) ? container.command.map(String) : [];
  if (command.length > 0 && /(^|\/)compass-server$/.test(command[0])) command.slice(1).forEach((text, i) => out.push({ text, at: ["command", i + 1] }));
  (Array.isArray(container.args) ? container.args : []).forEach((text, i) => out.push({ text: String(text), at: ["args", i] }));
  return out;
}

/** Every flag the Go flag set would parse, in order. */
export function parseFlags(container: Container): ParsedFlag[] {
  const list = tokens(container);
  const out: ParsedFlag[] = [];
  for (let i = 0; i < list.length; i++) {
    const { text, at } = list[i];
    if (text === "--" || !text.startsWith("-") || text === "-") break;
    const body = text.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const flag = `--${eq < 0 ? body : body.slice(0, eq)}`;
    const known = SERVER_FLAGS.has(flag) || flag === "--help" || flag === "--h";
    if (eq >= 0) {
      out.push({ flag, value: body.slice(eq + 1), at, known });
      continue;
    }
    if (BOOL_FLAGS.has(flag) || flag === "--help" || flag === "--h") {
      out.push({ flag, value: "true", at, known });
      continue;
    }
    const next = list[i + 1];
    // An unknown flag stops the real program; guessing that it takes a value keeps the rest readable.
    if (next === undefined || (!known && next.text.startsWith("-"))) {
      out.push({ flag, value: "", at, known });
      continue;
    }
    out.push({ flag, value: next.text, at: next.at, known });
    i++;
  }
  return out;
}

export interface Resolved {
  via: "flag" | "env";
  /** The flag or variable that supplied it. */
  name: string;
  /** The literal value, when there is one (an env var from a Secret has none). */
  value?: string;
  /** The env entry, when the value comes from the environment (or `$(VAR)` in a flag). */
  env?: EnvVar;
  /** Path under the container: where to point a finding. */
  at: (string | number)[];
}

/** The last entry of `name` in the container's env (the kubelet keeps the last). */
export function envEntry(container: Container, name: string): { env: EnvVar; index: number } | undefined {
  const list = Array.isArray(container.env) ? container.env : [];
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.name === name) return { env: list[i], index: i };
  return undefined;
}

/** What the Server reads for `name`: the flag when non-empty, else the variable. */
export function resolve(container: Container, name: InterfaceName): Resolved | undefined {
  if (name.flag) {
    const given = parseFlags(container).filter((f) => f.flag === name.flag);
    const last = given[given.length - 1];
    if (last && last.value !== "") {
      // The kubelet expands $(VAR) in arguments from the container's own variables.
      const ref = /^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(last.value);
      const env = ref ? envEntry(container, ref[1])?.env : undefined;
      return { via: "flag", name: name.flag, value: env ? undefined : last.value, ...(env ? { env } : {}), at: last.at };
    }
  }
  if (name.env) {
    const found = envEntry(container, name.env);
    if (found && (found.env.valueFrom !== undefined || (found.env.value ?? "") !== "")) {
      return { via: "env", name: name.env, value: found.env.valueFrom ? undefined : found.env.value, env: found.env, at: ["env", found.index] };
    }
  }
  return undefined;
}

/** True when the setting's value comes from a Secret (secretKeyRef). */
export function fromSecret(r: Resolved | undefined): boolean {
  return r?.env?.valueFrom?.secretKeyRef !== undefined;
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
