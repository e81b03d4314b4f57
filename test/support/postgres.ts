// A real PostgreSQL server for the preflight tests: the machine's own
// binaries (Debian's postgresql package; .ci/run installs it), a throwaway
// cluster in a temporary directory, on a free loopback port, trust auth.
// As root, the server runs as the postgres user, as PostgreSQL requires.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestPostgres {
  port: number;
  /** A connection URL for `user` to `database` on the test server. */
  url(user: string, database: string, password?: string): string;
  stop(): void;
}

/** The directory of the newest initdb and pg_ctl on this machine. */
function postgresBin(): string {
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => existsSync(join(debian, v, "bin", "pg_ctl"))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length > 0) return join(debian, versions[0], "bin");
  const found = spawnSync("sh", ["-c", "command -v pg_ctl"], { encoding: "utf8" }).stdout.trim();
  if (found) return found.replace(/\/pg_ctl$/, "");
  throw new Error("PostgreSQL server binaries not found: install them (Debian: apt-get install postgresql); .ci/run does");
}

function freePort(): number {
  const r = spawnSync(process.execPath, ["-e", "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

export function startPostgres(): TestPostgres {
  const bin = postgresBin();
  const root = mkdtempSync(join(tmpdir(), "rigging-pg-"));
  const data = join(root, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const argv = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]] as const : [join(bin, command), args] as const;
    const r = spawnSync(argv[0], [...argv[1]], { encoding: "utf8", cwd: root });
    if (r.status !== 0) throw new Error(`${command} exited ${r.status}: ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout);
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout);
    chownSync(root, uid, gid);
  }
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = freePort();
  run("pg_ctl", ["-D", data, "-l", join(root, "log"), "-w", "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off`, "start"]);
  return {
    port,
    url: (user, database, password) => `postgres://${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ""}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
