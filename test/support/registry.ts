// A real OCI registry for the pin tests: Debian's docker-registry on
// 127.0.0.1 (npm run test:deps installs it: scripts/test-deps.mjs), filled by the
// test through the distribution API itself (blob uploads, manifests, image
// indexes). Beside it, a small front that puts the anonymous bearer-token
// challenge public registries use before the registry, and refuses a
// token's access to private repositories; and registries that misbehave.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { tempDir } from "./cli.ts";

export const OCI_INDEX = "application/vnd.oci.image.index.v1+json";
export const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

export interface TestRegistry {
  /** host:port, as an image reference names it. */
  host: string;
  stop(): Promise<void>;
}

export function registryBinary(): string {
  for (const dir of (process.env.PATH ?? "").split(":").concat(["/usr/bin"])) {
    if (dir && existsSync(join(dir, "docker-registry"))) return join(dir, "docker-registry");
  }
  throw new Error("docker-registry not found: npm run test:deps installs it, or run apt-get install docker-registry");
}

export function startRegistry(): Promise<TestRegistry> {
  const dir = tempDir();
  const config = join(dir, "config.yml");
  writeFileSync(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: info",
      "  accesslog:",
      "    disabled: true",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${join(dir, "data")}`,
      "http:",
      "  addr: 127.0.0.1:0",
      `  secret: ${randomBytes(16).toString("hex")}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(registryBinary(), ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let log = "";
    const fail = (why: string) => reject(new Error(`docker-registry ${why}: ${log}`));
    child.on("error", (error) => fail(error.message));
    child.on("exit", (code) => fail(`exited ${code}`));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      const listening = /listening on (127\.0\.0\.1:\d+)/.exec(log);
      if (!listening) return;
      child.removeAllListeners("exit");
      child.stderr!.removeAllListeners("data").resume();
      resolve({
        host: listening[1],
        stop: () =>
          new Promise<void>((done) => {
            child.once("exit", () => (rmSync(dir, { recursive: true, force: true }), done()));
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

export function sha256(bytes: Buffer | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

/** Uploads a blob (POST, then a monolithic PUT with its digest). */
export async function pushBlob(host: string, repo: string, bytes: Buffer): Promise<string> {
  const digest = sha256(bytes);
  const start = await expectStatus(await fetch(`http://${host}/v2/${repo}/blobs/uploads/`, { method: "POST" }), 202, `start upload to ${repo}`);
  const location = new URL(start.headers.get("location")!, `http://${host}`);
  location.searchParams.set("digest", digest);
  await expectStatus(await fetch(location, { method: "PUT", body: bytes, headers: { "content-type": "application/octet-stream" } }), 201, `upload to ${repo}`);
  return digest;
}

/** Puts a manifest under a tag or its digest; returns its digest, computed here. */
export async function pushManifest(
  host: string,
  repo: string,
  reference: string | undefined,
  manifest: unknown,
  mediaType: string,
): Promise<{ digest: string; size: number }> {
  const body = Buffer.from(JSON.stringify(manifest));
  const digest = sha256(body);
  await expectStatus(
    await fetch(`http://${host}/v2/${repo}/manifests/${reference ?? digest}`, { method: "PUT", body, headers: { "content-type": mediaType } }),
    201,
    `put manifest ${repo}:${reference}`,
  );
  return { digest, size: body.length };
}

/** A one-layer image for `platform` (os/arch); tagged when `tag` is given. */
export async function pushImage(host: string, repo: string, platform: string, tag?: string): Promise<{ digest: string; size: number }> {
  const [os, architecture] = platform.split("/");
  const layer = randomBytes(64);
  const layerDigest = await pushBlob(host, repo, layer);
  const config = Buffer.from(JSON.stringify({ architecture, os, rootfs: { type: "layers", diff_ids: [layerDigest] }, config: {} }));
  const configDigest = await pushBlob(host, repo, config);
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.length },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: layerDigest, size: layer.length }],
  };
  return pushManifest(host, repo, tag, manifest, OCI_MANIFEST);
}

/** An image index with one image per platform (and, like buildx, an attestation entry), under `tag`. */
export async function pushIndex(host: string, repo: string, tag: string, platforms: string[]): Promise<string> {
  const manifests = [];
  for (const platform of platforms) {
    const image = await pushImage(host, repo, platform);
    const [os, architecture] = platform.split("/");
    manifests.push({ mediaType: OCI_MANIFEST, digest: image.digest, size: image.size, platform: { os, architecture } });
  }
  const attestation = await pushImage(host, repo, "unknown/unknown");
  manifests.push({
    mediaType: OCI_MANIFEST,
    digest: attestation.digest,
    size: attestation.size,
    platform: { os: "unknown", architecture: "unknown" },
    annotations: { "vnd.docker.reference.type": "attestation-manifest" },
  });
  return (await pushManifest(host, repo, tag, { schemaVersion: 2, mediaType: OCI_INDEX, manifests }, OCI_INDEX)).digest;
}

export interface TestFront {
  host: string;
  /** Token requests it answered, to see the challenge was followed. */
  tokens(): number;
  stop(): Promise<void>;
}

/**
 * The anonymous bearer-token flow of a public registry, before `upstream`:
 * a request without a token gets 401 and a Bearer challenge; the realm
 * gives anyone a token; that token opens public repositories only. Repos in
 * `basic` demand Basic credentials instead.
 */
export function startBearerFront(upstream: string, options: { private: string[]; basic?: string[] }): Promise<TestFront> {
  let tokens = 0;
  let self = "";
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", `http://${self}`);
    if (url.pathname === "/token") {
      tokens++;
      const scope = url.searchParams.get("scope") ?? "";
      const repo = /^repository:([^:]+):pull$/.exec(scope)?.[1] ?? "";
      // Like a public registry: a token for anyone, with access only where anyone may read.
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ token: options.private.includes(repo) ? "anonymous-no-access" : `anonymous-${repo}` }));
      return;
    }
    const repo = /^\/v2\/(.+?)\/(manifests|blobs)\//.exec(url.pathname)?.[1] ?? "";
    if (options.basic?.includes(repo)) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="test registry"', "content-type": "application/json" }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    if (req.headers.authorization !== `Bearer anonymous-${repo}`) {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer realm="http://${self}/token",service="test-registry",scope="repository:${repo}:pull"`,
          "content-type": "application/json",
        })
        .end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
      return;
    }
    const answer = await fetch(`http://${upstream}${url.pathname}`, { headers: { accept: req.headers.accept ?? "*/*" }, redirect: "manual" });
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "docker-content-digest", "location"]) {
      const value = answer.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
  });
  return listen(server, (host) => (self = host)).then((host) => ({ host, tokens: () => tokens, stop: () => close(server) }));
}

export type HttpMisbehaviour = "redirect-loop" | "huge" | "not-json";

/** A registry that answers every request in one wrong way. */
export function startBadRegistry(behaviour: HttpMisbehaviour): Promise<{ host: string; stop(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (behaviour === "redirect-loop") res.writeHead(302, { location: req.url ?? "/" }).end();
    else if (behaviour === "not-json") res.writeHead(200, { "content-type": OCI_INDEX }).end("<html>\u001b[2J this is no manifest</html>");
    else {
      // A manifest that never ends: chunks until the client hangs up (at most 64 MiB).
      res.writeHead(200, { "content-type": OCI_INDEX });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (!res.destroyed && sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => (sent = Infinity));
      pump();
    }
  });
  return listen(server).then((host) => ({ host, stop: () => close(server) }));
}

function listen(server: Server, onHost?: (host: string) => void): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const host = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      onHost?.(host);
      resolve(host);
    });
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((done) => server.close(() => done()));
}
