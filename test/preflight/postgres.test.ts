// CS-12 against real PostgreSQL servers on both sides of the floor: Debian's
// PostgreSQL 15 must fail it and PGlite's PostgreSQL 17 must pass it.
// `rigging preflight postgres` reads the version and the database owner's
// attributes, and what it prints as the fix, run by a superuser, makes the
// owner check pass.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgePostgres, type PostgresFacts } from "../../src/preflight/postgres.ts";
import { tempFile } from "../support/cli.ts";
import { startPglite, startPostgres, type TestPglite, type TestPostgres } from "../support/postgres.ts";
import { runAsync, runCliAsync } from "../support/run-async.ts";

let server: TestPostgres;
let pglite: TestPglite;

async function sql(statements: string[], user = "postgres", database = "postgres"): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: server.url(user, database) });
  await client.connect();
  try {
    const rows: unknown[] = [];
    for (const statement of statements) rows.push(...(await client.query(statement)).rows);
    return rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  [server, pglite] = await Promise.all([startPostgres(), startPglite()]);
  await sql([
    "CREATE ROLE compass_owner LOGIN CREATEROLE BYPASSRLS",
    "CREATE ROLE compass_half LOGIN CREATEROLE",
    "CREATE ROLE compass_weak LOGIN",
    'CREATE ROLE "Compass Owner" LOGIN',
    "CREATE ROLE compass_app LOGIN",
    "CREATE DATABASE compass_ok OWNER compass_owner",
    "CREATE DATABASE compass_half OWNER compass_half",
    "CREATE DATABASE compass_weak OWNER compass_weak",
    'CREATE DATABASE "compass quoted" OWNER "Compass Owner"',
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([server?.stop(), pglite?.stop()]);
});

// In this process (the sources), save where a test proves the built command as a process.
const preflight = (url: string, ...args: string[]) => runAsync(["preflight", "postgres", ...args], { COMPASS_DATABASE_DSN: url });

describe("rigging preflight postgres on both sides of the floor (CS-12, D3)", () => {
  it("fails Debian's PostgreSQL 15: older than 16", async () => {
    expect(((await sql(["SHOW server_version_num"])) as { server_version_num: string }[])[0].server_version_num).toMatch(/^15\d{4}$/);
    const r = await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: server.url("compass_owner", "compass_ok") });
    expect(r.out).toMatch(/^FAIL CS-12 server version: PostgreSQL 15\.\S* .*is older than 16 \(fix: upgrade the server to PostgreSQL 16 or later \(D3\)/m);
    expect(r.out).toContain("ok   CS-12 database owner: database compass_ok is owned by compass_owner, a role with CREATEROLE and BYPASSRLS\n");
    expect(r.code, r.err).toBe(1);
  });

  it("passes PostgreSQL 17 (PGlite) with a superuser owner, exit 0", async () => {
    const r = await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: pglite.url("pglite-pw") });
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^ok {3}CS-12 server version: PostgreSQL 17\.\S* is 16 or later$/m);
    expect(r.out).toMatch(/^ok {3}CS-12 database owner: database postgres is owned by postgres, a superuser$/m);
    expect(r.code).toBe(0);
    const json = await runCliAsync(["preflight", "postgres", "--format", "json"], { COMPASS_DATABASE_DSN: pglite.url() });
    expect(JSON.parse(json.out)).toEqual([
      { id: "CS-12", check: "server version", outcome: "pass", message: expect.stringMatching(/^PostgreSQL 17\./) },
      { id: "CS-12", check: "database owner", outcome: "pass", message: "database postgres is owned by postgres, a superuser" },
    ]);
  });

  it("passes an owner with CREATEROLE and BYPASSRLS, and a superuser owner", async () => {
    expect((await preflight(server.url("compass_owner", "compass_ok"))).out).toContain(
      "ok   CS-12 database owner: database compass_ok is owned by compass_owner, a role with CREATEROLE and BYPASSRLS\n",
    );
    expect((await preflight(server.url("postgres", "postgres"))).out).toContain(
      "ok   CS-12 database owner: database postgres is owned by postgres, a superuser\n",
    );
  });

  it("fails an owner without them, naming what is missing and the statement that grants it", async () => {
    const half = await preflight(server.url("compass_half", "compass_half"));
    expect(half.code).toBe(1);
    expect(half.out).toContain(
      "FAIL CS-12 database owner: database compass_half is owned by compass_half, which is not a superuser and lacks BYPASSRLS (fix: run as a superuser: ALTER ROLE compass_half BYPASSRLS; or make a superuser the owner of compass_half)",
    );
    const weak = await preflight(server.url("compass_weak", "compass_weak"));
    expect(weak.code).toBe(1);
    expect(weak.out).toContain(
      "lacks CREATEROLE and BYPASSRLS (fix: run as a superuser: ALTER ROLE compass_weak CREATEROLE BYPASSRLS; or make a superuser the owner of compass_weak)",
    );
  });

  it("prints a fix that, run by a superuser, makes the owner check pass", async () => {
    const url = server.url("Compass Owner", "compass quoted");
    const before = await preflight(url, "--format", "json");
    const failed = (JSON.parse(before.out) as { check: string; outcome: string; fix?: string }[]).find((r) => r.check === "database owner")!;
    expect(failed.outcome).toBe("fail");
    const statement = /ALTER ROLE .*;/.exec(failed.fix!)![0];
    expect(statement).toBe('ALTER ROLE "Compass Owner" CREATEROLE BYPASSRLS;');
    await sql([statement]);
    const after = JSON.parse((await preflight(url, "--format", "json")).out) as { check: string; outcome: string }[];
    expect(after.find((r) => r.check === "database owner")!.outcome).toBe("pass");
  });

  it("warns when the URL connects as another role than the owner", async () => {
    const r = await preflight(server.url("compass_app", "compass_ok"));
    expect(r.out).toContain(
      "warn CS-12 connecting role: the URL connects as compass_app, not as the owner compass_owner: the Server runs its migrations as compass_app",
    );
  });

  it("reads the URL from another variable or from a file, never from the command line", async () => {
    const url = server.url("compass_owner", "compass_ok");
    const viaEnv = await runAsync(["preflight", "postgres", "--url-env", "MY_DB"], { MY_DB: url, COMPASS_DATABASE_DSN: "" });
    expect(viaEnv.out).toContain("database compass_ok is owned by compass_owner");
    const viaFile = await runAsync(["preflight", "postgres", "--url-file", tempFile(`${url}\n`, "db-url")], { COMPASS_DATABASE_DSN: "" });
    expect(viaFile.out).toBe(viaEnv.out);
  });

  it("reports an unknown database or an unreachable server as exit 2, without the password", async () => {
    const missing = await preflight(server.url("compass_owner", "nope", "s3cret-pw"));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error cannot check the database: database "nope" does not exist\n$/);
    const closed = await preflight(`postgres://compass_owner:s3cret-pw@127.0.0.1:1/compass_ok`);
    expect(closed.code).toBe(2);
    expect(closed.err).toContain("cannot check the database: connect ECONNREFUSED 127.0.0.1:1");
    for (const r of [missing, closed]) expect(r.out + r.err).not.toContain("s3cret-pw");
  });

  it("with --format json, an unknown database or an unreachable server is JSON on stdout too", async () => {
    const missing = await preflight(server.url("compass_owner", "nope", "s3cret-pw"), "--format", "json");
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out)).toEqual([
      { id: "D3", check: "connection", outcome: "error", message: 'cannot check the database: database "nope" does not exist' },
    ]);
    const closed = await runCliAsync(["preflight", "postgres", "--format", "json"], {
      COMPASS_DATABASE_DSN: "postgres://compass_owner:s3cret-pw@127.0.0.1:1/compass_ok",
    });
    expect(closed.code).toBe(2);
    expect(JSON.parse(closed.out)).toEqual([
      { id: "D3", check: "connection", outcome: "error", message: expect.stringContaining("cannot check the database: connect ECONNREFUSED 127.0.0.1:1") },
    ]);
    const unset = await runAsync(["preflight", "postgres", "--format", "json"], { COMPASS_DATABASE_DSN: "" });
    expect(JSON.parse(unset.out)).toEqual([
      { id: "D3", check: "input", outcome: "error", message: expect.stringMatching(/^\$COMPASS_DATABASE_DSN is not set/) },
    ]);
    for (const r of [missing, closed]) expect(r.out + r.err).not.toContain("s3cret-pw");
  });
});

