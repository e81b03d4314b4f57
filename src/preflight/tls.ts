// D6 and P9: the Server's certificate judged as the Runner verifies it, from
// the Secret's files or a live handshake (which also checks TLS 1.3).
import { X509Certificate, type KeyObject } from "node:crypto";
import { connect, rootCertificates, type PeerCertificate, type TLSSocket } from "node:tls";
import { UsageError } from "../core/errors.ts";
import { ipFamily } from "../k8s/ip.ts";
import type { CheckResult, Deadline } from "./common.ts";
import { printable } from "../core/printable.ts";

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const ANY_EXTENDED_KEY_USAGE = "2.5.29.37.0";
const DAY_MS = 24 * 60 * 60 * 1000;
/** Longer chains than this are refused rather than walked. */
const MAX_CHAIN = 10;

export interface TlsExpectations {
  serverName: string;
  /** The in-cluster Service host a Runner without P9 dials and verifies (CS-14). */
  serviceHost?: string;
  /** The Runner's serverCA; undefined means the system's roots, as the Runner does without one. */
  ca?: X509Certificate[];
  /** The Secret's key, when given: it must belong to the certificate. */
  key?: KeyObject;
  minDays: number;
  now: Date;
}

/** Every certificate of a PEM bundle, in order; an error names the file, never its content. */
export function parseCertificates(pem: string, from: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new UsageError(`${printable(from)}: holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  if (blocks.length > MAX_CHAIN * 20) throw new UsageError(`${printable(from)}: holds ${blocks.length} certificates, more than a CA bundle holds`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new UsageError(`${printable(from)}: certificate ${i + 1} is not a valid X.509 certificate`);
    }
  });
}

/** Judges a chain (leaf first) as the Runner would meet it. */
export function judgeChain(chain: readonly X509Certificate[], expect: TlsExpectations, live: boolean): CheckResult[] {
  const leaf = chain[0];
  const prefix = live ? "live " : "";
  const results: CheckResult[] = [];
  const who = live ? "the live Server's certificate" : "the certificate";

  const anchors = expect.ca ?? rootCertificates.map((pem) => new X509Certificate(pem));
  const problem = chainProblem(chain, anchors, expect.now);
  const caName = expect.ca ? "the Runner's serverCA" : "the system's root CAs";
  results.push(
    problem === undefined
      ? { id: "CR-14", check: `${prefix}chain`, outcome: "pass", message: `${who} verifies to ${caName}` }
      : {
          id: "CR-14",
          check: `${prefix}chain`,
          outcome: "fail",
          message: `${who} does not verify to ${caName}: ${problem}`,
          fix: expect.ca
            ? "issue the certificate from the CA the Runner trusts (serverCA), with its intermediates in tls.crt, or give the Runner the CA that issued it"
            : "issue the certificate from a public CA, or give the Runner the issuing CA as serverCA",
        },
  );

  const matched = ipFamily(expect.serverName) ? leaf.checkIP(expect.serverName) : leaf.checkHost(expect.serverName, { subject: "never" });
  results.push(
    matched !== undefined
      ? { id: "CR-14", check: `${prefix}name`, outcome: "pass", message: `${who} names ${printable(expect.serverName)}` }
      : {
          id: "CR-14",
          check: `${prefix}name`,
          outcome: "fail",
          message: `${who} names ${namesOf(leaf)}, not ${printable(expect.serverName)} (the Runner verifies serverName against the subject alternative names only)`,
          fix: `issue the certificate with ${printable(expect.serverName)} among its DNS names, or set the Runner's serverName to a name it carries`,
        },
  );

  if (expect.serviceHost !== undefined && expect.serviceHost !== expect.serverName) results.push(serviceHostResult(leaf, expect.serviceHost, who, prefix));

  const from = new Date(leaf.validFrom);
  const to = new Date(leaf.validTo);
  const daysLeft = Math.floor((to.getTime() - expect.now.getTime()) / DAY_MS);
  const renew = "renew the certificate and update the Secret; the Server reads it at start, so restart it";
  results.push(
    expect.now < from
      ? {
          id: "CS-08",
          check: `${prefix}validity`,
          outcome: "fail",
          message: `${who} is not valid before ${iso(from)}`,
          fix: "check the clocks, or issue a certificate valid from now",
        }
      : expect.now > to
        ? { id: "CS-08", check: `${prefix}validity`, outcome: "fail", message: `${who} expired on ${iso(to)}`, fix: renew }
        : daysLeft < expect.minDays
          ? {
              id: "CS-08",
              check: `${prefix}validity`,
              outcome: "fail",
              message: `${who} expires on ${iso(to)}, in ${daysLeft} day(s), within --min-days ${expect.minDays}`,
              fix: renew,
            }
          : { id: "CS-08", check: `${prefix}validity`, outcome: "pass", message: `${who} is valid until ${iso(to)} (${daysLeft} days)` },
  );

  const usages = leaf.keyUsage as string[] | undefined;
  if (usages !== undefined && usages.length > 0 && !usages.includes(SERVER_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE)) {
    results.push({
      id: "CS-08",
      check: `${prefix}usage`,
      outcome: "fail",
      message: `${who} is not for server authentication: its extended key usage lacks serverAuth`,
      fix: "issue the certificate with extendedKeyUsage serverAuth",
    });
  }

  if (expect.key) {
    const matches = leaf.checkPrivateKey(expect.key);
    results.push(
      matches
        ? {
            id: "CS-08",
            check: `${prefix}key`,
            outcome: "pass",
            message: `the key ${live ? "in the Secret belongs to the live Server's certificate" : "belongs to the certificate"}`,
          }
        : {
            id: "CS-08",
            check: `${prefix}key`,
            outcome: "fail",
            message: live ? "the key in the Secret does not belong to the certificate the live Server presents" : "the key does not belong to the certificate",
            fix: live
              ? "the Server serves another certificate than the Secret holds: restart it after updating the Secret, or check that nothing else terminates TLS (D6)"
              : "put the certificate and its own key in the Secret (tls.crt and tls.key of one issuance)",
          },
    );
  }
  return results;
}

