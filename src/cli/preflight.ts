// `rigging preflight`: what manifests cannot show, asked of live systems.
// Secrets never come from the command line and never reach the output.
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { closest } from "../values/values.ts";
import { DATABASE_URL_ENV } from "../systems/compass-server/ports.ts";
import { parseFormat, parseTimeout, readSecretFile } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { decode } from "../preflight/exports.ts";
import { argumentError, deprecatedShortFormat } from "./args.ts";
import type { Io } from "./io.ts";
import { NATS_HELP, natsCommand } from "./preflight-nats.ts";
import { COMMON_HELP, COMMON_OPTIONS, errorEntry, runChecks, usageCheck } from "./preflight-run.ts";
import { TLS_HELP, tlsCommand } from "./preflight-tls.ts";

export const PREFLIGHT_HELP = `Usage: rigging preflight postgres|tls|nats [options]

Check, before applying, what manifests cannot show:
  postgres   the Compass Server's database (CS-12, D3)
  tls        the Server's certificate and key, on file and live (CS-08, CR-14; D6)
  nats       password auth and JetStream on NATS (CS-07, CS-13; D5)

Run 'rigging preflight CHECK --help' for its options.

${COMMON_HELP}`;

const POSTGRES_HELP = `Usage: rigging preflight postgres [--url-env NAME | --url-file FILE] [options]

Check the Compass Server's database before applying (CS-12): PostgreSQL 16
or later, owned by a superuser or by a role with CREATEROLE and BYPASSRLS.
Manifests cannot show this; the server is asked with one read-only query.

The connection URL (postgres://user:password@host:port/database) is a
secret: it is read from the environment variable ${DATABASE_URL_ENV} (the
one the Server reads), from another with --url-env, or from a file with
--url-file (its first line, at most 64 KiB read), never from the command
line, and it is never printed.

  kubectl get secret compass-database -n compass -o jsonpath='{.data.dsn}' \\
    | base64 -d > /dev/shm/compass-db-url
  rigging preflight postgres --url-file /dev/shm/compass-db-url

Options:
      --url-env NAME   read the URL from the environment variable NAME
      --url-file FILE  read the URL from FILE

${COMMON_HELP}`;

interface Subcommand {
  run(args: string[], io: Io): number | Promise<number>;
  help: string;
  /** The design decision it checks: the id of its JSON error entry. */
  decision: string;
}

const CHECKS: Record<string, Subcommand> = {
  postgres: { run: postgresCommand, help: POSTGRES_HELP, decision: "D3" },
  tls: { run: tlsCommand, help: TLS_HELP, decision: "D6" },
  nats: { run: natsCommand, help: NATS_HELP, decision: "D5" },
};

export function preflightCommand(args: string[], io: Io): number | Promise<number> {
  const [what, ...rest] = args;
  if (what === "-h" || what === "--help") return io.out(PREFLIGHT_HELP), 0;
  const names = Object.keys(CHECKS).join("|");
  if (what === undefined || what.startsWith("-")) throw new UsageError(`name what to check first: rigging preflight ${names} (see --help)`);
  const check = CHECKS[what];
  if (!check) {
    const near = closest(what, Object.keys(CHECKS));
    throw new UsageError(`preflight checks ${names}, not ${printable(JSON.stringify(what))}${near ? ` (did you mean ${near}?)` : ""}`);
  }
  deprecatedShortFormat(rest, `preflight ${what}`, io.err);
  try {
    return check.run(rest, io);
  } catch (error) {
    // An option error names the check and its own options (--url-fil: did you mean --url-file?).
    const refused = argumentError(error, `preflight ${what}`, check.help);
    if (refused instanceof UsageError && asksForJson(rest)) io.out(errorEntry(check.decision, "usage", printable(refused.message)));
    throw refused;
  }
}

/** Whether `args` ask for --format json, read leniently: they may be what was just refused. */
function asksForJson(args: string[]): boolean {
  try {
    return parseArgs({ args, strict: false, allowPositionals: true, options: COMMON_OPTIONS }).values.format === "json";
  } catch {
    return false;
  }
}

function postgresCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...COMMON_OPTIONS, "url-env": { type: "string" }, "url-file": { type: "string" } },
  });
  if (values.help) return io.out(POSTGRES_HELP), 0;
  usageCheck(positionals, 0, "rigging preflight postgres [--url-env NAME | --url-file FILE]");
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout);
  const env = values["url-env"];
  const file = values["url-file"];
  if (env !== undefined && file !== undefined) throw new UsageError("give --url-env or --url-file, not both");
  return runChecks(io, { what: "the database", decision: "D3" }, format, timeout, async (deadline, secrets) => {
    const { checkPostgresUrl, judgePostgres, postgresSecrets, readPostgresFacts } = await import("../preflight/postgres.ts");
    let url: string | undefined;
    let from: string;
    if (file !== undefined) {
      from = printable(file);
      url = decode(await readSecretFile(file, deadline), file)
        .split(/\r?\n/)[0]
        .trim();
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
    return judgePostgres(await readPostgresFacts(url, deadline, secrets));
  });
}
