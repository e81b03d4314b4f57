// `rigging diff OLD NEW` on the Server and Runner pair over TLS: the CA, the certificate and the names each side verifies.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { tempFile } from "../support/cli.ts";
import { makePki, type Pem, type TestPki } from "../support/tls.ts";
import { COMPASS, RUNNER, RUNNER_CA, SERVER, consequences, diff, handEdited, live, rendered, valuesWith } from "./diff-helpers.ts";

/** `file`'s render as a stream, with `extra` objects added. */
const streamWith = (file: string, ...extra: Record<string, unknown>[]) =>
  tempFile([...rendered(file), ...extra].map((o) => stringify(o)).join("---\n"), "stream.yaml");

const SERVER_TLS = ["    secretName: compass-server-tls\n", "    secretName: compass-server-tls-2\n"] as [string, string];
const P9 = ["runner:\n  name: compass-runner\n", "runner:\n  name: compass-runner\n  designed:\n    P9: true\n  serverName: compass.example.com\n"] as [
  string,
  string,
];
const tlsLines = (out: string) => consequences(out).filter((l) => l.includes("enrollment fails"));

describe("diff: the Server and Runner pair over TLS", () => {
  it("the Runner's CA alone: enrollment fails until the Server's certificate follows; with the certificate in the same apply, nothing", () => {
    const r = diff(COMPASS, valuesWith(COMPASS, RUNNER_CA));
    expect(r.code).toBe(1);
    expect(tlsLines(r.out)).toEqual([
      "  consequence: the Runner's Server CA changes from ConfigMap compass-server-ca key ca.crt to ConfigMap compass-server-ca-2 key ca.crt, and the Server's certificate (Secret compass-server-tls key tls.crt) does not: enrollment fails with a TLS error until the Server's certificate follows, unless the new CA signs it already",
    ]);
    expect(r.out.endsWith("summary: 1 changed, 0 added, 0 removed: Runner restarts; TLS trust breaks until both sides follow\n")).toBe(true);
    const json = JSON.parse(diff(COMPASS, valuesWith(COMPASS, RUNNER_CA), "--format", "json").out);
    expect(json.changes.map((c: { object: string; consequences: { id: string }[] }) => [c.object, c.consequences.map((x) => x.id)])).toEqual([
      ["apps/DaemonSet compass-runner/compass-runner", ["runner-restart", "tls-trust"]],
    ]);
    const both = diff(COMPASS, valuesWith(COMPASS, RUNNER_CA, SERVER_TLS));
    expect(both.code).toBe(1);
    expect(tlsLines(both.out)).toEqual([]);
    expect(both.out.endsWith("summary: 2 changed, 0 added, 0 removed: Runner restarts; downtime (Recreate)\n")).toBe(true);
  });

  it("the Server's certificate alone: enrollment fails until the Runner's CA follows", () => {
    const r = diff(COMPASS, valuesWith(COMPASS, SERVER_TLS));
    expect(tlsLines(r.out)).toEqual([
      "  consequence: the Server's certificate changes from Secret compass-server-tls key tls.crt to Secret compass-server-tls-2 key tls.crt, and the Runner's CA (ConfigMap compass-server-ca key ca.crt) does not: enrollment fails with a TLS error until the Runner's CA follows, unless it signs the new certificate already and that names compass-server.compass.svc",
    ]);
    // Both ways: the certificate back, the Runner's CA staying.
    expect(tlsLines(diff(valuesWith(COMPASS, SERVER_TLS), COMPASS).out)).toEqual([
      "  consequence: the Server's certificate changes from Secret compass-server-tls-2 key tls.crt to Secret compass-server-tls key tls.crt, and the Runner's CA (ConfigMap compass-server-ca key ca.crt) does not: enrollment fails with a TLS error until the Runner's CA follows, unless it signs the new certificate already and that names compass-server.compass.svc",
    ]);
  });

  it("the bundle in the Runner's CA ConfigMap, the Server not in the diff: judged on the ConfigMap", () => {
    const ca = (pem: string) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "compass-server-ca", namespace: "compass-runner" },
      data: { "ca.crt": pem },
    });
    const r = diff(streamWith(RUNNER, ca("old bundle\n")), streamWith(RUNNER, ca("new bundle\n")));
    expect(r.out).toContain("~ ConfigMap compass-runner/compass-server-ca\n");
    expect(consequences(r.out)).toEqual([
      "  consequence: the Runner's Server CA in ConfigMap compass-server-ca key ca.crt changes: enrollment fails with a TLS error until the Server presents a certificate the new CA signs (the Server is not in this diff)",
    ]);
  });

  it("the certificate in the Server's TLS Secret, the Runner not in the diff: judged on the Secret, its data never in the consequence", () => {
    const secret = (crt: string) => ({
      apiVersion: "v1",
      kind: "Secret",
      type: "kubernetes.io/tls",
      metadata: { name: "compass-server-tls", namespace: "compass" },
      data: { "tls.crt": crt },
    });
    const r = diff(streamWith(SERVER, secret("b2xk")), streamWith(SERVER, secret("bmV3")));
    expect(consequences(r.out)).toEqual([
      "  consequence: the Server's certificate in Secret compass-server-tls key tls.crt changes: a Runner whose CA does not sign the new certificate fails enrollment with a TLS error until its CA follows (the Runner is not in this diff)",
    ]);
  });

  it("the name the Runner verifies, alone: enrollment fails until the Server is reached by it; a name the Server already answers to is not flagged", () => {
    const r = diff(
      COMPASS,
      valuesWith(COMPASS, ["runner:\n  name: compass-runner\n", "runner:\n  name: compass-runner\n  serverAddr: https://other.example.com\n"]),
    );
    expect(tlsLines(r.out)).toEqual([
      "  consequence: the Runner now verifies the Server's certificate for other.example.com (the host of its serverAddr; was compass-server.compass.svc), which is neither the Server's public host (compass.example.com) nor its Service (compass-server.compass.svc): enrollment fails with a TLS error until the Server is reached there with a certificate that names it",
    ]);
    expect(tlsLines(diff(COMPASS, valuesWith(COMPASS, P9)).out)).toEqual([]);
    const alone = diff(RUNNER, valuesWith(RUNNER, ["serverAddr: https://compass-server.compass.svc", "serverAddr: https://compass.example.com"]));
    expect(tlsLines(alone.out)).toEqual([
      "  consequence: the Runner now verifies the Server's certificate for compass.example.com (the host of its serverAddr; was compass-server.compass.svc): enrollment fails with a TLS error until the Server's certificate names it (the Server is not in this diff)",
    ]);
  });

  it("the Server's public host alone, a P9 Runner verifying it: enrollment fails until --server-name follows; both changed, nothing", () => {
    const before = valuesWith(COMPASS, P9);
    const host = ["publicHost: compass.example.com", "publicHost: compass2.example.com"] as [string, string];
    const r = diff(before, valuesWith(COMPASS, P9, host));
    expect(tlsLines(r.out)).toEqual([
      "  consequence: the Server's public host changes from compass.example.com to compass2.example.com, and the Runner verifies compass.example.com (its --server-name): enrollment fails (a TLS error, or no such host) until the Runner's --server-name follows",
    ]);
    const both = diff(before, valuesWith(COMPASS, P9, host, ["serverName: compass.example.com", "serverName: compass2.example.com"]));
    expect(both.code).toBe(1);
    expect(tlsLines(both.out)).toEqual([]);
  });

  it("the Server's Service renamed, the Runner dialling the old one: judged on the Service", () => {
    const renamed = handEdited(COMPASS, "Service", "compass-server", (svc) => {
      svc.metadata.name = "compass-door";
    });
    const r = diff(live(COMPASS), renamed);
    expect(r.out).toContain(
      "+ Service compass/compass-door\n  consequence: the Server's Service changes from compass-server.compass.svc to compass-door.compass.svc, and the Runner verifies compass-server.compass.svc (its serverAddr): enrollment fails (a TLS error, or no such host) until the Runner's serverAddr follows\n",
    );
  });
});