describe("rigging preflight's usage errors", () => {
  it.each([
    [[], { COMPASS_DATABASE_DSN: "" }, "$COMPASS_DATABASE_DSN is not set"],
    [["--url-env", "NOPE_UNSET"], {}, "$NOPE_UNSET is not set"],
    [[], { COMPASS_DATABASE_DSN: "mysql://u:pw@h/db" }, "$COMPASS_DATABASE_DSN: holds a mysql:// URL, expected postgres:// or postgresql://"],
    [[], { COMPASS_DATABASE_DSN: "not a url pw" }, "$COMPASS_DATABASE_DSN: does not hold a URL such as postgres://"],
    [[], { COMPASS_DATABASE_DSN: "postgres:/compass:pw@db.example/compass" }, "$COMPASS_DATABASE_DSN: the URL names no host"],
    [[], { COMPASS_DATABASE_DSN: "postgres:///compass?password=pw" }, "$COMPASS_DATABASE_DSN: the URL names no host"],
    [["--url-env", "A", "--url-file", "f"], {}, "give --url-env or --url-file, not both"],
    [["--format", "xml"], {}, "--format xml: expected text or json"],
    [["--timeout", "0"], {}, "--timeout 0: expected seconds, more than 0 and at most 3600"],
    [["--timeout", "soon"], {}, "--timeout soon: expected seconds"],
  ])("%j %j: %s", async (args, env, message) => {
    const r = await runAsync(["preflight", "postgres", ...args], env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
    expect(r.err).not.toContain("pw");
  });

  it.each([
    [["postgres", "--format", "json", "--url-fil", "x"], "D3", "unknown option --url-fil for rigging preflight postgres (did you mean --url-file?)"],
    [["postgres", "--format=json", "--url-env", "A", "--url-file", "f"], "D3", "give --url-env or --url-file, not both"],
    [["tls", "--format", "json"], "D6", ""],
    [["nats", "--format", "json", "--timeout", "0", "nats://127.0.0.1:4222"], "D5", "--timeout 0: expected seconds"],
  ])("%j: a usage error is JSON on stdout too, when JSON is asked for", async (args, decision, message) => {
    const r = await runAsync(["preflight", ...args]);
    expect(r.code).toBe(2);
    const [entry, ...more] = JSON.parse(r.out) as { id: string; check: string; outcome: string; message: string }[];
    expect(more).toEqual([]);
    expect(entry).toEqual({ id: decision, check: "usage", outcome: "error", message: expect.stringContaining(message) });
    expect(r.err).toBe(`error ${entry.message}\n`);
  });

  it("needs the thing to check, and suggests the nearest", async () => {
    const none = await runAsync(["preflight"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("rigging preflight postgres|tls|nats");
    const typo = await runAsync(["preflight", "postgre"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain("(did you mean postgres?)");
  });

  it("reads at most 64 KiB of --url-file: /dev/zero is refused at once", async () => {
    const r = await runAsync(["preflight", "postgres", "--url-file", "/dev/zero"], { COMPASS_DATABASE_DSN: "" });
    expect(r.code).toBe(2);
    expect(r.err).toBe("error /dev/zero: holds more than 64 KiB; a secret file holds one short value\n");
  });
});

describe("judging the facts", () => {
  const facts = (versionNum: number, owner: Partial<PostgresFacts["owner"]> = {}): PostgresFacts => ({
    versionNum,
    version: `${Math.floor(versionNum / 10000)}.${versionNum % 100}`,
    database: "compass",
    user: "compass",
    owner: { name: "compass", superuser: false, createRole: true, bypassRls: true, ...owner },
  });

  it("puts the floor at 16.0", () => {
    expect(judgePostgres(facts(160000))[0].outcome).toBe("pass");
    expect(judgePostgres(facts(170002))[0].outcome).toBe("pass");
    expect(judgePostgres(facts(159999))[0].outcome).toBe("fail");
  });

  it("takes a superuser owner whatever its other attributes", () => {
    expect(judgePostgres(facts(160004, { superuser: true, createRole: false, bypassRls: false }))[1].outcome).toBe("pass");
  });
});
