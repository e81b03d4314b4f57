// `rigging preflight postgres|tls|nats`: what manifests cannot show, asked
// of the live systems before the Server is applied. Every secret (a URL, a
// key, a password) is read from the environment or a file, never from the
// command line, and removed from everything printed, whatever a driver says.
// One deadline (--timeout) covers each run from the first dial to the close.
// Each check's module (and the network and TLS code it needs) is loaded when
// that check runs, so that no other command pays for it.
import { createPrivateKey, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { DNS1123_SUBDOMAIN } from "../core/names.ts";
import { closest } from "../core/values.ts";
import { DATABASE_URL_ENV } from "../profiles/compass-server/ports.ts";
import { natsUrlProblem } from "../profiles/compass-server/nats.ts";
import {
  DEFAULT_TIMEOUT_SECONDS,
  Deadline,
  describeError,
  exitCode,
  formatResults,
  parseFormat,
  parseTimeout,
  printable,
  readSecretFile,
  redactor,
  TimeoutError,
  type CheckResult,
  type Outcome,
} from "../preflight/common.ts";
import { decode, exportKey, readExport, type ObjectExport } from "../preflight/exports.ts";
import type { TlsExpectations } from "../preflight/tls.ts";
import { paint, type Io } from "./io.ts";

const COMMON = `Every preflight:
  -f, --format FMT     text (default) or json (an array of {id, check, outcome, message, fix})
      --timeout SECS   one deadline for the whole run: connect, ask, close (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit codes: 0 every check passes (warnings allowed); 1 a check fails;
2 usage error, unreadable input, a server that cannot be reached or
answers wrongly, or the deadline passed. No secret is ever printed.
`;

export const PREFLIGHT_HELP = `Usage: rigging preflight postgres|tls|nats [options]

Check, before applying, what manifests cannot show:
  postgres   the Compass Server's database (CS-12, D3)
  tls        the Server's certificate and key, on file and live (CS-08, CR-14; D6)
  nats       password auth and JetStream on NATS (CS-07, CS-13; D5)

Run 'rigging preflight CHECK --help' for its options.

${COMMON}`;

const POSTGRES_HELP = `Usage: rigging preflight postgres [--url-env NAME | --url-file FILE] [options]

Check the Compass Server's database before applying (CS-12): PostgreSQL 16
or later, owned by a superuser or by a role with CREATEROLE and BYPASSRLS.
Manifests cannot show this; the server is asked with one read-only query.

The connection URL (postgres://user:password@host:port/database) is a
secret: it is read from the environment variable ${DATABASE_URL_ENV} (the
one the Server reads), from another with --url-env, or from a file with
--url-file (its first line, at most 64 KiB read), never from the command
line, and it is never printed.

  kubectl get secret compass-database -n compass -o jsonpath='{.data.url}' \\
    | base64 -d > /dev/shm/compass-db-url
  rigging preflight postgres --url-file /dev/shm/compass-db-url

Options:
      --url-env NAME   read the URL from the environment variable NAME
      --url-file FILE  read the URL from FILE

${COMMON}`;

const TLS_HELP = `Usage: rigging preflight tls --server-name NAME [--ca FILE]
         [--cert FILE [--key FILE] | --secret FILE] [--connect URL] [options]

Check the certificate the Server terminates TLS with (D6, CS-08) as the
Runner will meet it (CR-14): it verifies to the Runner's serverCA, it names
serverName, it is valid now and for --min-days more, and the key belongs
to it. With --connect, dial the live Server with SNI serverName and judge
the certificate it presents the same way; the Server's minimum is TLS 1.3,
so an endpoint that speaks TLS 1.2 is something else in front of it.

  kubectl get secret compass-server-tls -n compass -o yaml > /dev/shm/tls.yaml
  rigging preflight tls --secret /dev/shm/tls.yaml --ca runner-ca.pem \\
    --server-name compass.example.com --connect https://compass.example.com

Options:
      --server-name NAME  the name the Runner verifies (its serverName)
      --ca FILE           the Runner's serverCA: PEM, or a ConfigMap or Secret
                          export (key ca.crt); without it, the system's roots
      --cert FILE         the Server's certificate chain (PEM, leaf first)
      --key FILE          its private key (PEM)
      --secret FILE       the kubernetes.io/tls Secret export (tls.crt, tls.key)
      --connect URL       https://host[:port] of the live Server
      --min-days N        fail a certificate expiring within N days (default 14)

${COMMON}`;

const NATS_HELP = `Usage: rigging preflight nats URL [--user NAME]
         (--secret FILE [--secret-key KEY] | --password-file FILE | --password-env NAME) [options]

Check the NATS the Server will use (D5): a client without credentials is
refused (CS-07), the Server's user and password are taken (CS-07), and
JetStream is enabled, which the Server's event fabric needs (CS-13).
URL is nats://host:port or tls://host:port, without credentials; the
password is read from a Secret export, a file or a variable, never from
the command line, and it is never printed.

  kubectl get secret compass-nats -n compass -o yaml > /dev/shm/nats.yaml
  rigging preflight nats nats://compass-server-nats.compass.svc:4222 --secret /dev/shm/nats.yaml

Options:
      --user NAME          the NATS user (default compass, as nats.user)
      --secret FILE        the password Secret's export (kubectl get secret -o yaml)
      --secret-key KEY     its key (default password, as nats.passwordSecret.key)
      --password-file FILE read the password from FILE (its first line)
      --password-env NAME  read the password from the environment variable NAME
      --ca FILE            PEM CA for a tls:// URL (default: the system's roots)

${COMMON}`;

const COMMON_OPTIONS = {
  format: { type: "string", short: "f" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

type Subcommand = (args: string[], io: Io) => number | Promise<number>;

const CHECKS: Record<string, Subcommand> = { postgres: postgresCommand, tls: tlsCommand, nats: natsCommand };

export function preflightCommand(args: string[], io: Io): number | Promise<number> {
  const [what, ...rest] = args;
  if (what === "-h" || what === "--help") return io.out(PREFLIGHT_HELP), 0;
  const names = Object.keys(CHECKS).join("|");
  if (what === undefined || what.startsWith("-")) throw new UsageError(`name what to check first: rigging preflight ${names} (see --help)`);
  const check = CHECKS[what];
  if (!check) {
    const near = closest(what, Object.keys(CHECKS));
    throw new UsageError(`preflight checks ${names}, not ${JSON.stringify(printable(what))}${near ? ` (did you mean ${near}?)` : ""}`);
  }
  return check(rest, io);
}

/**
 * Runs `work` under one deadline. Whatever it prints or throws passes
 * through the redactor of the secrets it collected on its way.
 */
async function runChecks(io: Io, what: string, format: "text" | "json", timeout: number, work: (deadline: Deadline, secrets: string[]) => Promise<CheckResult[]>): Promise<number> {
  const deadline = new Deadline(timeout);
  const secrets: string[] = [];
  try {
    const redact = (text: string) => printable(redactor(secrets)(text));
    const results = (await work(deadline, secrets)).map((r) => ({ ...r, message: redact(r.message), ...(r.fix ? { fix: redact(r.fix) } : {}) }));
    io.out(redactor(secrets)(formatResults(results, format, (outcome) => label(outcome, io))));
    return exitCode(results);
  } catch (error) {
    const redact = redactor(secrets);
    if (error instanceof TimeoutError) throw new UsageError(`cannot check ${what}: ${describeError(error, redact)}`);
    if (error instanceof UsageError) throw new UsageError(describeError(error, redact));
    throw new UsageError(`cannot check ${what}: ${describeError(error, redact)}`);
  } finally {
    deadline.end();
  }
}

/** The four-letter label of an outcome, coloured on a terminal. */
export function label(outcome: Outcome, io: Io): string {
  return outcome === "pass" ? paint(io, 32, "ok  ") : outcome === "warn" ? paint(io, 33, "warn") : outcome === "note" ? "note" : paint(io, 31, "FAIL");
}

function usageCheck(positionals: string[], expected: number, usage: string): void {
  if (positionals.length > expected) throw new UsageError(`unexpected argument ${JSON.stringify(printable(positionals[expected]))}; usage: ${usage}`);
}

function postgresCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...COMMON_OPTIONS, "url-env": { type: "string" }, "url-file": { type: "string" } } });
  if (values.help) return io.out(POSTGRES_HELP), 0;
  usageCheck(positionals, 0, "rigging preflight postgres [--url-env NAME | --url-file FILE]");
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout);
  const env = values["url-env"];
  const file = values["url-file"];
  if (env !== undefined && file !== undefined) throw new UsageError("give --url-env or --url-file, not both");
  return runChecks(io, "the database", format, timeout, async (deadline, secrets) => {
    const { checkPostgresUrl, judgePostgres, postgresSecrets, readPostgresFacts } = await import("../preflight/postgres.ts");
    let url: string | undefined;
    let from: string;
    if (file !== undefined) {
      from = printable(file);
      url = decode(await readSecretFile(file, deadline), file).split(/\r?\n/)[0].trim();
      if (!url) throw new UsageError(`${from}: holds no URL on its first line`);
    } else {
      const name = env ?? DATABASE_URL_ENV;
      from = `$${printable(name)}`;
      url = process.env[name]?.trim();
      if (!url) throw new UsageError(`${from} is not set: export the database URL there, or use --url-env NAME or --url-file FILE`);
    }
    // The whole URL is a secret too: a driver may echo a part of it in any form.
    secrets.push(...postgresSecrets(url));
    checkPostgresUrl(url, from);
    return judgePostgres(await readPostgresFacts(url, deadline));
  });
}

function tlsCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      "server-name": { type: "string" },
      ca: { type: "string" },
      cert: { type: "string" },
      key: { type: "string" },
      secret: { type: "string" },
      connect: { type: "string" },
      "min-days": { type: "string" },
    },
  });
  if (values.help) return io.out(TLS_HELP), 0;
  usageCheck(positionals, 0, "rigging preflight tls --server-name NAME [--ca FILE] [--cert FILE [--key FILE] | --secret FILE] [--connect URL]");
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout);
  const serverName = values["server-name"];
  if (serverName === undefined) throw new UsageError("--server-name NAME is required: the name the Runner verifies (its serverName, or the Server's publicHost)");
  if (!(isIP(serverName) || (serverName.length <= 253 && DNS1123_SUBDOMAIN.test(serverName.toLowerCase())))) throw new UsageError(`--server-name ${JSON.stringify(printable(serverName))}: expected a DNS name or an IP address`);
  if (values.secret !== undefined && (values.cert !== undefined || values.key !== undefined)) throw new UsageError("give --secret, or --cert and --key, not both");
  if (values.key !== undefined && values.cert === undefined) throw new UsageError("--key needs --cert: the certificate the key belongs to");
  if (values.secret === undefined && values.cert === undefined && values.connect === undefined) throw new UsageError("nothing to check: give --secret FILE, --cert FILE [--key FILE], or --connect URL (see --help)");
  const minDays = values["min-days"] === undefined ? 14 : /^\d{1,5}$/.test(values["min-days"]) ? Number(values["min-days"]) : NaN;
  if (!Number.isInteger(minDays)) throw new UsageError(`--min-days ${JSON.stringify(printable(values["min-days"]!))}: expected a whole number of days`);
  const connect = values.connect === undefined ? undefined : httpsTarget(values.connect);
  return runChecks(io, connect ? `https://${connect.host}` : "the certificate", format, timeout, async (deadline, secrets) => {
    const { handshake, judgeChain, judgeProtocol, parseCertificates } = await import("../preflight/tls.ts");
    const expect: TlsExpectations = { serverName, minDays, now: new Date() };
    if (values.ca !== undefined) expect.ca = parseCertificates(await readMaterial(values.ca, "ca.crt", deadline, secrets, false), values.ca);
    let chain;
    if (values.secret !== undefined) {
      const exported = await readExport(values.secret, deadline);
      if (exported.kind !== "Secret") throw new UsageError(`${printable(values.secret)}: holds a ConfigMap; the Server's certificate is in its kubernetes.io/tls Secret`);
      const keyPem = exportKey(exported, "tls.key").toString("utf8");
      secrets.push(keyPem);
      chain = parseCertificates(exportKey(exported, "tls.crt").toString("utf8"), `${values.secret} (tls.crt)`);
      expect.key = privateKey(keyPem, `${values.secret} (tls.key)`);
    } else if (values.cert !== undefined) {
      chain = parseCertificates(await readMaterial(values.cert, "tls.crt", deadline, secrets, false), values.cert);
      if (values.key !== undefined) expect.key = privateKey(await readMaterial(values.key, "tls.key", deadline, secrets, true), values.key);
    }
    const results = chain ? judgeChain(chain, expect, false) : [];
    if (connect) {
      const shake = await handshake(connect, serverName, deadline);
      results.push(judgeProtocol(shake), ...judgeChain(shake.chain, expect, true));
      if (chain) {
        const same = shake.chain[0].fingerprint256 === chain[0].fingerprint256;
        results.push(
          same
            ? { id: "CS-08", check: "live certificate", outcome: "pass", message: "the live Server presents the certificate given" }
            : {
                id: "CS-08",
                check: "live certificate",
                outcome: "warn",
                message: `the live Server presents another certificate (serial ${shake.chain[0].serialNumber}) than the one given (serial ${chain[0].serialNumber})`,
                fix: "the Server reads its certificate at start: restart it after renewing the Secret, and check that nothing in front terminates TLS (D6)",
              },
        );
      }
    }
    return results;
  });
}

