// `rigging preflight postgres`: CS-12 against the live database, before the
// Server is applied. The URL is a secret, so it is read from the
// environment or a file, never from the command line, and never printed.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { DATABASE_URL_ENV } from "../profiles/compass-server/ports.ts";
import { judgePostgres, readPostgresFacts, type PreflightResult } from "../profiles/compass-server/preflight.ts";
import { paint, type Io } from "./io.ts";

export const PREFLIGHT_HELP = `Usage: rigging preflight postgres [--url-env NAME | --url-file FILE] [--format text|json]

Check the Compass Server's database before applying (CS-12): PostgreSQL 16
or later, owned by a superuser or by a role with CREATEROLE and BYPASSRLS.
Manifests cannot show this; the server is asked with one read-only query.

The connection URL (postgres://user:password@host:port/database) is a
secret: it is read from the environment variable ${DATABASE_URL_ENV} (the
one the Server reads), from another with --url-env, or from a file with
--url-file, never from the command line, and it is never printed.

  kubectl get secret compass-database -n compass -o jsonpath='{.data.url}' \\
    | base64 -d > /dev/shm/compass-db-url
  rigging preflight postgres --url-file /dev/shm/compass-db-url

Options:
      --url-env NAME   read the URL from the environment variable NAME
      --url-file FILE  read the URL from FILE (its first line)
  -f, --format FMT     text (default) or json
  -h, --help           show this help

Exit codes: 0 every check passes (warnings allowed); 1 a check fails;
2 usage error, no URL, or the server cannot be reached.
`;

export function preflightCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "url-env": { type: "string" },
      "url-file": { type: "string" },
      format: { type: "string", short: "f", default: "text" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return io.out(PREFLIGHT_HELP), 0;
  if (positionals.length !== 1 || positionals[0] !== "postgres") throw new UsageError("preflight checks one thing: rigging preflight postgres (see --help)");
  if (values.format !== "text" && values.format !== "json") throw new UsageError(`--format ${values.format}: expected text or json`);
  const format = values.format;
  const url = connectionUrl(values["url-env"], values["url-file"]);
  return readPostgresFacts(url).then(
    (facts) => {
      const results = judgePostgres(facts);
      io.out(format === "json" ? JSON.stringify(results, null, 2) + "\n" : results.map((r) => line(r, io)).join(""));
      return results.some((r) => r.outcome === "fail") ? 1 : 0;
    },
    (error: unknown) => {
      // Driver messages name the host, user or cause, never the password.
      throw new UsageError(`cannot check the database: ${(error as Error)?.message ?? String(error)}`);
    },
  );
}

function line(r: PreflightResult, io: Io): string {
  const label = r.outcome === "pass" ? paint(io, 32, "ok  ") : r.outcome === "warn" ? paint(io, 33, "warn") : paint(io, 31, "FAIL");
  return `${label} ${r.id} ${r.check}: ${r.message}${r.fix ? ` (fix: ${r.fix})` : ""}\n`;
}

function connectionUrl(env: string | undefined, file: string | undefined): string {
  if (env !== undefined && file !== undefined) throw new UsageError("give --url-env or --url-file, not both");
  let url: string | undefined;
  let from: string;
  if (file !== undefined) {
    from = file;
    try {
      url = readFileSync(file, "utf8").split(/\r?\n/)[0].trim();
    } catch (error) {
      throw new UsageError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  } else {
    const name = env ?? DATABASE_URL_ENV;
    from = `$${name}`;
    url = process.env[name]?.trim();
    if (!url) throw new UsageError(`$${name} is not set: export the database URL there, or use --url-env NAME or --url-file FILE`);
  }
  // Checked here so that a malformed URL is never echoed by a parser.
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new UsageError(`${from}: does not hold a URL such as postgres://user:password@host:5432/database`);
  }
  if (protocol !== "postgres:" && protocol !== "postgresql:") throw new UsageError(`${from}: holds a ${protocol}// URL, expected postgres:// or postgresql://`);
  return url;
}
