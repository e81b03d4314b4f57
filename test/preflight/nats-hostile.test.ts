// `rigging preflight nats` against a NATS that answers CONNECT with a line
// that is no NATS protocol, quoting the password it was sent: the client
// library's own report of it (a stack trace, on stdout) must not reach any
// stream, the password appears nowhere, and --format json stays JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeNats, type FakeServer, runCliBounded } from "../support/fake-wire.ts";
import { runAsync } from "../support/run-async.ts";

const PASSWORD = "nats-Leak-4qW";
let quoting: FakeServer;

beforeAll(async () => {
  // The line starts with no NATS verb and carries the CONNECT, password and all.
  quoting = await startFakeNats((connect) => `WHAT? you sent ${connect}\r\n`);
});

afterAll(async () => {
  await quoting?.stop();
});

const args = (format: string) => [
  "preflight",
  "nats",
  `nats://127.0.0.1:${quoting.port}`,
  "--password-env",
  "MY_NATS_PW",
  // The answer must end the run at once: a deadline a busy machine cannot reach first.
  "--timeout",
  "60",
  "--format",
  format,
];

describe("preflight nats against a server answering CONNECT with a malformed line", () => {
  it("the fake server got the password, so it could quote it", async () => {
    await runCliBounded(args("text"), { MY_NATS_PW: PASSWORD });
    expect(quoting.received().some((line) => line.includes(PASSWORD))).toBe(true);
  });

  it("text: exit 2 naming the malformed answer, no password and no stack trace anywhere (a process)", async () => {
    const r = await runCliBounded(args("text"), { MY_NATS_PW: PASSWORD });
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      new RegExp(`^error cannot check NATS at 127\\.0\\.0\\.1:${quoting.port}: the server's answer is not NATS protocol: .*WHAT\\? you sent CONNECT`),
    );
    expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.out + r.err).not.toContain(PASSWORD);
    expect(r.out + r.err).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(2);
  });

  it("json: stdout is one JSON array, on this failure too, with the error as its entry", async () => {
    const r = await runCliBounded(args("json"), { MY_NATS_PW: PASSWORD });
    expect(r.code).toBe(2);
    const parsed = JSON.parse(r.out) as { id: string; check: string; outcome: string; message: string }[];
    expect(parsed).toEqual([
      {
        id: "D5",
        check: "connection",
        outcome: "error",
        message: expect.stringMatching(/^cannot check NATS at .*: the server's answer is not NATS protocol: /),
      },
    ]);
    expect(r.out + r.err).not.toContain(PASSWORD);
  });

  it("in-process as well: the library's console output reaches no stream", async () => {
    const r = await runAsync(args("json"), { MY_NATS_PW: PASSWORD });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toHaveLength(1);
    expect(r.out + r.err).not.toContain(PASSWORD);
  });

  it("RIGGING_DEBUG shows what the library printed, its report of the bad line, with the password removed", async () => {
    const r = await runCliBounded(args("text"), { MY_NATS_PW: PASSWORD, RIGGING_DEBUG: "1" });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^debug reader closed Error: parse error \[0\]: WHAT\? you sent CONNECT .*"pass":"\*\*\*"/m);
    expect(r.out + r.err).not.toContain(PASSWORD);
  });
});
