// `rigging preflight nats` (D5: CS-07, CS-13) against Debian's nats-server
// on 127.0.0.1: all good, anonymous access allowed, the wrong password, and
// no JetStream; the password comes from a Secret export, a file or a
// variable, and is never printed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempFile } from "../support/cli.ts";
import { startHostile, type HostileServer } from "../support/hostile.ts";
import { startNats, type TestNats } from "../support/nats.ts";
import { runAsync, runCliAsync } from "../support/run-async.ts";

const PASSWORD = "nats-Secret-91x";
const auth = { user: "compass", password: PASSWORD };
let good: TestNats;
let open: TestNats;
let noJetStream: TestNats;
let silent: HostileServer;

beforeAll(async () => {
  [good, open, noJetStream, silent] = await Promise.all([
    startNats({ auth, jetstream: true }),
    startNats({ jetstream: true }),
    startNats({ auth, jetstream: false }),
    startHostile("silent"),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([good, open, noJetStream, silent].filter(Boolean).map((s) => s.stop()));
});

const secretExport = (password: string) =>
  tempFile(
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: compass-nats\ntype: Opaque\ndata:\n  password: ${Buffer.from(password).toString("base64")}\n`,
    "nats.yaml",
  );
const nats = (url: string, ...args: string[]) => runAsync(["preflight", "nats", url, ...args]);
const noSecret = (r: { out: string; err: string }) => expect(r.out + r.err).not.toContain(PASSWORD);

describe("preflight nats against live nats-server", () => {
  it("passes password auth with JetStream: anonymous refused, the password taken, JetStream on (a process, from a Secret export)", async () => {
    const r = await runCliAsync(["preflight", "nats", good.url, "--secret", secretExport(PASSWORD)]);
    expect(r.err).toBe("");
    expect(r.out).toBe(
      [
        "ok   CS-07 anonymous access: NATS refuses a client without credentials",
        "ok   CS-07 password: NATS takes user compass with the password given",
        "ok   CS-13 JetStream: JetStream is enabled for user compass (0 stream(s))",
        "",
      ].join("\n"),
    );
    expect(r.code).toBe(0);
  });

  it("reads the password from a file or a variable just the same", async () => {
    const viaFile = await nats(good.url, "--password-file", tempFile(`${PASSWORD}\n`, "pw"));
    const viaEnv = await runAsync(["preflight", "nats", good.url, "--password-env", "MY_NATS_PW"], { MY_NATS_PW: PASSWORD });
    expect(viaFile.code).toBe(0);
    expect(viaEnv).toEqual(viaFile);
  });

  it("fails a NATS that lets anyone in", async () => {
    const r = await nats(open.url, "--secret", secretExport(PASSWORD));
    expect(r.out).toMatch(/^FAIL CS-07 anonymous access: NATS accepts a client without credentials \(fix: require password auth \(D5\)/m);
    expect(r.out.split("\n").filter((l) => l.startsWith("FAIL"))).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it("fails the wrong password, and never prints either password", async () => {
    const r = await nats(good.url, "--secret", secretExport("not-the-Password-77"), "--format", "json");
    expect(JSON.parse(r.out)).toEqual([
      { id: "CS-07", check: "anonymous access", outcome: "pass", message: "NATS refuses a client without credentials" },
      {
        id: "CS-07",
        check: "password",
        outcome: "fail",
        message: "NATS refuses user compass with the password given (JetStream is checked once it is taken)",
        fix: expect.stringContaining("nats.passwordSecret"),
      },
    ]);
    expect(r.code).toBe(1);
    expect(r.out + r.err).not.toContain("not-the-Password-77");
    noSecret(r);
  });

  it("fails a NATS without JetStream", async () => {
    const r = await nats(noJetStream.url, "--secret", secretExport(PASSWORD));
    expect(r.out).toMatch(/^ok {3}CS-07 password: /m);
    expect(r.out).toMatch(/^FAIL CS-13 JetStream: JetStream is not enabled for user compass: the Server's event fabric needs it \(fix: enable JetStream/m);
    expect(r.code).toBe(1);
  });

  it("ends with exit 2 when nothing listens or nothing answers within --timeout (a process)", async () => {
    const closed = await nats("nats://127.0.0.1:1", "--password-env", "MY_NATS_PW", "--timeout", "2");
    expect(closed.code).toBe(2);
    expect(closed.err).toMatch(/^error \$MY_NATS_PW is not set/);
    const refused = await runAsync(["preflight", "nats", "nats://127.0.0.1:1", "--password-env", "MY_NATS_PW", "--timeout", "2"], { MY_NATS_PW: PASSWORD });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^error cannot check NATS at 127\.0\.0\.1:1: /);
    const quiet = await runCliAsync(["preflight", "nats", `nats://127.0.0.1:${silent.port}`, "--password-env", "MY_NATS_PW", "--timeout", "1"], {
      MY_NATS_PW: PASSWORD,
    });
    expect(quiet.code).toBe(2);
    expect(quiet.out).toBe("");
    expect(quiet.err).toMatch(new RegExp(`^error cannot check NATS at 127\\.0\\.0\\.1:${silent.port}: .*\\n$`));
    for (const r of [refused, quiet]) noSecret(r);
  });
});

