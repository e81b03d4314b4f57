// `rigging preflight postgres` against servers whose answers break the wire
// protocol, above all in authentication: each run ends at once with a clear
// error (exit 2), never an internal error, a crash with a stack trace, or a
// hang the deadline cannot end, and --format json stays JSON.
import { afterEach, describe, expect, it } from "vitest";
import { authRequest, type FakeServer, int32, pgMessage, runCliBounded, startFakePostgres } from "../support/fake-wire.ts";

const PASSWORD = "pg-Malformed-7uX";
let server: FakeServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The answer to the client's first message (its startup), then to its second. */
async function preflightAgainst(first: Buffer, second?: Buffer, format = "text") {
  server = await startFakePostgres((_chunk, index) => (index === 0 ? first : index === 1 ? second : undefined));
  return runCliBounded(["preflight", "postgres", "--timeout", "20", "--format", format], {
    COMPASS_DATABASE_DSN: `postgres://compass:${PASSWORD}@127.0.0.1:${server.port}/compass`,
  });
}

const MALFORMED = "error cannot check the database: the server's answer is not PostgreSQL's protocol: ";

function expectClearError(r: { code: number; out: string; err: string }, why: RegExp) {
  expect(r.err.startsWith(MALFORMED), r.err).toBe(true);
  expect(r.err.slice(MALFORMED.length)).toMatch(why);
  expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
  expect(r.out + r.err).not.toContain(PASSWORD);
  expect(r.code).toBe(2);
}

describe("malformed authentication requests", () => {
  it("an authentication method the driver does not know (99): a clear error, not a crash", async () => {
    expectClearError(await preflightAgainst(authRequest(99)), /^the server asks for authentication method 99, which the driver does not speak\n$/);
  });

  it("GSSAPI (7), which the driver does not speak: a clear error naming it", async () => {
    expectClearError(await preflightAgainst(authRequest(7)), /^the server asks for authentication method 7 \(GSSAPI\), which the driver does not speak\n$/);
  });

  it("a truncated authentication request (no method): a clear error, not a crash", async () => {
    expectClearError(await preflightAgainst(pgMessage("R", Buffer.alloc(0))), /^an authentication request \('R'\) of 0 bytes, too short to name its method\n$/);
  });

  it("an MD5 request with a 2-byte salt is refused, not taken for 'authenticated'", async () => {
    expectClearError(
      await preflightAgainst(authRequest(5, Buffer.from([1, 2]))),
      /^an MD5 password request \('R' 5\) of 6 bytes, expected 8 \(the method and a 4-byte salt\)\n$/,
    );
  });

  it("a SASL challenge before any SASL was asked for", async () => {
    expectClearError(
      await preflightAgainst(authRequest(11, Buffer.from("r=abc,s=c2FsdA==,i=4096"))),
      /^a SASL challenge \('R' 11\) before the server asked for SASL\n$/,
    );
  });

  it("a SASL request whose list of mechanisms does not end", async () => {
    expectClearError(
      await preflightAgainst(authRequest(10, Buffer.from("SCRAM-SHA-256"))),
      /^a SASL request \('R' 10\) whose list of mechanisms does not end\n$/,
    );
  });

  it("a SASL challenge that is no SCRAM server-first message: a clear error", async () => {
    const r = await preflightAgainst(authRequest(10, Buffer.from("SCRAM-SHA-256\0\0", "latin1")), authRequest(11, Buffer.from("garbage")));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error cannot check the database: SASL: /);
    expect(r.out + r.err).not.toContain(PASSWORD);
  });
});

describe("malformed messages of any kind", () => {
  it("an ErrorResponse without its terminator, which the driver's parser loops on forever: refused at once", async () => {
    const unterminated = pgMessage("E", Buffer.from("SFATAL\0Mno end", "latin1"));
    expectClearError(await preflightAgainst(unterminated), /^an ErrorResponse \('E'\) whose fields do not end\n$/);
  });

  it("a NoticeResponse without its terminator: the same", async () => {
    expectClearError(await preflightAgainst(pgMessage("N", Buffer.from("SNOTICE\0", "latin1"))), /^a NoticeResponse \('N'\) whose fields do not end\n$/);
  });

  it("a message that says it is 1 GiB long is refused before it is buffered", async () => {
    const header = Buffer.concat([Buffer.from("D", "latin1"), int32(1 << 30)]);
    expectClearError(await preflightAgainst(header), /^a 'D' message of 1073741824 bytes, more than the 1 MiB a preflight reads\n$/);
  });

  it("a length smaller than the length field itself", async () => {
    expectClearError(
      await preflightAgainst(Buffer.concat([Buffer.from("Z", "latin1"), int32(2)])),
      /^a 'Z' message of length 2, less than its own 4 length bytes\n$/,
    );
  });

  it("--format json prints the error as JSON", async () => {
    const r = await preflightAgainst(authRequest(99), undefined, "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual([
      {
        id: "D3",
        check: "connection",
        outcome: "error",
        message:
          "cannot check the database: the server's answer is not PostgreSQL's protocol: the server asks for authentication method 99, which the driver does not speak",
      },
    ]);
  });
});
