// `rigging preflight postgres` against servers that misbehave: each run ends
// by its one deadline (--timeout) with exit 2, and the password appears in
// no output, not even when the server quotes it back in a FATAL message.
import { spawnSync } from "node:child_process";
import { openSync, closeSync, constants } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/cli.ts";
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
    const r = await preflight(servers.fatal!.port, "--format", "json");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toBe('error cannot check the database: password authentication failed for user "compass" (sent: ***)\n');
    expect(r.out + r.err).not.toContain(PASSWORD);
  });

  it("a percent-encoded password is removed in both forms", async () => {
    const secret = "p@ss w/rd";
    const fatal = await startHostile("fatal-and-hold", `${secret} ${encodeURIComponent(secret)}`);
    try {
      const r = await runCliAsync(["preflight", "postgres", "--timeout", "1"], {
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
