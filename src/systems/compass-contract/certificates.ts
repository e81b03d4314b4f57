// What the TLS pair reads of a certificate: whether a bundle signs a chain, and a leaf's names.
import { X509Certificate } from "node:crypto";

const BEGIN = "-----BEGIN CERTIFICATE-----";
const END = "-----END CERTIFICATE-----";
/** More than a CA bundle holds: the rest is not read. */
const MAX_CERTIFICATES = 200;

/** The certificates of a PEM text, in order; undefined when none parses. Blocks are found by indexOf, in one pass. */
export function certificatesOf(pem: string): X509Certificate[] | undefined {
  const out: X509Certificate[] = [];
  let from = 0;
  while (out.length < MAX_CERTIFICATES) {
    const start = pem.indexOf(BEGIN, from);
    const end = start < 0 ? -1 : pem.indexOf(END, start + BEGIN.length);
    if (end < 0) break;
    from = end + END.length;
    try {
      out.push(new X509Certificate(pem.slice(start, from)));
    } catch {
      // A block that does not parse is no certificate the Runner could use either.
    }
  }
  return out.length > 0 ? out : undefined;
}

/** A Secret's value as text: `data` is base64, `stringData` is the text. */
export function secretText(value: string, encoded: boolean): string {
  return encoded ? Buffer.from(value, "base64").toString("utf8") : value;
}

function issued(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/** Whether the bundle anchors the chain (leaf first): some certificate of it is in the bundle or issued by one, every link before it verified. */
export function signs(bundle: readonly X509Certificate[], chain: readonly X509Certificate[]): boolean {
  for (let i = 0; i < chain.length; i++) {
    if (i > 0 && !issued(chain[i - 1], chain[i])) return false;
    if (bundle.some((ca) => ca.fingerprint256 === chain[i].fingerprint256 || issued(chain[i], ca))) return true;
  }
  return false;
}

/** Whether the leaf carries `host` as a DNS name (wildcards as TLS reads them) or an IP address. */
export function names(leaf: X509Certificate, host: string): boolean {
  try {
    return leaf.checkHost(host, { subject: "never" }) !== undefined || leaf.checkIP(host) !== undefined;
  } catch {
    return false;
  }
}

/** The leaf's DNS names and addresses, the first eight, for a message. */
export function namesOf(leaf: X509Certificate): string {
  const all = (leaf.subjectAltName ?? "")
    .split(", ")
    .filter((n) => n.startsWith("DNS:") || n.startsWith("IP Address:"))
    .map((n) => n.slice(n.indexOf(":") + 1));
  return all.length === 0 ? "no DNS name or address" : all.slice(0, 8).join(", ") + (all.length > 8 ? ", ..." : "");
}
