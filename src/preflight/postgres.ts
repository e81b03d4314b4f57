// CS-12 against a live server: the migration database only the server can
// show. Reading the facts is kept apart from judging them.
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { UsageError } from "../core/errors.ts";
import type { CheckResult, Deadline } from "./common.ts";
import { guardAnswers } from "./postgres-wire.ts";

/** PostgreSQL 16.0 as `server_version_num` writes it (D3's floor). */
export const MIN_SERVER_VERSION_NUM = 160000;

export interface PostgresFacts {
  /** `server_version_num`, such as 160004. */
  versionNum: number;
  /** `server_version`, such as "16.4 (Debian 16.4-1)". */
  version: string;
  database: string;
  /** The role the URL connects as: the one the Server runs its migrations as. */
  user: string;
  /** The database owner and the attributes CS-12 asks of it. */
  owner: { name: string; superuser: boolean; createRole: boolean; bypassRls: boolean };
}

/** One query, answered by any PostgreSQL the Server could run on. */
export const FACTS_QUERY = `SELECT current_setting('server_version_num')::int AS version_num,
       current_setting('server_version') AS version,
       current_database() AS database,
       current_user AS "user",
       r.rolname AS owner, r.rolsuper, r.rolcreaterole, r.rolbypassrls
FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
WHERE d.datname = current_database()`;

export function judgePostgres(facts: PostgresFacts): CheckResult[] {
  const { owner } = facts;
  const results: CheckResult[] = [
    facts.versionNum >= MIN_SERVER_VERSION_NUM
      ? { id: "CS-12", check: "server version", outcome: "pass", message: `PostgreSQL ${facts.version} is 16 or later` }
      : {
          id: "CS-12",
          check: "server version",
          outcome: "fail",
          message: `PostgreSQL ${facts.version} is older than 16`,
          fix: "upgrade the server to PostgreSQL 16 or later (D3): the Server's migrations expect it",
        },
  ];
  const missing = owner.superuser ? [] : (["CREATEROLE", "BYPASSRLS"] as const).filter((a) => !(a === "CREATEROLE" ? owner.createRole : owner.bypassRls));
  results.push(
    missing.length === 0
      ? {
          id: "CS-12",
          check: "database owner",
          outcome: "pass",
          message: `database ${facts.database} is owned by ${owner.name}, ${owner.superuser ? "a superuser" : "a role with CREATEROLE and BYPASSRLS"}`,
        }
      : {
          id: "CS-12",
          check: "database owner",
          outcome: "fail",
          message: `database ${facts.database} is owned by ${owner.name}, which is not a superuser and lacks ${missing.join(" and ")}`,
          fix: `run as a superuser: ALTER ROLE ${quoteIdent(owner.name)} ${missing.join(" ")}; or make a superuser the owner of ${facts.database}`,
        },
  );
  if (facts.user !== owner.name && !owner.superuser) {
    results.push({
      id: "CS-12",
      check: "connecting role",
      outcome: "warn",
      message: `the URL connects as ${facts.user}, not as the owner ${owner.name}: the Server runs its migrations as ${facts.user}`,
      fix: `put the owner's credentials in the URL, or make ${facts.user} the owner: ALTER DATABASE ${quoteIdent(facts.database)} OWNER TO ${quoteIdent(facts.user)};`,
    });
  }
  return results;
}

/** A SQL identifier, quoted only when it has to be. */
function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The URL as the driver reads it, refused without a host (it would dial the local socket and echo the password). */
export function checkPostgresUrl(url: string, from: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${from}: does not hold a URL such as postgres://user:password@host:5432/database`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:")
    throw new UsageError(`${from}: holds a ${parsed.protocol}// URL, expected postgres:// or postgresql://`);
  if (!/^postgres(ql)?:\/\//i.test(url) || parsed.hostname === "")
    throw new UsageError(`${from}: the URL names no host: write postgres://user:password@host:5432/database (two slashes, then the host)`);
}

/** The secrets a Postgres URL carries, as written and decoded, with $PGPASSWORD. */
export function postgresSecrets(url: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets: string[] = env.PGPASSWORD ? [env.PGPASSWORD] : [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return secrets;
  }
  if (parsed.password) secrets.push(parsed.password, safeDecode(parsed.password));
  for (const [key, value] of parsed.searchParams) if (key === "password") secrets.push(value);
  for (const pair of parsed.search.slice(1).split("&")) {
    const equals = pair.indexOf("=");
    if (equals > 0 && safeDecode(pair.slice(0, equals)) === "password") secrets.push(pair.slice(equals + 1), safeDecode(pair.slice(equals + 1)));
  }
  return secrets;
}

/** What the driver itself took for secrets: the password it resolved (a password file's among them), a client key. */
function driverSecrets(client: unknown): string[] {
  const c = client as { password?: unknown; connectionParameters?: { password?: unknown; ssl?: { key?: unknown } } };
  return [c.password, c.connectionParameters?.password, c.connectionParameters?.ssl?.key].filter((s): s is string => typeof s === "string" && s !== "");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Reads the facts under `deadline`, destroying sockets on failure so a stuck server cannot hold the run; server answers pass postgres-wire.ts first. */
export async function readPostgresFacts(url: string, deadline: Deadline, secrets: string[] = []): Promise<PostgresFacts> {
  const { default: pg } = await import("pg");
  const sockets: Socket[] = [];
  const client = new pg.Client({
    connectionString: url,
    application_name: "rigging preflight",
    stream: () => {
      const socket = new Socket();
      sockets.push(socket);
      return socket;
    },
  });
  secrets.push(...driverSecrets(client));
  guardConnection(client);
  // A late error (the server going away after the answer) has nothing left to fail.
  client.on("error", () => {});
  const release = () => {
    for (const socket of sockets) socket.destroy();
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  try {
    await deadline.race(client.connect(), release);
    const { rows } = await deadline.race(client.query(FACTS_QUERY), release);
    const row = rows[0];
    if (!row) throw new Error("the server did not describe the current database");
    await deadline.race(client.end(), release);
    return {
      versionNum: Number(row.version_num),
      version: String(row.version),
      database: String(row.database),
      user: String(row.user),
      owner: { name: String(row.owner), superuser: row.rolsuper === true, createRole: row.rolcreaterole === true, bypassRls: row.rolbypassrls === true },
    };
  } finally {
    // A password file is read only when the server asks for a password.
    secrets.push(...driverSecrets(client));
    release();
  }
}

/** Guards the stream the driver parses: the socket, or the TLS stream over it once SSL is negotiated. */
function guardConnection(client: unknown): void {
  const connection = (client as { connection?: { attachListeners?: (stream: Duplex) => void } }).connection;
  const attach = connection?.attachListeners;
  if (!connection || typeof attach !== "function") throw new Error("the PostgreSQL driver no longer has the connection rigging guards");
  connection.attachListeners = (stream: Duplex) => {
    guardAnswers(stream);
    attach.call(connection, stream);
  };
}
