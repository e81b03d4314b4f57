// The OCI distribution API, read anonymously (D9), with every answer bounded
// (size, redirects, deadline) so a bad registry ends in a clear error.
import { createHash } from "node:crypto";
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { z } from "zod";
import { UsageError } from "../core/errors.ts";
import type { Deadline } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { isLoopback, type PinReference } from "./reference.ts";

/** The distribution spec's own recommendation; registries refuse larger manifests. */
export const MANIFEST_BYTES = 4 * 1024 * 1024;
const TOKEN_BYTES = 64 * 1024;
const MAX_REDIRECTS = 5;

export const INDEX_TYPES = ["application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json"];
export const IMAGE_TYPES = ["application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"];
const ACCEPT = [...INDEX_TYPES, ...IMAGE_TYPES].join(", ");

/** The registry cannot be talked to: exit 2, like a server a preflight cannot reach. */
export class RegistryError extends UsageError {}

/** A fact about the image, not about the registry: reported as a finding. */
export class ImageProblem extends Error {
  constructor(
    readonly id: "D8" | "D9" | "D10",
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

export interface Manifest {
  digest: string;
  kind: "index" | "image";
  mediaType: string;
  /** os/architecture of every image it holds (attestations left out). */
  platforms: string[];
}

const platformSchema = z.object({ os: z.string().max(64), architecture: z.string().max(64), variant: z.string().max(64).optional() });
const indexSchema = z.object({
  mediaType: z.string().optional(),
  manifests: z.array(z.object({ mediaType: z.string().optional(), digest: z.string(), platform: platformSchema.optional() })).max(10_000),
});
const imageSchema = z.object({
  mediaType: z.string().optional(),
  config: z.object({ mediaType: z.string().optional(), digest: z.string().regex(/^sha256:[0-9a-f]{64}$/) }),
});
const configSchema = z.object({ os: z.string().max(64), architecture: z.string().max(64) });

/** A response: its status, its headers (lowercase names), and its body still to read. */
interface Answer {
  status: number;
  header(name: string): string | undefined;
  message: IncomingMessage;
}

export class RegistryClient {
  /** Bearer tokens by API base and repository: one challenge each. */
  private readonly tokens = new Map<string, string>();
  /** Connections are kept for the run's few requests, and closed with it. */
  private readonly agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 4 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 4 }) };

  constructor(private readonly deadline: Deadline) {}

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** The manifest `reference` (a tag or a digest) names, with the platforms it holds. */
  async manifest(ref: PinReference, reference: string): Promise<Manifest> {
    const where = `${ref.name}${reference.startsWith("sha256:") ? "@" : ":"}${reference}`;
    const response = await this.get(ref, `/v2/${ref.repository}/manifests/${reference}`, ACCEPT, MANIFEST_BYTES, where);
    const digest = sha256(response.body);
    const claimed = response.header("docker-content-digest");
    if (claimed?.startsWith("sha256:") && claimed !== digest)
      throw new RegistryError(
        `${ref.registry}: the digest the registry gives for ${where} (${printable(claimed.slice(0, 80))}) is not the digest of the manifest it sent (${digest})`,
      );
    if (reference.startsWith("sha256:") && digest !== reference)
      throw new RegistryError(`${ref.registry}: asked for ${where}, the registry sent a manifest with digest ${digest}`);
    const json = parseJson(response.body, `${ref.registry}: the answer for ${where} is not a manifest (not JSON)`);
    const mediaType =
      (typeof (json as { mediaType?: unknown })?.mediaType === "string"
        ? (json as { mediaType: string }).mediaType
        : response.header("content-type")?.split(";")[0].trim()) ?? "";
    if (INDEX_TYPES.includes(mediaType)) {
      const index = indexSchema.safeParse(json);
      if (!index.success) throw new RegistryError(`${ref.registry}: the image index for ${where} is malformed`);
      const platforms = index.data.manifests
        .filter((m) => m.platform && m.platform.os !== "unknown" && m.platform.architecture !== "unknown")
        .map((m) => `${m.platform!.os}/${m.platform!.architecture}`);
      return { digest, kind: "index", mediaType, platforms: [...new Set(platforms)] };
    }
    if (IMAGE_TYPES.includes(mediaType)) {
      const image = imageSchema.safeParse(json);
      if (!image.success) throw new RegistryError(`${ref.registry}: the image manifest for ${where} is malformed`);
      const configDigest = image.data.config.digest;
      const blob = await this.get(ref, `/v2/${ref.repository}/blobs/${configDigest}`, "application/json, */*", MANIFEST_BYTES, `${ref.name}@${configDigest}`);
      if (sha256(blob.body) !== configDigest) throw new RegistryError(`${ref.registry}: the image configuration of ${where} does not match its digest`);
      const config = configSchema.safeParse(parseJson(blob.body, `${ref.registry}: the image configuration of ${where} is not JSON`));
      if (!config.success) throw new RegistryError(`${ref.registry}: the image configuration of ${where} names no os and architecture`);
      return { digest, kind: "image", mediaType, platforms: [`${config.data.os}/${config.data.architecture}`] };
    }
    throw new ImageProblem(
      "D10",
      `${where} is a ${printable(mediaType.slice(0, 100)) || "manifest of no media type"}, neither an image index nor an image manifest`,
      "publish the image as an OCI image index (or a Docker manifest list)",
    );
  }

  /** A GET of `path` (with its query) that follows redirects and one anonymous token challenge, the body read up to `limit`. */
  async get(ref: PinReference, path: string, accept: string, limit: number, what: string): Promise<{ body: Buffer; header(name: string): string | undefined }> {
    let url = new URL(ref.apiBase + path);
    const key = `${ref.apiBase} ${ref.repository}`;
    let challenged = false;
    for (let hop = 0; ; hop++) {
      if (hop > MAX_REDIRECTS) throw new RegistryError(`${ref.registry}: more than ${MAX_REDIRECTS} redirects for ${what}`);
      const token = url.origin === new URL(ref.apiBase).origin ? this.tokens.get(key) : undefined;
      const response = await this.fetch(url, { accept, ...(token ? { authorization: `Bearer ${token}` } : {}) }, ref.registry);
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await discard(response);
        const location = response.header("location");
        if (!location) throw new RegistryError(`${ref.registry}: a redirect (${response.status}) without a location for ${what}`);
        url = followable(new URL(location, url), url, ref.registry);
        continue;
      }
      if (response.status === 401 && !challenged) {
        challenged = true;
        const challenge = response.header("www-authenticate") ?? "";
        await discard(response);
        this.tokens.set(key, await this.anonymousToken(ref, challenge, what));
        hop--;
        continue;
      }
      if (response.status === 401 || response.status === 403) {
        await discard(response);
        throw notPublic(ref, what, response.status === 403 ? "refuses anonymous reads (403)" : "demands credentials (401)");
      }
      if (response.status === 404) {
        await discard(response);
        throw new ImageProblem("D8", `${what} is not in the registry (404)`, "name a tag or digest that the registry holds");
      }
      if (response.status === 429) {
        await discard(response);
        throw new RegistryError(`${ref.registry}: too many requests (429); try again later`);
      }
      if (response.status !== 200) {
        await discard(response);
        throw new RegistryError(`${ref.registry}: answered ${response.status} for ${what}`);
      }
      return { body: await this.read(response, limit, ref.registry, what), header: response.header };
    }
  }

  /** Follows a Bearer challenge without credentials; any other scheme means the image is not public. */
  private async anonymousToken(ref: PinReference, header: string, what: string): Promise<string> {
    const challenge = parseChallenge(header);
    if (!challenge || challenge.scheme !== "bearer")
      throw notPublic(ref, what, `demands credentials${challenge ? ` (${printable(challenge.scheme.slice(0, 20))} authentication)` : ""}`);
    const realm = challenge.params.get("realm");
    let url: URL;
    try {
      url = new URL(realm ?? "");
    } catch {
      throw new RegistryError(`${ref.registry}: its token challenge names no valid realm`);
    }
    url = followable(url, new URL(ref.apiBase), ref.registry);
    const service = challenge.params.get("service");
    if (service) url.searchParams.set("service", service);
    url.searchParams.set("scope", challenge.params.get("scope") ?? `repository:${ref.repository}:pull`);
    const response = await this.fetch(url, { accept: "application/json" }, ref.registry);
    if (response.status === 401 || response.status === 403) {
      await discard(response);
      throw notPublic(ref, what, "gives no anonymous token");
    }
    if (response.status !== 200) {
      await discard(response);
      throw new RegistryError(`${ref.registry}: its token service answered ${response.status}`);
    }
    const json = parseJson(await this.read(response, TOKEN_BYTES, ref.registry, "a token"), `${ref.registry}: its token service did not answer with JSON`) as {
      token?: unknown;
      access_token?: unknown;
    };
    const token = typeof json?.token === "string" ? json.token : json?.access_token;
    if (typeof token !== "string" || token === "" || token.length > TOKEN_BYTES || !/^[\x21-\x7e]+$/.test(token))
      throw new RegistryError(`${ref.registry}: its token service gave no usable token`);
    return token;
  }

  /** One GET; the deadline destroys it. (Not fetch(), which refuses some ports a registry may listen on.) */
  private fetch(url: URL, headers: Record<string, string>, registry: string): Promise<Answer> {
    let request: ClientRequest | undefined;
    const answer = new Promise<Answer>((resolve, reject) => {
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      request = send(
        url,
        {
          headers: { ...headers, "user-agent": "rigging-pin" },
          agent: url.protocol === "https:" ? this.agents.https : this.agents.http,
          maxHeaderSize: 64 * 1024,
        },
        (message) =>
          resolve({
            status: message.statusCode ?? 0,
            header: (name) => {
              const value = message.headers[name];
              return Array.isArray(value) ? value.join(", ") : value;
            },
            message,
          }),
      );
      request.on("error", (error) => reject(new RegistryError(`${registry}: ${transportProblem(error)}`)));
      request.end();
    });
    return this.deadline.race(answer, () => request?.destroy());
  }

  /** The body, up to `limit` bytes: a larger one is refused before it is all read. */
  private async read(response: Answer, limit: number, registry: string, what: string): Promise<Buffer> {
    const tooBig = () =>
      new RegistryError(
        `${registry}: the answer for ${what} is larger than ${limit / 1024 / 1024 >= 1 ? `${limit / 1024 / 1024} MiB` : `${limit / 1024} KiB`}`,
      );
    const message = response.message;
    if (Number(response.header("content-length") ?? "0") > limit) {
      message.destroy();
      throw tooBig();
    }
    const body = new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      message.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > limit) {
          reject(tooBig());
          message.destroy();
        } else chunks.push(chunk);
      });
      message.on("end", () => resolve(Buffer.concat(chunks, total)));
      message.on("error", (error) => reject(new RegistryError(`${registry}: the answer for ${what} broke off: ${transportProblem(error)}`)));
      message.on("aborted", () => reject(new RegistryError(`${registry}: the answer for ${what} broke off`)));
    });
    return this.deadline.race(body, () => message.destroy());
  }
}

