// `rigging diff OLD NEW`: apply semantics against a live-state fixture (a
// rendered set with what the API server adds: test/support/live-state.ts),
// one test per consequence with one field of the fixture changed, and the
// inputs diff takes (values, a render -o directory, stdin, a List).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { BUN, ROOT, runCli, runInProcess, runProcess, tempDir, tempFile } from "../support/cli.ts";
import { liveOf, liveYaml } from "../support/live-state.ts";
import { makePki, type Pem, type TestPki } from "../support/tls.ts";
import { stringify } from "yaml";

const COMPASS = "examples/compass.yaml";
const RUNNER = "examples/compass-runner.yaml";
const SERVER = "examples/compass-server.yaml";
const rendered = (file: string) => renderSource(parseValuesFile(readFileSync(join(ROOT, file), "utf8"), file)).objects;
const diff = (...args: string[]) => runInProcess(["diff", ...args]);

type Edit = (o: Record<string, any>) => void;

/** `file`'s rendered objects, with `edit` applied to one of them (by kind and name). */
function editedObjects(file: string, kind?: string, name?: string, edit?: Edit): K8sObject[] {
  const objects = structuredClone(rendered(file)) as K8sObject[];
  if (kind) {
    const target = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
    if (!target) throw new Error(`no ${kind} ${name ?? ""} in ${file}`);
    edit!(target as Record<string, any>);
  }
  return objects;
}

/** The live state of `file`'s render, one object edited first. */
const live = (file: string, kind?: string, name?: string, edit?: Edit) => tempFile(liveYaml(editedObjects(file, kind, name, edit)), "live.yaml");

/** `file`'s render as a manifest stream, edited by hand in one object. */
const handEdited = (file: string, kind: string, name: string, edit: Edit) =>
  tempFile(
    editedObjects(file, kind, name, edit)
      .map((o) => stringify(o))
      .join("---\n"),
    "edited.yaml",
  );

const tokenOf = (d: Record<string, any>) =>
  d.spec.template.spec.volumes.find((v: any) => v.projected).projected.sources.find((s: any) => s.serviceAccountToken).serviceAccountToken;

const consequences = (out: string) => out.split("\n").filter((l) => l.startsWith("  consequence: "));