/** CS-14: without P9 the Runner verifies the host it dials, so the certificate names it too. */
function serviceHostResult(leaf: X509Certificate, host: string, who: string, prefix: string): CheckResult {
  if (leaf.checkHost(host, { subject: "never" }) !== undefined)
    return { id: "CS-14", check: `${prefix}service host`, outcome: "pass", message: `${who} names ${printable(host)}, the Service a Runner without P9 dials` };
  return {
    id: "CS-14",
    check: `${prefix}service host`,
    outcome: "fail",
    message: `${who} names ${namesOf(leaf)}, not ${printable(host)}: a Runner without P9 dials that Service and verifies the certificate for it`,
    fix: `issue the certificate with ${printable(host)} among its DNS names too, or run a Runner with P9 (designed.P9, --server-name)`,
  };
}

/** Why `chain` does not reach one of `anchors`, or undefined when it does. */
function chainProblem(chain: readonly X509Certificate[], anchors: readonly X509Certificate[], now: Date): string | undefined {
  const trusted = (cert: X509Certificate) => anchors.some((a) => a.fingerprint256 === cert.fingerprint256);
  let current = chain[0];
  const pool = chain.slice(1);
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    if (trusted(current)) return undefined;
    const anchor = anchors.find((a) => issued(current, a));
    if (anchor) return anchor.ca ? expiryProblem(anchor, "the CA", now) : `the issuer ${subjectOf(anchor)} is not a CA certificate`;
    const next = pool.find((c) => c !== current && issued(current, c));
    if (!next)
      return `no certificate given issued ${subjectOf(current)}${depth === 0 ? "" : " (the last intermediate in tls.crt)"}; its issuer is ${issuerOf(current)}`;
    if (!next.ca) return `the intermediate ${subjectOf(next)} is not a CA certificate`;
    const expired = expiryProblem(next, "the intermediate", now);
    if (expired) return expired;
    current = next;
  }
  return `the chain is longer than ${MAX_CHAIN} certificates`;
}

