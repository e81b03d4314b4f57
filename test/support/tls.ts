// Certificates made by the test with the openssl command (EC P-256, fast to
// make): a root CA, an intermediate, and Server certificates with one fault
// each; and TLS servers from Node on 127.0.0.1 that present them.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { promisify } from "node:util";
import { tempDir } from "./cli.ts";

const exec = promisify(execFile);

export const SERVER_NAME = "compass.example.com";
/** The in-cluster Service host a Runner without P9 dials (kind: Compass's default serverAddr). */
export const SERVICE_HOST = "compass-server.compass.svc";

export interface Pem {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface TestPki {
  dir: string;
  /** The Runner's serverCA: the root. */
  caFile: string;
  root: Pem;
  intermediate: Pem;
  /** Leaf + intermediate, for compass.example.com, 90 days. */
  good: Pem;
  /** Like good, naming the Service host as well. */
  withService: Pem;
  /** Another good one (its own key): what a Server serves after a renewal. */
  renewed: Pem;
  wrongName: Pem;
  expired: Pem;
  /** Valid for 5 more days. */
  expiring: Pem;
  /** Issued by a CA the Runner does not trust. */
  untrusted: Pem;
  /** A key that belongs to none of them. */
  strayKeyFile: string;
}

/** Runs openssl without blocking the test's event loop. */
async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await exec("openssl", args, { cwd: dir });
  } catch (error) {
    const e = error as { code?: string | number; stderr?: string };
    if (e.code === "ENOENT") throw new Error("the openssl command is needed to make test certificates (npm run test:deps installs it)");
    throw new Error(`openssl ${args.join(" ")}: ${e.stderr}`);
  }
}

export async function makePki(): Promise<TestPki> {
  const dir = tempDir();
  const key = (name: string) => openssl(dir, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", `${name}.key`]);
  const pem = (name: string, chain: string[] = []): Pem => {
    const cert = [readFileSync(join(dir, `${name}.crt`), "utf8"), ...chain].join("");
    writeFileSync(join(dir, `${name}.chain.crt`), cert);
    return { cert, key: readFileSync(join(dir, `${name}.key`), "utf8"), certFile: join(dir, `${name}.chain.crt`), keyFile: join(dir, `${name}.key`) };
  };
  const ca = async (name: string, subject: string, issuer?: string) => {
    await key(name);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(ext, "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n");
    if (!issuer)
      await openssl(dir, [
        "req",
        "-x509",
        "-new",
        "-key",
        `${name}.key`,
        "-out",
        `${name}.crt`,
        "-subj",
        subject,
        "-days",
        "365",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
      ]);
    else {
      await openssl(dir, ["req", "-new", "-key", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
      await openssl(dir, [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${issuer}.crt`,
        "-CAkey",
        `${issuer}.key`,
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "365",
        "-extfile",
        ext,
      ]);
    }
  };
  // Each issuer keeps its own serial file, so leaves of one issuer are made one after another.
  const leaf = async (name: string, dns: string, issuer: string, days: number) => {
    await key(name);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(
      ext,
      `subjectAltName=${dns
        .split(",")
        .map((n) => `DNS:${n}`)
        .join(",")}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
    );
    await openssl(dir, ["req", "-new", "-key", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${dns.split(",")[0]}`]);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      `${issuer}.crt`,
      "-CAkey",
      `${issuer}.key`,
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      String(days),
      "-extfile",
      ext,
    ]);
  };
  await ca("root", "/CN=Compass Test Root");
  await ca("intermediate", "/CN=Compass Test Intermediate", "root");
  await ca("other-root", "/CN=Someone Else's Root");
  for (const [name, dns, days] of [
    ["good", SERVER_NAME, 90],
    ["renewed", SERVER_NAME, 90],
    ["with-service", `${SERVER_NAME},${SERVICE_HOST}`, 90],
    ["wrong-name", "other.example.org", 90],
    ["expired", SERVER_NAME, -1],
    ["expiring", SERVER_NAME, 5],
  ] as const) {
    await leaf(name, dns, "intermediate", days);
  }
  await leaf("untrusted", SERVER_NAME, "other-root", 90);
  await key("stray");
  const intermediate = pem("intermediate");
  return {
    dir,
    caFile: join(dir, "root.crt"),
    root: pem("root"),
    intermediate,
    good: pem("good", [intermediate.cert]),
    renewed: pem("renewed", [intermediate.cert]),
    withService: pem("with-service", [intermediate.cert]),
    wrongName: pem("wrong-name", [intermediate.cert]),
    expired: pem("expired", [intermediate.cert]),
    expiring: pem("expiring", [intermediate.cert]),
    untrusted: pem("untrusted"),
    strayKeyFile: join(dir, "stray.key"),
  };
}

/** A kubectl get secret -o yaml export of a kubernetes.io/tls Secret. */
export function tlsSecretExport(cert: string, key: string): string {
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: compass-server-tls\n  namespace: compass\ntype: kubernetes.io/tls\ndata:\n  tls.crt: ${b64(cert)}\n  tls.key: ${b64(key)}\n`;
}

export interface TestTlsServer {
  url: string;
  stop(): Promise<void>;
}

/** A TLS server on 127.0.0.1 presenting `pem`, TLS 1.3 only unless `tls12Only`. */
export function startTlsServer(pem: Pem, options: { tls12Only?: boolean } = {}): Promise<TestTlsServer> {
  const server: Server = createServer({
    cert: pem.cert,
    key: pem.key,
    minVersion: options.tls12Only ? "TLSv1.2" : "TLSv1.3",
    maxVersion: options.tls12Only ? "TLSv1.2" : "TLSv1.3",
    ALPNProtocols: ["h2", "http/1.1"],
  });
  server.on("secureConnection", (socket) => socket.end());
  server.on("tlsClientError", () => {});
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({ url: `https://127.0.0.1:${port}`, stop: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
