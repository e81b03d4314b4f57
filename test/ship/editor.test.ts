// An editor's view: the yaml-language-server (from npm) started over stdio
// as editors start it, opening what `rigging init` prints, with the schema
// `rigging schema` prints saved where init's modeline points. One broken
// key must come back as a diagnostic on its line; the file as init prints
// it must come back clean.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ROOT, runInProcess, tempDir } from "../support/cli.ts";

interface Diagnostic {
  range: { start: { line: number } };
  message: string;
  severity: number;
  source?: string;
}

/** A minimal LSP client: JSON-RPC with Content-Length framing. */
class LanguageClient {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private pending = new Map<number, (result: unknown) => void>();
  private diagnostics = new Map<string, (d: Diagnostic[]) => void>();
  readonly server: ChildProcessWithoutNullStreams;

  constructor() {
    const entry = createRequire(import.meta.url).resolve("yaml-language-server/bin/yaml-language-server");
    this.server = spawn(process.execPath, [entry, "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    this.server.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.send({ id, method, params });
    return new Promise((resolve) => this.pending.set(id, resolve));
  }

  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  /** The first diagnostics published for `uri`. */
  diagnosticsFor(uri: string): Promise<Diagnostic[]> {
    return new Promise((resolve) => this.diagnostics.set(uri, resolve));
  }

  private send(message: object): void {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
    this.server.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString());
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.handle(message);
    }
  }

  private handle(message: { id?: number; method?: string; params?: any; result?: unknown }): void {
    if (message.method === "workspace/configuration") {
      // The server asks for its settings: validation on, no schema store (no network).
      this.send({ id: message.id, result: message.params.items.map(() => ({ validate: true, schemaStore: { enable: false } })) });
    } else if (message.method !== undefined && message.id !== undefined) {
      this.send({ id: message.id, result: null }); // registrations and the like
    } else if (message.method === "textDocument/publishDiagnostics") {
      const resolve = this.diagnostics.get(message.params.uri);
      this.diagnostics.delete(message.params.uri);
      resolve?.(message.params.diagnostics);
    } else if (message.id !== undefined) {
      this.pending.get(message.id)?.(message.result);
      this.pending.delete(message.id);
    }
  }
}

let work: string;
let client: LanguageClient;

beforeAll(async () => {
  work = tempDir();
  mkdirSync(join(work, "values"));
  writeFileSync(join(work, "values", "rigging.schema.json"), runInProcess(["schema"]).out);
  client = new LanguageClient();
  await client.request("initialize", { processId: process.pid, rootUri: pathToFileURL(work).href, capabilities: { workspace: { configuration: true } } });
  client.notify("initialized", {});
  client.notify("workspace/didChangeConfiguration", { settings: { yaml: { validate: true, schemaStore: { enable: false } } } });
});

afterAll(() => {
  client?.server.kill();
  rmSync(work, { recursive: true, force: true });
});

function open(name: string, text: string, path = join(work, "values", name)): Promise<Diagnostic[]> {
  writeFileSync(path, text);
  const uri = pathToFileURL(path).href;
  const diagnostics = client.diagnosticsFor(uri);
  client.notify("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text } });
  return diagnostics;
}

describe("yaml-language-server on rigging init's output", () => {
  it("reports one broken key on its line, naming the key, from rigging's schema", async () => {
    const text = runInProcess(["init", "CompassRunner"]).out;
    const line = text.split("\n").findIndex((l) => l.startsWith("tokenExpirationSeconds:"));
    expect(line).toBeGreaterThan(0);
    const broken = text.replace(/^tokenExpirationSeconds:/m, "tokenExpirationSecond:");
    const diagnostics = await open("broken.yaml", broken);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].range.start.line).toBe(line);
    expect(diagnostics[0].message).toMatch(/tokenExpirationSecond\b.*not allowed/);
    expect(diagnostics[0].severity).toBe(1); // an error
    expect(diagnostics[0].source).toMatch(/^yaml-schema/);
  });

  it("reads the modeline on line 1 of init's output, above its KRM header: a typo of the header is diagnosed too", async () => {
    const text = runInProcess(["init", "CompassRunner"]).out;
    const lines = text.split("\n");
    expect(lines[0]).toBe("# yaml-language-server: $schema=rigging.schema.json");
    const at = lines.findIndex((l) => l.startsWith("apiVersion: rigging.dev/v1alpha1"));
    expect(at).toBeGreaterThan(0);
    const diagnostics = await open("typo-header.yaml", text.replace("apiVersion: rigging.dev/v1alpha1", "apiVersion: rigging.dev/v1alpah1"));
    expect(diagnostics.map((d) => d.range.start.line)).toEqual([at]);
    expect(diagnostics[0].message).toMatch(/rigging\.dev\/v1alpha1/);
    const metadataTypo = await open("typo-metadata.yaml", text.replace(/^ {2}name: compass-runner$/m, "  name: 7"));
    expect(metadataTypo).toHaveLength(1);
    expect(metadataTypo[0].message).toMatch(/string/i);
  });

  it.each(["CompassRunner", "CompassServer", "Compass", "RootpilotRunner"])("reports nothing on init %s as printed", async (kind) => {
    const diagnostics = await open(`${kind}.yaml`, runInProcess(["init", kind]).out);
    expect(diagnostics).toEqual([]);
  });

  it("applies the schema the kind names: a Server key in a Runner file is reported", async () => {
    const text = `${runInProcess(["init", "RootpilotRunner"]).out}publicHost: compass.example.com\n`;
    const diagnostics = await open("wrong-kind.yaml", text);
    expect(diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/publicHost\b.*not allowed/)]);
  });

  it("accepts the upstream values.example.json, which has no kind, as render does (a CompassRunner file)", async () => {
    const upstream = JSON.parse(readFileSync(join(ROOT, "values.example.json"), "utf8"));
    const text = `# yaml-language-server: $schema=rigging.schema.json\n${stringify(upstream)}`;
    expect(await open("upstream.yaml", text)).toEqual([]);
    const typo = await open("upstream-typo.yaml", text.replace(/^guestCpus:/m, "guestCpu:"));
    expect(typo.map((d) => d.message)).toContainEqual(expect.stringMatching(/guestCpu\b.*not allowed/));
  });

  it("reads the modeline init -o writes two directories below the schema: clean as written, a broken key on its line", async () => {
    writeFileSync(join(work, "rigging.schema.json"), runInProcess(["schema"]).out);
    const file = join(work, "clusters", "prod", "east.yaml");
    const r = runInProcess(["init", "RootpilotRunner", "-o", file, "--schema", join(work, "rigging.schema.json")]);
    expect(r.code, r.err).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text.split("\n")[0]).toBe("# yaml-language-server: $schema=../../rigging.schema.json");
    expect(await open("", text, file)).toEqual([]);
    const line = text.split("\n").findIndex((l) => l.startsWith("replicas:"));
    const broken = await open("", text.replace(/^replicas: .*$/m, "replicas: two"), join(work, "clusters", "prod", "broken.yaml"));
    expect(broken.map((d) => d.range.start.line)).toEqual([line]);
  });
});
