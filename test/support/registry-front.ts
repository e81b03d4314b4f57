// A front before the test registry that lets a test act while pin waits:
// each request first goes to `before`, which may edit a file, delete a tag
// or answer itself, and is then passed on to the registry unchanged.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface RegistryFront {
  host: string;
  /** The paths asked for, in order (with their query). */
  asked: string[];
  stop(): Promise<void>;
}

/** `before` answers the request itself by returning true. */
export type BeforeHook = (url: URL, req: IncomingMessage, res: ServerResponse) => Promise<boolean | undefined> | boolean | undefined;

const PASSED = ["content-type", "docker-content-digest", "location", "link"];

export function startFront(upstream: string, before: BeforeHook = () => false): Promise<RegistryFront> {
  const asked: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://front");
    asked.push(url.pathname + url.search);
    try {
      if (await before(url, req, res)) return;
      const answer = await fetch(`http://${upstream}${url.pathname}${url.search}`, {
        method: req.method,
        headers: { accept: req.headers.accept ?? "*/*" },
        redirect: "manual",
      });
      const headers: Record<string, string> = {};
      for (const name of PASSED) {
        const value = answer.headers.get(name);
        if (value) headers[name] = value;
      }
      res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const host = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
      resolve({
        host,
        asked,
        stop: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}
