// `rigging preflight nats URL`: password auth and JetStream (CS-07, CS-13, D5),
// the password never from the command line.
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { parseFormat, parseTimeout, readSecretFile } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { decode, exportKey, readExport } from "../preflight/exports.ts";
import type { Io } from "./io.ts";
import { COMMON_HELP, COMMON_OPTIONS, readMaterial, runChecks, usageCheck } from "./preflight-run.ts";

export const NATS_HELP = `Usage: rigging preflight nats URL [--user NAME]
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

${COMMON_HELP}`;

export function natsCommand(args: string[], io: Io): number | Promise<number> {
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
  if (sources.length === 0)
    throw new UsageError("the password is missing: give --secret FILE (a kubectl get secret -o yaml export), --password-file FILE or --password-env NAME");
  if (sources.length > 1) throw new UsageError(`give one password source, not ${sources.map((s) => `--${s}`).join(" and ")}`);
  if (values["secret-key"] !== undefined && values.secret === undefined) throw new UsageError("--secret-key needs --secret");
  const user = values.user ?? "compass";
  if (!/^[A-Za-z0-9][-_.A-Za-z0-9]{0,62}$/.test(user))
    throw new UsageError(`--user ${printable(JSON.stringify(user))}: expected a NATS user name such as compass`);
  return runChecks(io, { what: `NATS at ${url.host}`, decision: "D5" }, format, timeout, async (deadline, secrets, output) => {
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
    return checkNats({ url, user, password, ca }, deadline, output);
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
    throw new UsageError(
      "the NATS URL carries credentials, which the command line must not: give the user with --user and the password with --secret FILE, --password-file FILE or --password-env NAME",
    );
  }
  const problem = natsUrlProblem(text);
  if (problem || !url) throw new UsageError(`the NATS URL ${problem ?? "is not valid"}: give nats://host:port or tls://host:port`);
  return url;
}

/** Why a NATS URL given on the command line is unfit, if it is: credentials never travel there. */
function natsUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "nats:" && url.protocol !== "tls:") return `uses ${url.protocol.replace(":", "")}://, not nats:// or tls://`;
  if (url.username || url.password) return "carries userinfo: give the password with --secret, --password-file or --password-env";
  if (!url.hostname) return "has no host";
  if ((url.pathname && url.pathname !== "/") || url.search || url.hash) return "carries a path, query or fragment";
  return undefined;
}
