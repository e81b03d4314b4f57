// `rigging preflight postgres` against servers that misbehave: each run ends
// by its one deadline (--timeout) with exit 2, and the password appears in
// no output, not even when the server quotes it back in a FATAL message.
import { spawnSync } from "node:child_process";
import { openSync, closeSync, constants, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/cli.ts";
import { authRequest, type FakeServer, fatal, passwordOf, startFakePostgres } from "../support/fake-wire.ts";
import { startHostile, type HostileServer } from "../support/hostile.ts";
import { runCliAsync } from "../support/run-async.ts";

const PASSWORD = "hunter2-Zq8";
const servers: Partial<Record<"silent" | "half" | "fatal", HostileServer>> = {};

beforeAll(async () => {
  servers.silent = await startHostile("silent");
  servers.half = await startHostile("half-open");
  servers.fatal = await startHostile("fatal-and-hold", PASSWORD);
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
});

const url = (port: number) => `postgres://compass:${PASSWORD}@127.0.0.1:${port}/compass`;
const preflight = (port: number, ...args: string[]) => runCliAsync(["preflight", "postgres", "--timeout", "1", ...args], { COMPASS_DATABASE_DSN: url(port) });
// A server that answers must end the run at once: a deadline far off, so a busy machine cannot reach it first.
const answered = (port: number, ...args: string[]) => runCliAsync(["preflight", "postgres", "--timeout", "60", ...args], { COMPASS_DATABASE_DSN: url(port) });

describe("preflight postgres against misbehaving servers on 127.0.0.1", () => {
  it("a server that accepts and says nothing: the deadline ends the run, exit 2", async () => {
    const r = await preflight(servers.silent!.port);
    expect(r).toEqual({ code: 2, out: "", err: "error cannot check the database: no answer within 1 s (--timeout 1)\n" });
    expect(servers.silent!.connections()).toBeGreaterThan(0);
  });

  it("a server that sends half a message and holds: the deadline ends the run, exit 2", async () => {
    const r = await preflight(servers.half!.port);
    expect(r).toEqual({ code: 2, out: "", err: "error cannot check the database: no answer within 1 s (--timeout 1)\n" });
  });

  it("a server that sends FATAL quoting the password and keeps the socket open: exit 2 at once, the password removed", async () => {
    const r = await answered(servers.fatal!.port, "--format", "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual([
      { id: "D3", check: "connection", outcome: "error", message: 'cannot check the database: password authentication failed for user "compass" (sent: ***)' },
    ]);
    expect(r.err).toBe('error cannot check the database: password authentication failed for user "compass" (sent: ***)\n');
    expect(r.out + r.err).not.toContain(PASSWORD);
  });

  it("a percent-encoded password is removed in both forms", async () => {
    const secret = "p@ss w/rd";
    const fatal = await startHostile("fatal-and-hold", `${secret} ${encodeURIComponent(secret)}`);
    try {
      const r = await runCliAsync(["preflight", "postgres", "--timeout", "60"], {
        COMPASS_DATABASE_DSN: `postgres://compass:${encodeURIComponent(secret)}@127.0.0.1:${fatal.port}/compass`,
      });
      expect(r.code).toBe(2);
      expect(r.err).toContain("(sent: *** ***)");
      expect(r.err).not.toContain("w/rd");
      expect(r.err).not.toContain("w%2Frd");
    } finally {
      await fatal.stop();
    }
  });

  it("a --url-file FIFO that a writer holds open and never writes: the deadline ends the read", async () => {
    const fifo = join(tempDir(), "db-url");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // Opened read-write, the FIFO has a writer that never writes, without blocking here.
    const writer = openSync(fifo, constants.O_RDWR);
    try {
      const r = await runCliAsync(["preflight", "postgres", "--timeout", "1", "--url-file", fifo], { COMPASS_DATABASE_DSN: "" });
      expect(r).toEqual({ code: 2, out: "", err: "error cannot check the database: no answer within 1 s (--timeout 1)\n" });
    } finally {
      closeSync(writer);
    }
  });
});

describe("preflight postgres removes the password however it was given, when the server quotes what it was sent", () => {
  const SECRET = "q7-Quoted+Pass word";
  let quoting: FakeServer;

  beforeAll(async () => {
    // Asks for the password in clear (AuthenticationCleartextPassword), then quotes it back in FATAL.
    quoting = await startFakePostgres((chunk, index) => (index === 0 ? authRequest(3) : fatal(`password "${passwordOf(chunk)}" is wrong`)));
  });

  afterAll(async () => {
    await quoting?.stop();
  });

  const base = () => `postgres://compass@127.0.0.1:${quoting.port}/compass`;
  const expectRemoved = (r: { code: number; out: string; err: string }) => {
    expect(r.err).toBe('error cannot check the database: password "***" is wrong\n');
    expect(r.out + r.err).not.toContain("Quoted");
    expect(r.code).toBe(2);
  };
  const sent = () => quoting.received().some((chunk) => chunk.includes(SECRET));

  it("in the URL's userinfo", async () => {
    expectRemoved(await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: base().replace("compass@", `compass:${encodeURIComponent(SECRET)}@`) }));
    expect(sent()).toBe(true);
  });

  it("in the URL's query, ?password=", async () => {
    expectRemoved(await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: `${base()}?password=${encodeURIComponent(SECRET)}` }));
  });

  it("in the URL's query with + for its space, as a form encodes it", async () => {
    expectRemoved(
      await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: `${base()}?password=${SECRET.replace(" ", "+").replace("+P", "%2BP")}` }),
    );
  });

  it("in $PGPASSWORD", async () => {
    expectRemoved(await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: base(), PGPASSWORD: SECRET }));
  });

  it("in a password file ($PGPASSFILE), which the driver reads when asked", async () => {
    const file = join(tempDir(), "pgpass");
    writeFileSync(file, `127.0.0.1:${quoting.port}:compass:compass:${SECRET}\n`, { mode: 0o600 });
    expectRemoved(await runCliAsync(["preflight", "postgres"], { COMPASS_DATABASE_DSN: base(), PGPASSFILE: file }));
  });

  it("--format json prints the error as JSON, the password removed", async () => {
    const r = await runCliAsync(["preflight", "postgres", "--format", "json"], { COMPASS_DATABASE_DSN: base(), PGPASSWORD: SECRET });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual([{ id: "D3", check: "connection", outcome: "error", message: 'cannot check the database: password "***" is wrong' }]);
    expect(r.out + r.err).not.toContain("Quoted");
  });
});