describe("diff: apply semantics against the live state", () => {
  it.each([COMPASS, RUNNER, SERVER])("the live state of %s (status, managedFields, defaults) equals its rendered set, both ways", (file) => {
    const state = live(file);
    expect(diff(state, file)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    expect(diff(file, state)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
  });

  it("kubectl get -o yaml on stdin, and a render -o directory", () => {
    const dir = join(tempDir(), "out");
    expect(runInProcess(["render", COMPASS, "-o", dir]).code).toBe(0);
    expect(diff(dir, COMPASS)).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    const r = runCli(["diff", "-", dir], readFileSync(live(COMPASS), "utf8"));
    expect(r).toEqual({ code: 0, out: "summary: no change\n", err: "" });
  });

  it("a field the live side changed is a change; one the server only added is not", () => {
    // Set on the live object only (not in its last-applied configuration), as a default or another writer would.
    const list = liveOf(rendered(COMPASS)) as { items: Record<string, any>[] };
    list.items.find((o) => o.kind === "Deployment" && o.metadata.name === "compass-server")!.spec.template.spec.containers[0].imagePullPolicy = "Always";
    const state = tempFile(stringify(list), "live.yaml");
    const r = diff(state, COMPASS);
    // The rendered set does not set imagePullPolicy and never applied it: applying it leaves the live value.
    expect(r).toEqual({ code: 0, out: "summary: no change\n", err: "" });
    const changed = live(COMPASS, "Deployment", "compass-server", (d) => {
      d.spec.template.spec.containers[0].args.push("--extra");
    });
    expect(diff(changed, COMPASS).code).toBe(1);
  });
});

describe("diff: the consequence of each change", () => {
  it("the Runner DaemonSet's pod template: restarts the Runner on its node, sessions reaped within the grace period", () => {
    const state = live(COMPASS, "DaemonSet", "compass-runner", (d) => {
      d.spec.template.spec.containers[0].image = `registry.example.com/rigelbuild/compass-runner@sha256:${"1".repeat(64)}`;
    });
    const r = diff(state, COMPASS);
    expect(r.code).toBe(1);
    expect(r.out).toContain("~ apps/DaemonSet compass-runner/compass-runner\n    spec.template.spec.containers[compass-runner].image: ");
    expect(consequences(r.out)).toEqual([
      "  consequence: restarts the Runner on its node kvm-node-1, 1 node at a time; the sessions there are reaped within the grace period (terminationGracePeriodSeconds 720 s)",
    ]);
    expect(r.out.endsWith("summary: 1 changed, 0 added, 0 removed: Runner restarts\n")).toBe(true);
  });

  it("the Server Deployment under Recreate: downtime", () => {
    const state = live(SERVER, "Deployment", "compass-server", (d) => {
      d.spec.template.spec.containers[0].env = [...(d.spec.template.spec.containers[0].env ?? []), { name: "OLD", value: "1" }];
    });
    const r = diff(state, SERVER);
    expect(r.out).toContain("    spec.template.spec.containers[server].env[OLD]: ");
    expect(consequences(r.out)).toEqual([
      "  consequence: downtime: under Recreate the Compass Server's pod stops before its new pod starts, so the Compass Server is down until the new pod is ready",
    ]);
    expect(r.code).toBe(1);
  });

  it("the Runner's token audience, Runner side alone: enrollment breaks until the Server's cluster entry follows", () => {
    const state = live(RUNNER, "DaemonSet", "compass-runner", (d) => {
      tokenOf(d).audience = "old-audience";
    });
    const r = diff(state, RUNNER);
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience old-audience, 3600 s to audience compass-runner, 3600 s): enrollment breaks until the Server's cluster entry (its runner-clusters file, audience and maxTokenLifetime) follows and the Server restarts",
    );
  });

  it("a token lifetime beyond the Server's maxTokenLifetime, both sides present: no entry accepts it", () => {
    const longer = handEdited(COMPASS, "DaemonSet", "compass-runner", (d) => {
      tokenOf(d).expirationSeconds = 172800;
    });
    const r = diff(live(COMPASS), longer);
    expect(consequences(r.out)).toContain(
      "  consequence: the Runner's token changes (audience compass-runner, 3600 s to audience compass-runner, 172800 s) and no cluster entry of the Server accepts it: enrollment breaks until the Server's cluster entry follows and the Server restarts",
    );
  });

  it("an admission policy: takes effect at once", () => {
    const state = live(RUNNER, "ValidatingAdmissionPolicy", "compass-runner.compass-runner-token", (p) => {
      p.spec.validations[0].expression = "true";
    });
    const r = diff(state, RUNNER);
    expect(r.out).toContain(
      '~ admissionregistration.k8s.io/ValidatingAdmissionPolicy compass-runner.compass-runner-token\n    spec.validations[0].expression: "true" -> ',
    );
    expect(consequences(r.out)).toEqual(["  consequence: takes effect at once, for every request the API server admits from then on, no restart needed"]);
  });

  it("the runner-clusters file alone: takes effect only after the Server restarts, which nothing here does", () => {
    const state = live(SERVER, "ConfigMap", "compass-server-runner-clusters", (c) => {
      c.data["clusters.yaml"] = c.data["clusters.yaml"].replace("maxTokenLifetime: 86400s", "maxTokenLifetime: 3600s");
    });
    const r = diff(state, SERVER);
    expect(r.out).toContain("    data.clusters.yaml:\n      -     maxTokenLifetime: 3600s\n      +     maxTokenLifetime: 86400s\n");
    expect(consequences(r.out)).toEqual([
      "  consequence: the Server reads its runner-clusters file at boot: the change takes effect only after the Server restarts; nothing here restarts it: kubectl rollout restart deployment/compass-server -n compass",
      "  consequence: the Server's cluster entries change (audience or token lifetime): a Runner whose token they refuse cannot enroll, once the Server restarts, until its DaemonSet follows",
    ]);
  });

  it("the NATS configuration, from values: NATS restarts in the same apply, named by its configuration's hash", () => {
    const r = diff(SERVER, valuesWith(SERVER, ["maxMemoryStoreMiB: 64", "maxMemoryStoreMiB: 128"]));
    expect(r.code).toBe(1);
    expect(r.out).toContain("    data.nats.conf:\n      -   max_memory_store: 67108864\n      +   max_memory_store: 134217728\n");
    expect(r.out).toMatch(
      /\n~ apps\/Deployment compass\/compass-server-nats\n {4}spec\.template\.metadata\.annotations\.rigging\.dev\/nats-config-sha256: "[0-9a-f]{16}" -> "[0-9a-f]{16}"\n/,
    );
    expect(consequences(r.out)).toEqual([
      "  consequence: nats-server reads its configuration at start: the change takes effect only when NATS restarts; NATS's pod template (its configuration hash) changes in the same apply, so NATS restarts with it",
      "  consequence: restarts NATS to read its changed configuration (the pod template's rigging.dev/nats-config-sha256): under Recreate its pod stops before the new one starts; until NATS is back, the Compass Server falls back to its cursor sweep for events",
    ]);
    expect(r.out.endsWith("summary: 2 changed, 0 added, 0 removed: NATS restarts\n")).toBe(true);
  });

  it("the NATS configuration alone, edited by hand: nothing here restarts NATS", () => {
    const edited = handEdited(SERVER, "ConfigMap", "compass-server-nats-config", (c) => {
      c.data["nats.conf"] = c.data["nats.conf"].replace("max_memory_store: 67108864", "max_memory_store: 134217728");
    });
    const r = diff(live(SERVER), edited);
    expect(consequences(r.out)).toEqual([
      "  consequence: nats-server reads its configuration at start: the change takes effect only when NATS restarts; nothing here restarts it: kubectl rollout restart deployment/compass-server-nats -n compass",
    ]);
    expect(r.out.endsWith("summary: 1 changed, 0 added, 0 removed: NATS configuration waits for a NATS restart\n")).toBe(true);
  });

  it("a NATS pod template that first gains the hash (an output from before it): NATS restarts once, and says why", () => {
    const state = live(SERVER, "Deployment", "compass-server-nats", (d) => {
      delete d.spec.template.metadata.annotations;
    });
    const r = diff(state, SERVER);
    expect(consequences(r.out)).toEqual([
      "  consequence: restarts NATS (its pod template gains the configuration's hash, rigging.dev/nats-config-sha256): under Recreate its pod stops before the new one starts; until NATS is back, the Compass Server falls back to its cursor sweep for events",
    ]);
  });

  it("the Server's cluster entry alone refuses the Runner's token: enrollment breaks until the Runner follows", () => {
    const shorter = handEdited(COMPASS, "ConfigMap", "compass-server-runner-clusters", (c) => {
      c.data["clusters.yaml"] = c.data["clusters.yaml"].replace("maxTokenLifetime: 86400s", "maxTokenLifetime: 30m");
    });
    const r = diff(live(COMPASS), shorter);
    expect(consequences(r.out)).toContain(
      "  consequence: the Server's cluster entries change and refuse the Runner's token (audience compass-runner, 3600 s): enrollment breaks, once the Server restarts, until the Runner's DaemonSet follows",
    );
  });
});

