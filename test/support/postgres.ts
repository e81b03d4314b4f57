// Real PostgreSQL servers for the preflight tests, on free loopback ports:
// - Debian's PostgreSQL 15 (below the floor of 16), a throwaway cluster in
//   a temporary directory with trust auth; as root it runs as the postgres
//   user, as PostgreSQL requires. `npm run test:deps` installs the
//   package (scripts/test-deps.mjs);
// - PGlite, PostgreSQL 17 compiled to WebAssembly, from npm, served over TCP
//   by its socket server, in the test process itself.
// Both start without blocking the test's event loop: a worker that stops
// answering its runner for long on a busy machine is taken for a hung one.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export interface TestPostgres {
  port: number;
  /** A connection URL for `user` to `database` on the test server. */
  url(user: string, database: string, password?: string): string;
  stop(): Promise<void>;
}

/** Debian's PostgreSQL 15: the server binaries of the postgresql-15 package. */
export const POSTGRES_15_BIN = "/usr/lib/postgresql/15/bin";

function postgresBin(): string {
  if (existsSync(join(POSTGRES_15_BIN, "pg_ctl"))) return POSTGRES_15_BIN;
  throw new Error(`PostgreSQL 15 server binaries not found in ${POSTGRES_15_BIN}: npm run test:deps installs them, or run apt-get install postgresql-15`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  const root = mkdtempSync(join(tmpdir(), "rigging-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const run = async (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]] : [join(bin, command), args];
    try {
      await exec(file, argv, { cwd: root });
    } catch (error) {
      const e = error as { code?: number; stderr?: string; stdout?: string };
      throw new Error(`${command} exited ${e.code}: ${e.stderr || e.stdout}`);
    }
  };
  if (asRoot) {
    const uid = Number((await exec("id", ["-u", "postgres"])).stdout);
    const gid = Number((await exec("id", ["-g", "postgres"])).stdout);
    chownSync(root, uid, gid);
  }
  await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  await run("pg_ctl", ["-D", data, "-l", join(root, "log"), "-w", "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off`, "start"]);
  return {
    port,
    url: (user, database, password) =>
      `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ""}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    async stop() {
      try {
        await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

export interface TestPglite {
  port: number;
  /** A connection URL to the one database PGlite serves, as its superuser. */
  url(password?: string): string;
  stop(): Promise<void>;
}

/** PostgreSQL 17 (PGlite) on a free loopback port, in this process. */
export async function startPglite(): Promise<TestPglite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    port,
    url: (password) => `postgres://postgres${password ? `:${encodeURIComponent(password)}` : ""}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
