// The bundled NATS's rendered nats.conf, run by a real nats-server (Debian's
// package; .ci/run installs it) on 127.0.0.1: the configuration loads,
// JetStream is on, a client needs the password, and the user in the
// documented nats://user:password@host URL can use JetStream.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigMap } from "kubernetes-types/core/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { render } from "../../support/values.ts";

const PASSWORD = "5f0c9a8e7d6b4c3a2b1e0f9d8c7b6a5e";

function natsServerBinary(): string {
  const found = spawnSync("sh", ["-c", "command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
  if (!found) throw new Error("nats-server not found: install it (Debian: apt-get install nats-server); .ci/run does");
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A client speaking the NATS text protocol: lines in, lines out. */
class Client {
  private buffer = "";
  private lines: string[] = [];
  private waiters: ((line: string) => void)[] = [];
  private constructor(private socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf("\r\n")) >= 0) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const waiter = this.waiters.shift();
        if (waiter) waiter(line);
        else this.lines.push(line);
      }
    });
  }
  static open(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => resolve(new Client(socket)));
      socket.once("error", reject);
    });
  }
  /** The next line the server sends, answering its keep-alive PINGs on the way. */
  async line(): Promise<string> {
    for (;;) {
      const queued = this.lines.shift();
      const line = queued ?? (await new Promise<string>((resolve) => this.waiters.push(resolve)));
      if (line !== "PING") return line;
      this.send("PONG\r\n");
    }
  }
  send(text: string): void {
    this.socket.write(text);
  }
  close(): void {
    this.socket.destroy();
  }
}

describe("the bundled NATS configuration, run by nats-server", () => {
  const objects = render(parse(readFileSync("examples/compass-server.yaml", "utf8")));
  const conf = (objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-nats-config")) as ConfigMap & K8sObject).data!["nats.conf"];
  const dir = mkdtempSync(join(tmpdir(), "rigging-nats-"));
  let server: ChildProcess | undefined;
  let port = 0;

  beforeAll(async () => {
    // The pod's store path is the emptyDir's; here it is the test's own
    // directory (nats-server refuses -sd beside a configured store_dir).
    expect(conf.match(/store_dir: "\/data\/jetstream"/g)).toHaveLength(1);
    writeFileSync(join(dir, "nats.conf"), conf.replace('store_dir: "/data/jetstream"', `store_dir: ${JSON.stringify(join(dir, "store"))}`));
    port = await freePort();
    // The pod's address and port are the cluster's; here they are loopback and a free port.
    server = spawn(natsServerBinary(), ["-c", join(dir, "nats.conf"), "-a", "127.0.0.1", "-p", String(port)], {
      env: { ...process.env, NATS_PASSWORD: PASSWORD },
      stdio: "ignore",
    });
    for (let i = 0; i < 100; i++) {
      const ok = await Client.open(port).then(
        (c) => (c.close(), true),
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("nats-server did not start");
  }, 20_000);

  afterAll(() => {
    server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the configuration loads (nats-server -t)", () => {
    const r = spawnSync(natsServerBinary(), ["-t", "-c", join(dir, "nats.conf")], { env: { ...process.env, NATS_PASSWORD: PASSWORD }, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });

  it("announces JetStream and requires authentication", async () => {
    const client = await Client.open(port);
    const info = JSON.parse((await client.line()).replace(/^INFO /, ""));
    client.close();
    expect(info.jetstream).toBe(true);
    expect(info.auth_required).toBe(true);
  });

  it("refuses a client without the password", async () => {
    const client = await Client.open(port);
    await client.line();
    client.send(`CONNECT ${JSON.stringify({ user: "compass", pass: "wrong", verbose: false, pedantic: false })}\r\nPING\r\n`);
    expect(await client.line()).toMatch(/^-ERR 'Authorization Violation'/);
    client.close();
  });

  it("lets the URL's user in, and that user reaches JetStream", async () => {
    // The shape of the Secret's url key (docs/compass-server.md): the URL's userinfo is the credential.
    const url = new URL(`nats://compass:${PASSWORD}@127.0.0.1:${port}`);
    const client = await Client.open(Number(url.port));
    await client.line();
    client.send(
      `CONNECT ${JSON.stringify({ user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password), verbose: false, pedantic: false })}\r\nPING\r\n`,
    );
    expect(await client.line()).toBe("PONG");
    client.send("SUB _INBOX.rigging 1\r\nPUB $JS.API.INFO _INBOX.rigging 0\r\n\r\n");
    expect(await client.line()).toMatch(/^MSG _INBOX\.rigging 1 \d+$/);
    const reply = JSON.parse(await client.line());
    client.close();
    expect(reply.type).toBe("io.nats.jetstream.api.v1.account_info_response");
    expect(reply.error).toBeUndefined();
  });
});
