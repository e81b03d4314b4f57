// Servers on 127.0.0.1 that misbehave the way broken or hostile peers do:
// they take the connection and then say nothing, say half a message, say
// FATAL and hold the socket open, or answer with bytes that are no protocol
// at all. Each records what it was sent, so a test can see what came in.
import { createServer, type Server, type Socket } from "node:net";

export type Behaviour =
  /** Accepts and never writes. */
  | "silent"
  /** Answers the first bytes with the start of a PostgreSQL message, then nothing. */
  | "half-open"
  /** Answers PostgreSQL's startup with a FATAL ErrorResponse (quoting `echo`) and keeps the socket open. */
  | "fatal-and-hold"
  /** Answers anything with bytes that are no protocol, and holds. */
  | "garbage";

export interface HostileServer {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  stop(): Promise<void>;
}

/** `echo` is put in the FATAL message, as a driver would quote what it was sent. */
export function startHostile(behaviour: Behaviour, echo = ""): Promise<HostileServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    socket.once("data", () => {
      if (behaviour === "half-open") socket.write(Buffer.from([0x52, 0x00, 0x00])); // 'R', then 2 of the 4 length bytes
      if (behaviour === "fatal-and-hold") socket.write(errorResponse(`password authentication failed for user "compass" (sent: ${echo})`));
      if (behaviour === "garbage") socket.write("\u0000\u00ffnot a protocol\r\n\r\n\u001b[31m");
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        port,
        connections: () => accepted,
        stop: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A PostgreSQL ErrorResponse ('E') with severity FATAL and SQLSTATE 28P01. */
function errorResponse(message: string): Buffer {
  const fields = Buffer.concat([field("S", "FATAL"), field("V", "FATAL"), field("C", "28P01"), field("M", message), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write("E", 0, "latin1");
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

function field(code: string, value: string): Buffer {
  return Buffer.concat([Buffer.from(code, "latin1"), Buffer.from(value, "utf8"), Buffer.from([0])]);
}