describe("preflight nats --format json on failure: stdout is JSON still", () => {
  const errorEntry = (message: RegExp) => [{ id: "D5", check: "connection", outcome: "error", message: expect.stringMatching(message) }];

  it("nothing listens: one entry, outcome error, exit 2 (a process)", async () => {
    const r = await runCliAsync(["preflight", "nats", "nats://127.0.0.1:1", "--password-env", "MY_NATS_PW", "--timeout", "2", "--format", "json"], {
      MY_NATS_PW: PASSWORD,
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual(errorEntry(/^cannot check NATS at 127\.0\.0\.1:1: /));
    expect(r.err).toMatch(/^error cannot check NATS at 127\.0\.0\.1:1: /);
    noSecret(r);
  });

  it("tls:// to the live nats-server, which speaks no TLS: the error as JSON", async () => {
    const r = await nats(good.url.replace("nats://", "tls://"), "--secret", secretExport(PASSWORD), "--format", "json", "--timeout", "5");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual(errorEntry(/^cannot check NATS at 127\.0\.0\.1:\d+: /));
    noSecret(r);
  });

  it("a usage error met before the run: JSON too", async () => {
    const r = await nats(good.url, "--format", "json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual([{ id: "D5", check: "usage", outcome: "error", message: expect.stringMatching(/^the password is missing: /) }]);
  });
});

describe("preflight nats usage", () => {
  it.each([
    [
      ["nats://compass:hunter2@127.0.0.1:4222", "--password-env", "X"],
      "the NATS URL carries credentials, which the command line must not: give the user with --user and the password with --secret FILE, --password-file FILE or --password-env NAME",
    ],
    [["nats://127.0.0.1:4222"], "the password is missing: give --secret FILE"],
    [["nats://127.0.0.1:4222", "--password-env", "A", "--password-file", "f"], "give one password source, not --password-file and --password-env"],
    [["http://127.0.0.1:4222", "--password-env", "A"], "the NATS URL uses http://, not nats:// or tls://"],
    [["--password-env", "A"], "the NATS URL is missing"],
    [["nats://127.0.0.1:4222", "--secret-key", "k", "--password-env", "A"], "--secret-key needs --secret"],
    [["nats://127.0.0.1:4222", "--password-env", "A", "--user", "bad user"], '--user "bad user": expected a NATS user name'],
  ])("%j: %s", async (args, message) => {
    const r = await runAsync(["preflight", "nats", ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
    expect(r.err).not.toContain("hunter2");
  });

  it("names the keys of a Secret export that lacks the password key", async () => {
    const r = await runAsync([
      "preflight",
      "nats",
      good.url,
      "--secret",
      tempFile("kind: Secret\nmetadata: {name: compass-nats}\ndata:\n  pass: aHVudGVyMg==\n", "s.yaml"),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("Secret compass-nats has no key password (its keys: pass)");
    expect(r.err).not.toContain("hunter2");
  });
});
