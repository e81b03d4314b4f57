// `rigging preflight tls`: the Server's certificate and key, from files or a
// live handshake, judged as the Runner meets them (CS-08, CR-14, D6).
import { createPrivateKey, type KeyObject } from "node:crypto";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { ipFamily } from "../k8s/ip.ts";
import { DNS1123_SUBDOMAIN } from "../k8s/names.ts";
import { parseFormat, parseTimeout } from "../preflight/common.ts";
import { printable } from "../core/printable.ts";
import { exportKey, readExport } from "../preflight/exports.ts";
import type { TlsExpectations } from "../preflight/tls.ts";
import type { Io } from "./io.ts";
import { COMMON_HELP, COMMON_OPTIONS, readMaterial, runChecks, usageCheck } from "./preflight-run.ts";

export const TLS_HELP = `Usage: rigging preflight tls --server-name NAME [--service-host HOST] [--ca FILE]
         [--cert FILE [--key FILE] | --secret FILE] [--connect URL] [options]

Check the certificate the Server terminates TLS with (D6, CS-08) as the
Runner will meet it (CR-14): it verifies to the Runner's serverCA, it names
serverName, it is valid now and for --min-days more, and the key belongs
to it. With --connect, dial the live Server with SNI serverName and judge
the certificate it presents the same way; the Server's minimum is TLS 1.3,
so an endpoint that speaks TLS 1.2 is something else in front of it.
With --service-host, the certificate must name that host too: a Runner
without P9 (--server-name) dials the Server's in-cluster Service and
verifies the certificate for the Service host (CS-14).

  kubectl get secret compass-server-tls -n compass -o yaml > /dev/shm/tls.yaml
  rigging preflight tls --secret /dev/shm/tls.yaml --ca runner-ca.pem \\
    --server-name compass.example.com --connect https://compass.example.com

Options:
      --server-name NAME  the name the Runner verifies (its serverName)
      --service-host HOST the Service host a Runner without P9 dials and
                          verifies, such as compass-server.compass.svc
      --ca FILE           the Runner's serverCA: PEM, or a ConfigMap or Secret
                          export (key ca.crt); without it, the system's roots
      --cert FILE         the Server's certificate chain (PEM, leaf first)
      --key FILE          its private key (PEM)
      --secret FILE       the kubernetes.io/tls Secret export (tls.crt, tls.key)
      --connect URL       https://host[:port] of the live Server
      --min-days N        fail a certificate expiring within N days (default 14)

${COMMON_HELP}`;

export function tlsCommand(args: string[], io: Io): number | Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      "server-name": { type: "string" },
      "service-host": { type: "string" },
      ca: { type: "string" },
      cert: { type: "string" },
      key: { type: "string" },
      secret: { type: "string" },
      connect: { type: "string" },
      "min-days": { type: "string" },
    },
  });
  if (values.help) return io.out(TLS_HELP), 0;
  usageCheck(
    positionals,
    0,
    "rigging preflight tls --server-name NAME [--service-host HOST] [--ca FILE] [--cert FILE [--key FILE] | --secret FILE] [--connect URL]",
  );
  const format = parseFormat(values.format);
  const timeout = parseTimeout(values.timeout);
  const serverName = values["server-name"];
  if (serverName === undefined)
    throw new UsageError("--server-name NAME is required: the name the Runner verifies (its serverName, or the Server's publicHost)");
  if (!(ipFamily(serverName) || (serverName.length <= 253 && DNS1123_SUBDOMAIN.test(serverName.toLowerCase()))))
    throw new UsageError(`--server-name ${printable(JSON.stringify(serverName))}: expected a DNS name or an IP address`);
  const serviceHost = values["service-host"];
  if (serviceHost !== undefined && !(serviceHost.length <= 253 && DNS1123_SUBDOMAIN.test(serviceHost)))
    throw new UsageError(`--service-host ${printable(JSON.stringify(serviceHost))}: expected a lowercase DNS name such as compass-server.compass.svc`);
  if (values.secret !== undefined && (values.cert !== undefined || values.key !== undefined))
    throw new UsageError("give --secret, or --cert and --key, not both");
  if (values.key !== undefined && values.cert === undefined) throw new UsageError("--key needs --cert: the certificate the key belongs to");
  if (values.secret === undefined && values.cert === undefined && values.connect === undefined)
    throw new UsageError("nothing to check: give --secret FILE, --cert FILE [--key FILE], or --connect URL (see --help)");
  const minDays = values["min-days"] === undefined ? 14 : /^\d{1,5}$/.test(values["min-days"]) ? Number(values["min-days"]) : NaN;
  if (!Number.isInteger(minDays)) throw new UsageError(`--min-days ${printable(JSON.stringify(values["min-days"]!))}: expected a whole number of days`);
  const connect = values.connect === undefined ? undefined : httpsTarget(values.connect);
  return runChecks(io, connect ? `https://${connect.host}` : "the certificate", format, timeout, async (deadline, secrets) => {
    const { handshake, judgeChain, judgeProtocol, parseCertificates } = await import("../preflight/tls.ts");
    const expect: TlsExpectations = { serverName, minDays, now: new Date(), ...(serviceHost !== undefined ? { serviceHost } : {}) };
    if (values.ca !== undefined) expect.ca = parseCertificates(await readMaterial(values.ca, "ca.crt", deadline, secrets, false), values.ca);
    let chain;
    if (values.secret !== undefined) {
      const exported = await readExport(values.secret, deadline);
      if (exported.kind !== "Secret")
        throw new UsageError(`${printable(values.secret)}: holds a ConfigMap; the Server's certificate is in its kubernetes.io/tls Secret`);
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
    throw new UsageError(`--connect ${printable(JSON.stringify(text))}: expected https://host[:port]`);
  }
  if (url.protocol !== "https:") throw new UsageError(`--connect: expected an https:// URL, got ${printable(url.protocol)}//`);
  if (url.username || url.password) throw new UsageError("--connect: the URL carries credentials; the TLS check needs none");
  return url;
}

function privateKey(pem: string, from: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new UsageError(`${printable(from)}: does not hold a PEM private key`);
  }
}
