// CS-12 against a real PostgreSQL server: `rigging preflight postgres` reads
// the version and the database owner's attributes, and what it prints as the
// fix, run by a superuser, makes the check pass.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgePostgres, MIN_SERVER_VERSION_NUM, type PostgresFacts } from "../../src/profiles/compass-server/preflight.ts";
import { runCli, tempFile } from "../support/cli.ts";
import { startPostgres, type TestPostgres } from "../support/postgres.ts";

let server: TestPostgres;
let versionNum = 0;

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
  server = startPostgres();
  versionNum = Number(((await sql(["SHOW server_version_num"])) as { server_version_num: string }[])[0].server_version_num);
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

afterAll(() => server?.stop());

const preflight = (url: string, ...args: string[]) => runCli(["preflight", "postgres", ...args], undefined, { COMPASS_DATABASE_DSN: url });
const versionOk = () => versionNum >= MIN_SERVER_VERSION_NUM;

describe("rigging preflight postgres against a live server (CS-12)", () => {
  it("reads the server's version and judges it against 16", () => {
    const r = preflight(server.url("compass_owner", "compass_ok"));
    const version = `${Math.floor(versionNum / 10000)}.`;
    if (versionOk()) expect(r.out).toMatch(new RegExp(`^ok   CS-12 server version: PostgreSQL ${version}\\S* .*is 16 or later$`, "m"));
    else expect(r.out).toMatch(new RegExp(`^FAIL CS-12 server version: PostgreSQL ${version}\\S* .*is older than 16 \\(fix: upgrade`, "m"));
    expect(r.code, r.err).toBe(versionOk() ? 0 : 1);
  });

  it("passes an owner with CREATEROLE and BYPASSRLS, and a superuser owner", () => {
    expect(preflight(server.url("compass_owner", "compass_ok")).out).toContain("ok   CS-12 database owner: database compass_ok is owned by compass_owner, a role with CREATEROLE and BYPASSRLS\n");
    expect(preflight(server.url("postgres", "postgres")).out).toContain("ok   CS-12 database owner: database postgres is owned by postgres, a superuser\n");
  });

  it("fails an owner without them, naming what is missing and the statement that grants it", () => {
    const half = preflight(server.url("compass_half", "compass_half"));
    expect(half.code).toBe(1);
    expect(half.out).toContain("FAIL CS-12 database owner: database compass_half is owned by compass_half, which is not a superuser and lacks BYPASSRLS (fix: run as a superuser: ALTER ROLE compass_half BYPASSRLS; or make a superuser the owner of compass_half)");
    const weak = preflight(server.url("compass_weak", "compass_weak"));
    expect(weak.code).toBe(1);
    expect(weak.out).toContain("lacks CREATEROLE and BYPASSRLS (fix: run as a superuser: ALTER ROLE compass_weak CREATEROLE BYPASSRLS; or make a superuser the owner of compass_weak)");
  });

  it("prints a fix that, run by a superuser, makes the owner check pass", async () => {
    const url = server.url("Compass Owner", "compass quoted");
    const before = preflight(url, "--format", "json");
    const failed = (JSON.parse(before.out) as { check: string; outcome: string; fix?: string }[]).find((r) => r.check === "database owner")!;
    expect(failed.outcome).toBe("fail");
    const statement = /ALTER ROLE .*;/.exec(failed.fix!)![0];
    expect(statement).toBe('ALTER ROLE "Compass Owner" CREATEROLE BYPASSRLS;');
    await sql([statement]);
    const after = JSON.parse(preflight(url, "--format", "json").out) as { check: string; outcome: string }[];
    expect(after.find((r) => r.check === "database owner")!.outcome).toBe("pass");
  });

  it("warns when the URL connects as another role than the owner", () => {
    const r = preflight(server.url("compass_app", "compass_ok"));
    expect(r.out).toContain("warn CS-12 connecting role: the URL connects as compass_app, not as the owner compass_owner: the Server runs its migrations as compass_app");
    expect(r.code).toBe(versionOk() ? 0 : 1);
  });

  it("reads the URL from another variable or from a file, never from the command line", () => {
    const url = server.url("compass_owner", "compass_ok");
    const viaEnv = runCli(["preflight", "postgres", "--url-env", "MY_DB"], undefined, { MY_DB: url, COMPASS_DATABASE_DSN: "" });
    expect(viaEnv.out).toContain("database compass_ok is owned by compass_owner");
    const viaFile = runCli(["preflight", "postgres", "--url-file", tempFile(`${url}\n`, "db-url")], undefined, { COMPASS_DATABASE_DSN: "" });
    expect(viaFile.out).toBe(viaEnv.out);
  });

  it("reports an unknown database or an unreachable server as exit 2, without the password", () => {
    const missing = preflight(server.url("compass_owner", "nope", "s3cret-pw"));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error cannot check the database: database "nope" does not exist\n$/);
    const closed = preflight(`postgres://compass_owner:s3cret-pw@127.0.0.1:1/compass_ok`);
    expect(closed.code).toBe(2);
    expect(closed.err).toContain("cannot check the database: connect ECONNREFUSED 127.0.0.1:1");
    for (const r of [missing, closed]) expect(r.out + r.err).not.toContain("s3cret-pw");
  });
});

describe("rigging preflight's usage errors", () => {
  it.each([
    [[], { COMPASS_DATABASE_DSN: "" }, "$COMPASS_DATABASE_DSN is not set"],
    [["--url-env", "NOPE_UNSET"], {}, "$NOPE_UNSET is not set"],
    [[], { COMPASS_DATABASE_DSN: "mysql://u:pw@h/db" }, "$COMPASS_DATABASE_DSN: holds a mysql:// URL, expected postgres:// or postgresql://"],
    [[], { COMPASS_DATABASE_DSN: "not a url pw" }, "$COMPASS_DATABASE_DSN: does not hold a URL such as postgres://"],
    [["--url-env", "A", "--url-file", "f"], {}, "give --url-env or --url-file, not both"],
    [["--format", "xml"], {}, "--format xml: expected text or json"],
  ])("%j %j: %s", (args, env, message) => {
    const r = runCli(["preflight", "postgres", ...args], undefined, env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
    expect(r.err).not.toContain("pw");
  });

  it("needs the thing to check", () => {
    const r = runCli(["preflight"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("rigging preflight postgres");
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

  it("puts the floor at 16.0 (the server above is whatever this machine has)", () => {
    expect(judgePostgres(facts(160000))[0].outcome).toBe("pass");
    expect(judgePostgres(facts(170002))[0].outcome).toBe("pass");
    expect(judgePostgres(facts(150018))[0].outcome).toBe("fail");
  });

  it("takes a superuser owner whatever its other attributes", () => {
    expect(judgePostgres(facts(160004, { superuser: true, createRole: false, bypassRls: false }))[1].outcome).toBe("pass");
  });
});
