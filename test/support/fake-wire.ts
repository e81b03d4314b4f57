// Scripted servers on 127.0.0.1 that speak just enough of a wire protocol
// to go wrong on purpose: a NATS that answers CONNECT with a line that is
// no NATS protocol, and a PostgreSQL that answers each client message with
// bytes a test chose (a malformed authentication request, a FATAL quoting
// the password it was sent). And a run of the built command that a hang
// cannot hold: the child is killed after a generous bound.
import { spawn } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { CLI, ROOT, type Result } from "./cli.ts";

export interface FakeServer {
  port: number;
  /** What each connection was sent, in order. */
  received(): string[];
  stop(): Promise<void>;
}

function serve(onConnection: (socket: Socket, log: string[]) => void): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const log: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    onConnection(socket, log);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : 0,
        received: () => [...log],
        stop: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A NATS server that says INFO (auth required), refuses a CONNECT without a
 * password as nats-server does, and answers one with a password by `answer`
 * of the CONNECT line (which holds the password, as a server has it).
 */
export function startFakeNats(answer: (connect: string) => string): Promise<FakeServer> {
  return serve((socket, log) => {
    socket.write('INFO {"server_id":"FAKE","version":"2.10.0","proto":1,"max_payload":1048576,"auth_required":true}\r\n');
    let pending = "";
    socket.setEncoding("latin1").on("data", (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf("\r\n"); end >= 0; end = pending.indexOf("\r\n")) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        log.push(line);
        if (!line.startsWith("CONNECT ")) continue;
        socket.write(line.includes('"pass"') ? answer(line) : "-ERR 'Authorization Violation'\r\n");
      }
    });
  });
}

/** A PostgreSQL server that answers the client's n-th chunk with `script(chunk, n)`, and then holds. */
export function startFakePostgres(script: (chunk: Buffer, index: number) => Buffer | undefined): Promise<FakeServer> {
  return serve((socket, log) => {
    let index = 0;
    socket.on("data", (chunk: Buffer) => {
      log.push(chunk.toString("latin1"));
      const reply = script(chunk, index++);
      if (reply) socket.write(reply);
    });
  });
}

/** One backend message: its type byte, its length, its body. */
export function pgMessage(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
}

/** An AuthenticationRequest ('R') with method `code` and what follows it. */
export function authRequest(code: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  return pgMessage("R", Buffer.concat([int32(code), rest]));
}

/** A FATAL ErrorResponse saying `message`. */
export function fatal(message: string): Buffer {
  const field = (code: string, value: string) => Buffer.concat([Buffer.from(code, "latin1"), Buffer.from(value, "utf8"), Buffer.from([0])]);
  return pgMessage("E", Buffer.concat([field("S", "FATAL"), field("C", "28P01"), field("M", message), Buffer.from([0])]));
}

/** The password a PasswordMessage ('p') carries, or undefined for another message. */
export function passwordOf(chunk: Buffer): string | undefined {
  return chunk[0] === 0x70 ? chunk.subarray(5, chunk.indexOf(0, 5)).toString("utf8") : undefined;
}

/**
 * Runs the built command; a child still running after `killAfterMs` (far
 * past any deadline the test gives it) is killed, and its code is -1.
 */
export function runCliBounded(args: string[], env: Record<string, string> = {}, killAfterMs = 30_000): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => (clearTimeout(timer), resolve({ code: code ?? -1, out, err })));
  });
}