/** A redirect or realm may go to another host, but never from HTTPS to plain HTTP, and plain HTTP only on loopback. */
function followable(next: URL, from: URL, registry: string): URL {
  if (next.protocol !== "https:" && next.protocol !== "http:")
    throw new RegistryError(`${registry}: sends the client to a ${printable(next.protocol.slice(0, 20))} URL`);
  if (next.protocol === "http:" && (from.protocol === "https:" || !isLoopback(next.host)))
    throw new RegistryError(`${registry}: sends the client to plain HTTP at ${printable(next.host)}; only a loopback registry is read without TLS`);
  if (next.username || next.password) throw new RegistryError(`${registry}: sends the client to a URL with credentials`);
  return next;
}

function notPublic(ref: PinReference, what: string, how: string): ImageProblem {
  return new ImageProblem(
    "D9",
    `${what} is not public: ${ref.registry} ${how} (or the repository does not exist)`,
    "make the repository public: images are read anonymously (D9), and rigging never asks for a password",
  );
}

/** The scheme (lowercase) and parameters of a WWW-Authenticate challenge (RFC 7235 auth-params). */
export function parseChallenge(header: string): { scheme: string; params: Map<string, string> } | undefined {
  if (header.length > 8192) return undefined;
  const head = /^\s*([A-Za-z][\w!#$%&'*+.^`|~-]*)\s*/.exec(header);
  if (!head) return undefined;
  const params = new Map<string, string>();
  // One parameter per step, from where the last ended; quoted strings with \-escapes.
  const param = /([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,\s*|$)/y;
  param.lastIndex = head[0].length;
  while (param.lastIndex < header.length) {
    const match = param.exec(header);
    if (!match) break;
    params.set(match[1].toLowerCase(), match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : match[3]);
  }
  return { scheme: head[1].toLowerCase(), params };
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

export function parseJson(bytes: Buffer, problem: string): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new RegistryError(problem);
  }
}

/** Drops a body not needed, so that its connection can serve the next request. */
async function discard(response: Answer): Promise<void> {
  response.message.resume();
}

/** What went wrong on the wire, in words. */
function transportProblem(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: { message?: string }[] };
  if (e?.code?.startsWith("HPE_")) return "its answer is not HTTP";
  if (e?.code === "ECONNRESET") return "closed the connection";
  // A dial to every address of a name fails as one AggregateError, without a message of its own.
  const message = e?.message || e?.errors?.map((x) => x.message).join("; ") || String(error);
  return printable(message.slice(0, 300));
}