/** `file`'s values with each [from, to] replaced once; each must be there. */
function valuesWith(file: string, ...edits: [string, string][]): string {
  let text = readFileSync(join(ROOT, file), "utf8");
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`${file} holds no ${from}`);
    text = text.replace(from, to);
  }
  return tempFile(text, "values.yaml");
}

/** `file`'s render as a stream, with `extra` objects added. */
const streamWith = (file: string, ...extra: Record<string, unknown>[]) =>
  tempFile([...rendered(file), ...extra].map((o) => stringify(o)).join("---\n"), "stream.yaml");

const RUNNER_CA = ["      name: compass-server-ca\n", "      name: compass-server-ca-2\n"] as [string, string];
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

describe("diff: inputs and output", () => {
  it("names an object that appears twice on one side (exit 2)", () => {
    const text = readFileSync(live(RUNNER), "utf8");
    const doubled = tempFile(`${text}---\n${text}`, "twice.yaml");
    const r = diff(doubled, RUNNER);
    expect(r.err).toBe(`error ${doubled}: Namespace compass-runner appears twice; diff compares one object per kind, namespace and name\n`);
    expect(r.code).toBe(2);
  });

  it("two systems compared object by object, each judged as its own", () => {
    const r = diff(RUNNER, SERVER);
    expect(r.code).toBe(1);
    expect(r.out).toContain("- apps/DaemonSet compass-runner/compass-runner\n  consequence: the Runner stops on every node");
    expect(r.out).toContain("+ apps/Deployment compass/compass-server\n");
  });

  it("a Secret's values are never shown, in text or JSON: only which keys changed", () => {
    const secret = (data: Record<string, string>, stringData?: Record<string, string>) =>
      tempFile(
        stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "x" }, data, ...(stringData ? { stringData } : {}) }),
        "secret.yaml",
      );
    const before = secret({ password: "c2VjcmV0LW9uZQ==" });
    const after = secret({ password: "c2VjcmV0LXR3bw==", token: "dG9rZW4tdmFsdWU=" }, { url: "nats://u:hunter2@h" });
    const text = diff(before, after);
    expect(text.out).toBe(
      '~ Secret x/s\n    data.password: "(secret value)" -> "(secret value)"\n    data.token: (none) -> "(secret value)"\n    stringData: (none) -> "(secret value)"\nsummary: 1 changed, 0 added, 0 removed\n',
    );
    const json = diff(before, after, "--format", "json").out;
    for (const value of ["c2VjcmV0", "dG9rZW4", "hunter2"]) expect(json).not.toContain(value);
    expect(JSON.parse(json).changes[0].fields.map((f: { path: string }) => f.path)).toEqual(["data.password", "data.token", "stringData"]);
  });

  it("usage: two sides, one stdin at most, exit 2", () => {
    expect(diff(RUNNER).code).toBe(2);
    expect(diff("-", "-").err).toBe("error diff: only one side can be - (stdin)\n");
    expect(diff(RUNNER, "/nonexistent.yaml").code).toBe(2);
  });

  it("JSON and text are the same bytes under Node and Bun", () => {
    const state = live(COMPASS, "DaemonSet", "compass-runner", (d) => {
      d.spec.template.spec.terminationGracePeriodSeconds = 30;
    });
    for (const format of ["text", "json"]) {
      const node = runCli(["diff", state, COMPASS, "--format", format]);
      const bun = runProcess(BUN, [join(ROOT, "dist", "rigging.mjs"), "diff", state, COMPASS, "--format", format]);
      expect(node.code).toBe(1);
      expect(bun).toEqual(node);
    }
    const ca = valuesWith(COMPASS, RUNNER_CA);
    for (const format of ["text", "json"]) {
      const node = runCli(["diff", COMPASS, ca, "--format", format]);
      expect(node.out).toContain("TLS trust breaks until both sides follow");
      expect(runProcess(BUN, [join(ROOT, "dist", "rigging.mjs"), "diff", COMPASS, ca, "--format", format])).toEqual(node);
    }
    const json = JSON.parse(runCli(["diff", state, COMPASS, "--format", "json"]).out);
    expect(json.changes[0]).toMatchObject({
      object: "apps/DaemonSet compass-runner/compass-runner",
      change: "changed",
      fields: [{ path: "spec.template.spec.terminationGracePeriodSeconds", old: 30, new: 720 }],
    });
  });
});

describe("render -o over an earlier output: the same summary on stderr", () => {
  it("none for a first render; no change, then the consequences of a changed Runner", () => {
    const dir = join(tempDir(), "out");
    const first = runInProcess(["render", RUNNER, "-o", dir, "--quiet"]);
    expect(first.err).not.toContain("changes against the earlier output");
    expect(runInProcess(["render", RUNNER, "-o", dir, "--quiet"]).err).toContain("\nchanges against the earlier output: no change\n");
    const values = readFileSync(join(ROOT, RUNNER), "utf8");
    const changed = tempFile(values.replace("tokenExpirationSeconds: 3600", "tokenExpirationSeconds: 7200"), "compass-runner.yaml");
    expect(readFileSync(changed, "utf8")).not.toBe(values);
    const r = runInProcess(["render", changed, "-o", dir, "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.err.split("\n").at(-2)).toBe(
      "changes against the earlier output: 1 changed, 0 added, 0 removed: Runner restarts; enrollment breaks until both sides follow",
    );
  });
});