function issued(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

function expiryProblem(cert: X509Certificate, what: string, now: Date): string | undefined {
  if (now > new Date(cert.validTo)) return `${what} ${subjectOf(cert)} expired on ${iso(new Date(cert.validTo))}`;
  if (now < new Date(cert.validFrom)) return `${what} ${subjectOf(cert)} is not valid before ${iso(new Date(cert.validFrom))}`;
  return undefined;
}

function subjectOf(cert: X509Certificate): string {
  return printable(cert.subject.replace(/\n/g, ", ")) || "(no subject)";
}

function issuerOf(cert: X509Certificate): string {
  return printable(cert.issuer.replace(/\n/g, ", ")) || "(no issuer)";
}

function namesOf(cert: X509Certificate): string {
  const names = (cert.subjectAltName ?? "")
    .split(", ")
    .filter((n) => n.startsWith("DNS:") || n.startsWith("IP Address:"))
    .map((n) => n.replace(/^DNS:|^IP Address:/, ""));
  return names.length > 0 ? printable(names.slice(0, 8).join(", ") + (names.length > 8 ? ", ..." : "")) : "no DNS name or IP address";
}

function iso(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export interface Handshake {
  protocol: string;
  chain: X509Certificate[];
  /** Whether a second handshake offering at most TLS 1.2 succeeded. */
  acceptsTls12: boolean;
}

/** Dials `url` offering TLS 1.2-1.3 and then 1.2 only; verification is left to judgeChain so a fault is named. */
export async function handshake(url: URL, serverName: string, deadline: Deadline): Promise<Handshake> {
  const port = Number(url.port || 443);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const servername = ipFamily(serverName) ? undefined : serverName;
  const first = await dial({ host, port, servername, minVersion: "TLSv1.2", maxVersion: "TLSv1.3" }, deadline);
  const protocol = first.getProtocol() ?? "unknown";
  const chain = peerChain(first.getPeerCertificate(true));
  first.destroy();
  if (chain.length === 0) throw new UsageError(`${url.host}: the server presented no certificate`);
  let acceptsTls12 = protocol === "TLSv1.2";
  if (!acceptsTls12) {
    acceptsTls12 = await dial({ host, port, servername, minVersion: "TLSv1.2", maxVersion: "TLSv1.2" }, deadline).then(
      (socket) => (socket.destroy(), true),
      (error) => {
        if (error instanceof UsageError) throw error; // the deadline
        return false;
      },
    );
  }
  return { protocol, chain, acceptsTls12 };
}

function dial(
  options: { host: string; port: number; servername?: string; minVersion: "TLSv1.2"; maxVersion: "TLSv1.2" | "TLSv1.3" },
  deadline: Deadline,
): Promise<TLSSocket> {
  let socket: TLSSocket | undefined;
  const done = new Promise<TLSSocket>((resolve, reject) => {
    socket = connect({ ...options, rejectUnauthorized: false, ALPNProtocols: ["h2", "http/1.1"] });
    socket.once("secureConnect", () => resolve(socket!));
    socket.once("error", (error) => (socket!.destroy(), reject(error)));
    socket.once("close", () => reject(new Error("the server closed the connection during the handshake")));
  });
  return deadline.race(done, () => socket?.destroy());
}

/** The certificates a peer presented, leaf first, each once. */
function peerChain(peer: PeerCertificate & { issuerCertificate?: PeerCertificate }): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  let current: (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined = peer;
  while (current?.raw && out.length < MAX_CHAIN) {
    const cert = new X509Certificate(current.raw);
    if (seen.has(cert.fingerprint256)) break;
    seen.add(cert.fingerprint256);
    out.push(cert);
    current = current.issuerCertificate;
  }
  return out;
}

/** The protocol results of a live handshake (CS-08: the Server's minimum is TLS 1.3). */
export function judgeProtocol(shake: Handshake): CheckResult {
  const fix = "let the Server terminate TLS itself (D6): nothing in front of it may terminate TLS; a TCP load balancer passes it through";
  if (shake.protocol !== "TLSv1.3") {
    return {
      id: "CS-08",
      check: "live protocol",
      outcome: "fail",
      message: `the endpoint negotiated ${shake.protocol.replace("v", " ")}; the Compass Server's minimum is TLS 1.3, so something else answers here`,
      fix,
    };
  }
  if (shake.acceptsTls12) {
    return {
      id: "CS-08",
      check: "live protocol",
      outcome: "fail",
      message: "the endpoint speaks TLS 1.3 but accepts a TLS 1.2 handshake too; the Compass Server refuses anything below 1.3, so something else answers here",
      fix,
    };
  }
  return { id: "CS-08", check: "live protocol", outcome: "pass", message: "the endpoint speaks TLS 1.3 and refuses TLS 1.2, as the Compass Server does" };
}
