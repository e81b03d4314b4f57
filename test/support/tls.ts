// Certificates made by the test with the openssl command (EC P-256, fast to
// make): a root CA, an intermediate, and Server certificates with one fault
// each; and TLS servers from Node on 127.0.0.1 that present them.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { tempDir } from "./cli.ts";

export const SERVER_NAME = "compass.example.com";

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

function openssl(dir: string, args: string[]): void {
  const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  if (r.error) throw new Error(`the openssl command is needed to make test certificates: ${r.error.message} (npm test installs it: scripts/test-deps.mjs)`);
  if (r.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr}`);
}

export function makePki(): TestPki {
  const dir = tempDir();
  const key = (name: string) => (openssl(dir, ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", `${name}.key`]), `${name}.key`);
  const pem = (name: string, chain: string[] = []): Pem => {
    const cert = [readFileSync(join(dir, `${name}.crt`), "utf8"), ...chain].join("");
    writeFileSync(join(dir, `${name}.chain.crt`), cert);
    return { cert, key: readFileSync(join(dir, `${name}.key`), "utf8"), certFile: join(dir, `${name}.chain.crt`), keyFile: join(dir, `${name}.key`) };
  };
  const ca = (name: string, subject: string, issuer?: string) => {
    key(name);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(ext, "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n");
    if (!issuer) openssl(dir, ["req", "-x509", "-new", "-key", `${name}.key`, "-out", `${name}.crt`, "-subj", subject, "-days", "365", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    else {
      openssl(dir, ["req", "-new", "-key", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
      openssl(dir, ["x509", "-req", "-in", `${name}.csr`, "-CA", `${issuer}.crt`, "-CAkey", `${issuer}.key`, "-CAcreateserial", "-out", `${name}.crt`, "-days", "365", "-extfile", ext]);
    }
  };
  const leaf = (name: string, dns: string, issuer: string, days: number) => {
    key(name);
    const ext = join(dir, `${name}.ext`);
    writeFileSync(ext, `subjectAltName=DNS:${dns}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
    openssl(dir, ["req", "-new", "-key", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${dns}`]);
    openssl(dir, ["x509", "-req", "-in", `${name}.csr`, "-CA", `${issuer}.crt`, "-CAkey", `${issuer}.key`, "-CAcreateserial", "-out", `${name}.crt`, "-days", String(days), "-extfile", ext]);
  };
  ca("root", "/CN=Compass Test Root");
  ca("intermediate", "/CN=Compass Test Intermediate", "root");
  ca("other-root", "/CN=Someone Else's Root");
  leaf("good", SERVER_NAME, "intermediate", 90);
  leaf("renewed", SERVER_NAME, "intermediate", 90);
  leaf("wrong-name", "other.example.org", "intermediate", 90);
  leaf("expired", SERVER_NAME, "intermediate", -1);
  leaf("expiring", SERVER_NAME, "intermediate", 5);
  leaf("untrusted", SERVER_NAME, "other-root", 90);
  key("stray");
  const intermediate = pem("intermediate");
  return {
    dir,
    caFile: join(dir, "root.crt"),
    root: pem("root"),
    intermediate,
    good: pem("good", [intermediate.cert]),
    renewed: pem("renewed", [intermediate.cert]),
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
