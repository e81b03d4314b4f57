// Image references as Docker reads them, for `rigging pin`; a name without a
// registry is on Docker Hub.
import { isIPv4 } from "node:net";

export interface PinReference {
  /** The reference as written in the values file. */
  text: string;
  /** The name as written: everything before `:tag` and `@digest`. */
  name: string;
  /** The registry host[:port] as written, or Docker Hub's. */
  registry: string;
  /** Where the distribution API answers: http:// for a loopback registry, https:// otherwise. */
  apiBase: string;
  /** The repository path the API names (library/nats for nats). */
  repository: string;
  tag?: string;
  digest?: string;
}

const DOCKER_HUB = "docker.io";
const DOCKER_HUB_API = "https://registry-1.docker.io";
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** Longer references are refused before any pattern runs (Docker's own limit on a name is 255). */
const MAX_REFERENCE = 512;

/** The reference, or why it is not one (never quoting what looks like a credential). */
export function parseReference(text: string): PinReference | string {
  if (text.length > MAX_REFERENCE) return `is longer than ${MAX_REFERENCE} characters`;
  if (text.includes("://") || /^[^/@:]*:[^/@]*@[^/]*\//.test(text))
    return "is a URL, or carries a user or password: an image reference names no credentials, and registry reads are anonymous (D9)";
  const at = text.indexOf("@");
  const name = at < 0 ? text : text.slice(0, at);
  const digest = at < 0 ? undefined : text.slice(at + 1);
  const slash = name.indexOf("/");
  const first = slash < 0 ? "" : name.slice(0, slash);
  const hasRegistry = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost" || first.startsWith("["));
  const registry = hasRegistry ? first : DOCKER_HUB;
  const rest = hasRegistry ? name.slice(slash + 1) : name;
  const colon = rest.lastIndexOf(":");
  const tag = colon > rest.lastIndexOf("/") ? rest.slice(colon + 1) : undefined;
  const path = tag === undefined ? rest : rest.slice(0, colon);
  if (hasRegistry && !HOST.test(registry)) return "names an invalid registry host";
  if (path === "" || !path.split("/").every((c) => COMPONENT.test(c))) return "is not a valid image repository (lowercase letters, digits and separators)";
  if (tag !== undefined && !TAG.test(tag)) return "has an invalid tag";
  if (digest !== undefined && !DIGEST.test(digest)) return "has a digest that is not sha256:<64 lowercase hex>";
  const hub = registry === DOCKER_HUB || registry === "index.docker.io";
  return {
    text,
    name: tag === undefined ? name : name.slice(0, name.length - tag.length - 1),
    registry,
    apiBase: hub ? DOCKER_HUB_API : `${isLoopback(registry) ? "http" : "https"}://${registry}`,
    repository: hub && !path.includes("/") ? `library/${path}` : path,
    tag,
    digest,
  };
}

/** 127.0.0.0/8, localhost and [::1], with or without a port: reached over plain HTTP, as Docker does. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  return bare === "localhost" || bare === "::1" || (isIPv4(bare) && bare.startsWith("127."));
}

/** The reference written back with a digest beside its tag. */
export function withDigest(ref: PinReference, digest: string): string {
  return `${ref.name}${ref.tag === undefined ? "" : `:${ref.tag}`}@${digest}`;
}
