// The server's messages checked before the driver's parser, which can crash,
// loop or over-buffer on malformed input; the driver still parses everything.
import type { Duplex } from "node:stream";

/** More than any answer to the one query, and far less than a server could make a client buffer. */
export const MESSAGE_BYTES = 1024 * 1024;

const AUTH_METHODS: Record<number, string> = { 2: "Kerberos V5", 6: "SCM credentials", 7: "GSSAPI", 8: "GSSAPI", 9: "SSPI" };

/** A server's answer that breaks PostgreSQL's protocol; the run ends with exit 2. */
export class MalformedAnswerError extends Error {
  constructor(why: string) {
    super(`the server's answer is not PostgreSQL's protocol: ${why}`);
  }
}

/** Reads the frames of the backend's stream, and says what is wrong with the first bad one. */
export class AnswerGuard {
  private header: number[] = [];
  private type = 0;
  private remaining = 0;
  private body: Buffer[] = [];
  private saslAsked = false;

  /** The problem with this chunk, if it has one; chunks come in the order the server sent them. */
  check(chunk: Buffer): string | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.header.length < 5) {
        this.header.push(chunk[at++]);
        if (this.header.length === 5) {
          const problem = this.begin();
          if (problem) return problem;
        }
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - at);
      if (this.wanted()) this.body.push(chunk.subarray(at, at + take));
      at += take;
      this.remaining -= take;
      if (this.remaining === 0) {
        const problem = this.end();
        if (problem) return problem;
      }
    }
    return undefined;
  }

  private begin(): string | undefined {
    this.type = this.header[0];
    const length = Buffer.from(this.header.slice(1)).readUInt32BE(0);
    const name = quote(this.type);
    if (length < 4) return `a ${name} message of length ${length}, less than its own 4 length bytes`;
    if (length > MESSAGE_BYTES) return `a ${name} message of ${length} bytes, more than the 1 MiB a preflight reads`;
    this.remaining = length - 4;
    return this.remaining === 0 ? this.end() : undefined;
  }

  /** Only these messages are read here: the others pass to the driver by their frame alone. */
  private wanted(): boolean {
    return this.type === 0x52 || this.type === 0x45 || this.type === 0x4e;
  }

  private end(): string | undefined {
    const body = Buffer.concat(this.body);
    const type = this.type;
    this.header = [];
    this.body = [];
    if (type === 0x52) return this.authentication(body);
    if (type === 0x45 || type === 0x4e)
      return fieldsEnd(body) ? undefined : `${type === 0x45 ? "an ErrorResponse ('E')" : "a NoticeResponse ('N')"} whose fields do not end`;
    return undefined;
  }

  private authentication(body: Buffer): string | undefined {
    if (body.length < 4) return `an authentication request ('R') of ${body.length} bytes, too short to name its method`;
    const method = body.readInt32BE(0);
    const size = `of ${body.length} bytes`;
    switch (method) {
      case 0:
        return body.length === 4 ? undefined : `an AuthenticationOk ('R' 0) ${size}, expected 4`;
      case 3:
        return body.length === 4 ? undefined : `a cleartext password request ('R' 3) ${size}, expected 4`;
      case 5:
        return body.length === 8 ? undefined : `an MD5 password request ('R' 5) ${size}, expected 8 (the method and a 4-byte salt)`;
      case 10:
        this.saslAsked = true;
        return mechanismsEnd(body.subarray(4)) ? undefined : "a SASL request ('R' 10) whose list of mechanisms does not end";
      case 11:
      case 12:
        return this.saslAsked ? undefined : `a SASL ${method === 11 ? "challenge" : "outcome"} ('R' ${method}) before the server asked for SASL`;
      default:
        return `the server asks for authentication method ${method}${AUTH_METHODS[method] ? ` (${AUTH_METHODS[method]})` : ""}, which the driver does not speak`;
    }
  }
}

/** An ErrorResponse's or NoticeResponse's fields: a type byte and a C string each, then one zero byte, last. */
function fieldsEnd(body: Buffer): boolean {
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    if (end < 0) return false;
    at = end + 1;
  }
  return at === body.length - 1;
}

/** SASL's mechanisms: C strings, ended by an empty one, last. */
function mechanismsEnd(list: Buffer): boolean {
  let at = 0;
  while (at < list.length && list[at] !== 0) {
    const end = list.indexOf(0, at);
    if (end < 0) return false;
    at = end + 1;
  }
  return at === list.length - 1;
}

function quote(type: number): string {
  return type >= 0x20 && type < 0x7f ? `'${String.fromCharCode(type)}'` : `0x${type.toString(16).padStart(2, "0")}`;
}

/** Guards the driver's 'data' listeners: a bad chunk destroys the stream with a MalformedAnswerError instead of escaping uncaught. */
export function guardAnswers(stream: Duplex): void {
  const guard = new AnswerGuard();
  const emit = stream.emit;
  let broken = false;
  const fail = (why: string) => {
    broken = true;
    stream.destroy(new MalformedAnswerError(why));
    return false;
  };
  stream.emit = function (this: Duplex, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "data") return emit.call(this, event, ...args);
    if (broken) return false;
    const chunk = args[0];
    const problem = Buffer.isBuffer(chunk) ? guard.check(chunk) : "text where bytes were expected";
    if (problem) return fail(problem);
    try {
      return emit.call(this, event, ...args);
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  } as typeof stream.emit;
}
