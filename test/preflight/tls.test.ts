// `rigging preflight tls` (D6, CS-08, CR-14) with certificates made here by
// openssl: every fault is caught on file (PEM files and a Secret export)
// and by --connect, from a live TLS server on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempFile } from "../support/cli.ts";
import { runAsync, runCliAsync } from "../support/run-async.ts";
import { makePki, SERVER_NAME, SERVICE_HOST, startTlsServer, tlsSecretExport, type Pem, type TestPki, type TestTlsServer } from "../support/tls.ts";

let pki: TestPki;
const servers: TestTlsServer[] = [];

beforeAll(async () => {
  pki = await makePki();
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function serve(pem: Pem, options: { tls12Only?: boolean } = {}): Promise<string> {
  const server = await startTlsServer(pem, options);
  servers.push(server);
  return server.url;
}

const tls = (...args: string[]) => runAsync(["preflight", "tls", "--server-name", SERVER_NAME, "--ca", pki.caFile, ...args]);
const files = (pem: Pem, keyFile = pem.keyFile) => ["--cert", pem.certFile, "--key", keyFile];
const lines = (out: string, outcome: string) => out.split("\n").filter((l) => l.startsWith(outcome));

describe("preflight tls on file", () => {
  it("passes a good chain (leaf and intermediate) to the Runner's CA, by files and by a Secret export", async () => {
    const r = await tls(...files(pki.good));
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^ok {3}CR-14 chain: the certificate verifies to the Runner's serverCA$/m);
    expect(r.out).toMatch(/^ok {3}CR-14 name: the certificate names compass\.example\.com$/m);
    expect(r.out).toMatch(/^ok {3}CS-08 validity: the certificate is valid until \d{4}-\d\d-\d\d \(8\d days\)$/m);
    expect(r.out).toMatch(/^ok {3}CS-08 key: the key belongs to the certificate$/m);
    expect(lines(r.out, "FAIL")).toEqual([]);
    expect(r.code).toBe(0);
    const secret = await tls("--secret", tempFile(tlsSecretExport(pki.good.cert, pki.good.key), "tls.yaml"));
    expect(secret).toEqual(r);
  });

  it.each([
    [
      "the wrong name",
      () => files(pki.wrongName),
      /^FAIL CR-14 name: the certificate names other\.example\.org, not compass\.example\.com \(the Runner verifies serverName against the subject alternative names only\) \(fix: issue the certificate with compass\.example\.com/m,
    ],
    ["an expired certificate", () => files(pki.expired), /^FAIL CS-08 validity: the certificate expired on \d{4}-\d\d-\d\d \(fix: renew the certificate/m],
    [
      "a certificate expiring within --min-days",
      () => files(pki.expiring),
      /^FAIL CS-08 validity: the certificate expires on \d{4}-\d\d-\d\d, in [45] day\(s\), within --min-days 14 /m,
    ],
    [
      "a key of another certificate",
      () => files(pki.good, pki.strayKeyFile),
      /^FAIL CS-08 key: the key does not belong to the certificate \(fix: put the certificate and its own key in the Secret/m,
    ],
    [
      "a CA the Runner does not trust",
      () => files(pki.untrusted),
      /^FAIL CR-14 chain: the certificate does not verify to the Runner's serverCA: no certificate given issued CN=compass\.example\.com; its issuer is CN=Someone Else's Root /m,
    ],
    [
      "a missing intermediate",
      () => ["--cert", tempFile(pki.good.cert.slice(0, pki.good.cert.indexOf("-----END CERTIFICATE-----") + 26), "leaf.crt")],
      /^FAIL CR-14 chain: .*no certificate given issued CN=compass\.example\.com; its issuer is CN=Compass Test Intermediate/m,
    ],
  ])("fails %s, exit 1, and passes the rest", async (_, args, line) => {
    const r = await tls(...args());
    expect(r.out).toMatch(line);
    expect(lines(r.out, "FAIL")).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it("takes --min-days: the certificate expiring in 5 days passes --min-days 3", async () => {
    const r = await tls(...files(pki.expiring), "--min-days", "3");
    expect(r.code).toBe(0);
  });

  it("never prints the key, whatever goes wrong with it", async () => {
    const notKey = await tls("--cert", pki.good.certFile, "--key", pki.good.certFile);
    expect(notKey.code).toBe(2);
    expect(notKey.err).toBe(`error ${pki.good.certFile}: does not hold a PEM private key\n`);
    const r = await tls(...files(pki.good, pki.strayKeyFile), "--format", "json");
    const body = pki.good.key.split("\n")[1];
    for (const out of [r.out, r.err, notKey.out, notKey.err]) expect(out).not.toContain(body);
    expect(JSON.parse(r.out)).toContainEqual(expect.objectContaining({ id: "CS-08", check: "key", outcome: "fail" }));
  });
});

describe("preflight tls --connect, against live TLS servers on 127.0.0.1", () => {
  it("passes a live Server with the good chain over TLS 1.3, as a process too", async () => {
    const url = await serve(pki.good);
    const r = await runCliAsync(["preflight", "tls", "--server-name", SERVER_NAME, "--ca", pki.caFile, ...files(pki.good), "--connect", url]);
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^ok {3}CS-08 live protocol: the endpoint speaks TLS 1\.3 and refuses TLS 1\.2, as the Compass Server does$/m);
    expect(r.out).toMatch(/^ok {3}CR-14 live chain: the live Server's certificate verifies to the Runner's serverCA$/m);
    expect(r.out).toMatch(/^ok {3}CR-14 live name: the live Server's certificate names compass\.example\.com$/m);
    expect(r.out).toMatch(/^ok {3}CS-08 live key: the key in the Secret belongs to the live Server's certificate$/m);
    expect(r.out).toMatch(/^ok {3}CS-08 live certificate: the live Server presents the certificate given$/m);
    expect(lines(r.out, "FAIL")).toEqual([]);
    expect(r.code).toBe(0);
  });

  it.each([
    ["the wrong name", () => pki.wrongName, /^FAIL CR-14 live name: the live Server's certificate names other\.example\.org, not compass\.example\.com/m],
    ["an expired certificate", () => pki.expired, /^FAIL CS-08 live validity: the live Server's certificate expired on /m],
    [
      "a certificate expiring within --min-days",
      () => pki.expiring,
      /^FAIL CS-08 live validity: the live Server's certificate expires on \d{4}-\d\d-\d\d, in [45] day\(s\), within --min-days 14 /m,
    ],
    [
      "a CA the Runner does not trust",
      () => pki.untrusted,
      /^FAIL CR-14 live chain: the live Server's certificate does not verify to the Runner's serverCA: no certificate given issued CN=compass\.example\.com/m,
    ],
    [
      "a missing intermediate",
      () => ({ ...pki.good, cert: pki.good.cert.slice(0, pki.good.cert.indexOf("-----END CERTIFICATE-----") + 26) }),
      /^FAIL CR-14 live chain: .*its issuer is CN=Compass Test Intermediate/m,
    ],
  ])("fails %s, from the handshake alone", async (_, pem, line) => {
    const r = await tls("--connect", await serve(pem()));
    expect(r.out).toMatch(line);
    expect(lines(r.out, "FAIL")).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it("fails a live Server whose certificate is not the one of the key given (a renewal it has not loaded)", async () => {
    const r = await tls(...files(pki.good), "--connect", await serve(pki.renewed));
    expect(r.out).toMatch(
      /^FAIL CS-08 live key: the key in the Secret does not belong to the certificate the live Server presents \(fix: the Server serves another certificate/m,
    );
    expect(r.out).toMatch(/^warn CS-08 live certificate: the live Server presents another certificate \(serial \w+\) than the one given \(serial \w+\)/m);
    expect(lines(r.out, "FAIL")).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it("fails an endpoint that speaks only TLS 1.2: not the Compass Server", async () => {
    const r = await tls("--connect", await serve(pki.good, { tls12Only: true }));
    expect(r.out).toMatch(
      /^FAIL CS-08 live protocol: the endpoint negotiated TLS 1\.2; the Compass Server's minimum is TLS 1\.3, so something else answers here \(fix: let the Server terminate TLS itself \(D6\)/m,
    );
    expect(lines(r.out, "FAIL")).toHaveLength(1);
    expect(r.code).toBe(1);
  });

  it("ends with exit 2 when nothing listens, or nothing answers within --timeout", async () => {
    const closed = await tls("--connect", "https://127.0.0.1:1");
    expect(closed).toEqual({ code: 2, out: "", err: "error cannot check https://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1\n" });
  });
});

describe("preflight tls --service-host: the host a Runner without P9 dials (CS-14)", () => {
  it("passes a certificate that names the Service host too, on file and live", async () => {
    const r = await tls(...files(pki.withService), "--service-host", SERVICE_HOST, "--connect", await serve(pki.withService));
    expect(r.out).toMatch(/^ok {3}CS-14 service host: the certificate names compass-server\.compass\.svc, the Service a Runner without P9 dials$/m);
    expect(r.out).toMatch(/^ok {3}CS-14 live service host: the live Server's certificate names compass-server\.compass\.svc, /m);
    expect(lines(r.out, "FAIL")).toEqual([]);
    expect(r.code).toBe(0);
  });

  it("fails a certificate that names only the public host, on file and live, and says how to fix it", async () => {
    const r = await tls(...files(pki.good), "--service-host", SERVICE_HOST, "--connect", await serve(pki.good));
    expect(r.out).toMatch(
      /^FAIL CS-14 service host: the certificate names compass\.example\.com, not compass-server\.compass\.svc: a Runner without P9 dials that Service and verifies the certificate for it \(fix: issue the certificate with compass-server\.compass\.svc among its DNS names too, or run a Runner with P9/m,
    );
    expect(r.out).toMatch(/^FAIL CS-14 live service host: the live Server's certificate names compass\.example\.com, not compass-server\.compass\.svc/m);
    expect(lines(r.out, "FAIL")).toHaveLength(2);
    expect(r.code).toBe(1);
  });

  it("checks no Service host unless asked: the same certificate passes without --service-host", async () => {
    const r = await tls(...files(pki.good));
    expect(r.out).not.toMatch(/service host/);
    expect(r.code).toBe(0);
  });

  it("refuses a --service-host that is not a DNS name, exit 2", async () => {
    const r = await tls("--service-host", "https://x", ...files(pki.good));
    expect(r.code).toBe(2);
    expect(r.err).toContain('--service-host "https://x": expected a lowercase DNS name');
  });
});

describe("preflight tls usage", () => {
  it.each([
    [["--cert", "x"], "--server-name NAME is required"],
    [["--server-name", "bad_name!", "--cert", "x"], '--server-name "bad_name!": expected a DNS name or an IP address'],
    [["--server-name", SERVER_NAME], "nothing to check: give --secret FILE, --cert FILE [--key FILE], or --connect URL"],
    [["--server-name", SERVER_NAME, "--key", "k"], "--key needs --cert"],
    [["--server-name", SERVER_NAME, "--secret", "s", "--cert", "c"], "give --secret, or --cert and --key, not both"],
    [["--server-name", SERVER_NAME, "--connect", "http://h"], "--connect: expected an https:// URL, got http://"],
    [["--server-name", SERVER_NAME, "--connect", "https://u:pw@h"], "--connect: the URL carries credentials"],
    [["--server-name", SERVER_NAME, "--cert", "/nonexistent/c"], "/nonexistent/c: cannot read: no such file"],
    [["--server-name", SERVER_NAME, "--min-days", "1.5", "--cert", "c"], '--min-days "1.5": expected a whole number of days'],
  ])("%j: %s", async (args, message) => {
    const r = await runAsync(["preflight", "tls", ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
  });

  it("refuses a Secret export that is not one, without quoting it", async () => {
    const configMap = await runAsync([
      "preflight",
      "tls",
      "--server-name",
      SERVER_NAME,
      "--secret",
      tempFile("kind: ConfigMap\ndata:\n  tls.crt: x\n", "cm.yaml"),
    ]);
    expect(configMap.err).toContain("holds a ConfigMap; the Server's certificate is in its kubernetes.io/tls Secret");
    const notBase64 = await runAsync([
      "preflight",
      "tls",
      "--server-name",
      SERVER_NAME,
      "--secret",
      tempFile("kind: Secret\ndata:\n  tls.crt: 'sec ret!'\n", "s.yaml"),
    ]);
    expect(notBase64.err).toContain("data.tls.crt is not base64");
    expect(notBase64.err).not.toContain("sec ret");
    const broken = await runAsync(["preflight", "tls", "--server-name", SERVER_NAME, "--secret", tempFile("kind: Secret\ndata: [hunter2: {\n", "b.yaml")]);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/is not a YAML or JSON export/);
    expect(broken.err).not.toContain("hunter2");
  });
});
