// The guard before the PostgreSQL driver's parser (src/preflight/postgres-wire.ts):
// a well-formed answer passes however the network cuts it into chunks, and a
// malformed one is found wherever it is cut.
import { describe, expect, it } from "vitest";
import { AnswerGuard } from "../../src/preflight/postgres-wire.ts";
import { authRequest, fatal, int32, pgMessage } from "../support/fake-wire.ts";

/** What PostgreSQL answers a SCRAM login and one query with, abridged: every kind of frame the guard reads or skips. */
const GOOD = Buffer.concat([
  authRequest(10, Buffer.from("SCRAM-SHA-256\0\0", "latin1")),
  authRequest(11, Buffer.from("r=nonce,s=c2FsdA==,i=4096")),
  authRequest(12, Buffer.from("v=c2ln")),
  authRequest(0),
  pgMessage("S", Buffer.from("server_version\u000017.4\u0000", "latin1")),
  pgMessage("K", Buffer.concat([int32(42), int32(7)])),
  pgMessage("N", Buffer.from("SNOTICE\u0000Mhello\u0000\u0000", "latin1")),
  pgMessage("Z", Buffer.from("I")),
  pgMessage("D", Buffer.concat([Buffer.from([0, 1]), int32(2), Buffer.from("16")])),
  pgMessage("C", Buffer.from("SELECT 1\u0000", "latin1")),
]);

function feed(bytes: Buffer, size: number): string | undefined {
  const guard = new AnswerGuard();
  for (let at = 0; at < bytes.length; at += size) {
    const problem = guard.check(bytes.subarray(at, at + size));
    if (problem) return problem;
  }
  return undefined;
}

describe("the PostgreSQL answer guard", () => {
  it.each([1, 2, 3, 5, 7, 64, GOOD.length])("passes a well-formed answer cut into chunks of %i bytes", (size) => {
    expect(feed(GOOD, size)).toBeUndefined();
  });

  it.each([1, 4, 9, 1000])("finds an unterminated ErrorResponse after good frames, in chunks of %i bytes", (size) => {
    const bad = Buffer.concat([GOOD, pgMessage("E", Buffer.from("SFATAL\u0000Mno end", "latin1"))]);
    expect(feed(bad, size)).toBe("an ErrorResponse ('E') whose fields do not end");
  });

  it("takes a FATAL ErrorResponse as the server writes it", () => {
    expect(feed(fatal("password authentication failed"), 3)).toBeUndefined();
  });

  it("refuses an ErrorResponse whose last field's string takes the terminator for its own", () => {
    expect(feed(pgMessage("E", Buffer.from("SFATAL\u0000", "latin1")), 100)).toBe("an ErrorResponse ('E') whose fields do not end");
  });

  it("refuses a SASL request with no mechanism list at all, and a SASL challenge of another login", () => {
    expect(feed(authRequest(10), 100)).toBe("a SASL request ('R' 10) whose list of mechanisms does not end");
    expect(feed(authRequest(12, Buffer.from("v=x")), 100)).toBe("a SASL outcome ('R' 12) before the server asked for SASL");
  });

  it("names a type byte that is no printable character by its code", () => {
    expect(feed(Buffer.concat([Buffer.from([0x01]), int32(3)]), 100)).toBe("a 0x01 message of length 3, less than its own 4 length bytes");
  });
});