/** `--connect URL`: https://host[:port], nothing else. */
function httpsTarget(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--connect ${JSON.stringify(printable(text))}: expected https://host[:port]`);
  }
  if (url.protocol !== "https:") throw new UsageError(`--connect: expected an https:// URL, got ${printable(url.protocol)}//`);
  if (url.username || url.password) throw new UsageError("--connect: the URL carries credentials; the TLS check needs none");
  return url;
}

/**
 * PEM from a file, or from a Secret or ConfigMap export (its `key`).
 * A secret file's content joins the secrets, whatever it holds.
 */
async function readMaterial(file: string, key: string, deadline: Deadline, secrets: string[], secret: boolean): Promise<string> {
  const text = decode(await readSecretFile(file, deadline, 1024 * 1024), file);
  if (secret) secrets.push(text);
  if (text.includes("-----BEGIN ")) return text;
  let exported: ObjectExport;
  try {
    exported = await readExport(file, deadline);
  } catch {
    throw new UsageError(`${printable(file)}: holds neither PEM nor a Secret or ConfigMap export`);
  }
  const keys = [...exported.data.keys()];
  const value = exportKey(exported, keys.length === 1 ? keys[0] : key).toString("utf8");
  if (secret) secrets.push(value);
  return value;
}

function privateKey(pem: string, from: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new UsageError(`${printable(from)}: does not hold a PEM private key`);
  }
}

function natsCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      user: { type: "string" },
      secret: { type: "string" },
      "secret-key": { type: "string" },
      "password-file": { type: "string" },
      "password-env": { type: "string" },
      ca: { type: "string" },
    },
  });
  if (values.help) return io.out(NATS_HELP), 0;
  const usage = "rigging preflight nats URL (--secret FILE | --password-file FILE | --password-env NAME)";
  if (positionals.length === 0) throw new UsageError(`the NATS URL is missing; usage: ${usage}`);
  usageCheck(positionals, 1, usage);
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout);
  const url = natsTarget(positionals[0]);
  const sources = (["secret", "password-file", "password-env"] as const).filter((s) => values[s] !== undefined);
  if (sources.length === 0) throw new UsageError("the password is missing: give --secret FILE (a kubectl get secret -o yaml export), --password-file FILE or --password-env NAME");
  if (sources.length > 1) throw new UsageError(`give one password source, not ${sources.map((s) => `--${s}`).join(" and ")}`);
  if (values["secret-key"] !== undefined && values.secret === undefined) throw new UsageError("--secret-key needs --secret");
  const user = values.user ?? "compass";
  if (!/^[A-Za-z0-9][-_.A-Za-z0-9]{0,62}$/.test(user)) throw new UsageError(`--user ${JSON.stringify(printable(user))}: expected a NATS user name such as compass`);
  return runChecks(io, `NATS at ${url.host}`, format, timeout, async (deadline, secrets) => {
    let password: string | undefined;
    if (values.secret !== undefined) {
      const exported = await readExport(values.secret, deadline);
      password = exportKey(exported, values["secret-key"] ?? "password").toString("utf8");
      secrets.push(password);
    } else if (values["password-file"] !== undefined) {
      const text = decode(await readSecretFile(values["password-file"], deadline), values["password-file"]);
      secrets.push(text);
      password = text.split(/\r?\n/)[0];
    } else {
      const name = values["password-env"]!;
      password = process.env[name];
      if (!password) throw new UsageError(`$${printable(name)} is not set: export the NATS password there, or use --secret FILE or --password-file FILE`);
    }
    secrets.push(password);
    if (!password) throw new UsageError("the password is empty");
    const ca = values.ca === undefined ? undefined : await readMaterial(values.ca, "ca.crt", deadline, secrets, false);
    const { checkNats } = await import("../preflight/nats.ts");
    return checkNats({ url, user, password, ca }, deadline);
  });
}

/** The NATS URL: nats:// or tls://, a host, and no credentials on the command line. */
function natsTarget(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // worded below
  }
  if (url && (url.username || url.password)) {
    throw new UsageError("the NATS URL carries credentials, which the command line must not: give the user with --user and the password with --secret FILE, --password-file FILE or --password-env NAME");
  }
  const problem = natsUrlProblem(text);
  if (problem || !url) throw new UsageError(`the NATS URL ${problem ?? "is not valid"}: give nats://host:port or tls://host:port`);
  return url;
}