describe("diff: the TLS pair judged by the certificates the inputs hold", () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await makePki();
  });
  const caMap = (pem: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "compass-server-ca", namespace: "compass-runner" },
    data: { "ca.crt": pem },
  });
  const tls = (pem: Pem) => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "kubernetes.io/tls",
    metadata: { name: "compass-server-tls", namespace: "compass" },
    data: { "tls.crt": Buffer.from(pem.cert).toString("base64"), "tls.key": Buffer.from(pem.key).toString("base64") },
  });
  const root = () => readFileSync(pki.caFile, "utf8");

  it("a CA bundle that does not sign the Server's certificate is flagged; one that adds a CA beside the old one is not", () => {
    const before = streamWith(COMPASS, caMap(root()), tls(pki.withService));
    const r = diff(before, streamWith(COMPASS, caMap(pki.untrusted.cert), tls(pki.withService)));
    expect(r.out).toContain("~ ConfigMap compass-runner/compass-server-ca\n    data.ca.crt:\n");
    expect(consequences(r.out)).toEqual([
      "  consequence: the Runner's CA (ConfigMap compass-server-ca key ca.crt) does not sign the Server's certificate (Secret compass-server-tls key tls.crt): enrollment fails with a TLS error until one of them follows",
    ]);
    const added = diff(before, streamWith(COMPASS, caMap(root() + pki.untrusted.cert), tls(pki.withService)));
    expect(added.code).toBe(1);
    expect(consequences(added.out)).toEqual([]);
  });

  it("a renewed certificate that no longer names the host the Runner verifies is flagged, its key never shown; one that names it is not", () => {
    const before = streamWith(COMPASS, caMap(root()), tls(pki.withService));
    const r = diff(before, streamWith(COMPASS, caMap(root()), tls(pki.good)));
    expect(consequences(r.out)).toEqual([
      "  consequence: the Server's certificate (Secret compass-server-tls key tls.crt) names compass.example.com, not compass-server.compass.svc, the name the Runner verifies (its serverAddr): enrollment fails with a TLS error until the certificate names it or the Runner's serverAddr follows",
    ]);
    for (const pem of [pki.good, pki.withService]) expect(r.out).not.toContain(Buffer.from(pem.key).toString("base64").slice(0, 40));
    const fine = diff(streamWith(COMPASS, caMap(root()), tls(pki.good)), before);
    expect(fine.code).toBe(1);
    expect(consequences(fine.out)).toEqual([]);
  });
});
