// Every requirement ID of the requirement files (the general one and every
// system's of the registry) is covered three ways, or the test names why it
// cannot be:
// (a) a rule over manifests, or the reason the requirement data records that
//     it is judged elsewhere (its judgedFrom or enforcedBy);
// (b) values that render refuses with that ID, from the table below;
// (c) a corpus fixture that `check` flags with that ID (corpus.test.ts runs it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { SYSTEMS } from "../../src/systems/registry.ts";
import { ROOT } from "../support/cli.ts";
import { brokenFiles, CORPUS_SYSTEMS, expectedId, warnFiles } from "../support/corpus.ts";
import { refusal } from "../support/values.ts";
import { catalog } from "../../src/systems/registry.ts";

const ENTRIES = new Map(catalog.requirementEntries().map((r) => [r.id, r]));
const IDS = [...ENTRIES.keys()];
const RULES = new Map(catalog.allRules().map((r) => [r.id, r]));

/** What the requirement data records as the reason a requirement is not judged from manifests. */
const judgedElsewhere = (id: string) => ENTRIES.get(id)?.judgedFrom ?? ENTRIES.get(id)?.enforcedBy;

type Edit = [path: (string | number)[], value: unknown];
/** Values that break a requirement: a bundled example with edits, and the key path the refusal names. */
interface Refusing {
  example: string;
  edits: Edit[];
  path: string;
}
const runner = (path: string, ...edits: Edit[]): Refusing => ({ example: "compass-runner.yaml", edits, path });
const server = (path: string, ...edits: Edit[]): Refusing => ({ example: "compass-server.yaml", edits, path });
const rootpilot = (path: string, ...edits: Edit[]): Refusing => ({ example: "rootpilot-gke.yaml", edits, path });
const DELETE = Symbol("delete");

const REFUSING: Record<string, Refusing> = {
  "G-01": server("designed.P9", [["designed"], { P9: true }]),
  "G-04": runner("admission.deployers[0]", [["admission", "deployers"], ["AKIAIOSFODNN7EXAMPLE"]]),
  "G-05": server("nats.image", [["nats", "image"], "nats:2.10"]),
  "G-06": runner("securityContext", [["securityContext"], { privileged: true }]),
  "G-07": runner("name", [["name"], "Compass Runner"]),
  "G-08": server("resources.limits.memory", [["resources", "limits", "memory"], "a lot"]),
  "G-09": runner("imagePullSecrets", [["imagePullSecrets"], [{ name: "regcred" }]]),
  "G-10": runner("podSecurityLevel", [["podSecurityLevel"], "baseline"]),
  "CR-01": runner("extraObjects", [["extraObjects"], [{ kind: "Service" }]]),
  "CR-02": runner("serverAddr", [["serverAddr"], DELETE]),
  "CR-03": runner("tokenExpirationSeconds", [["tokenExpirationSeconds"], 599]),
  "CR-04": runner("namespace", [["namespace"], "Compass_Runner"]),
  "CR-05": runner("rbac", [["rbac"], { create: true }]),
  "CR-06": runner("admission.deployers", [["admission", "deployers"], []]),
  "CR-07": runner("maxUnavailable", [["maxUnavailable"], 2]),
  "CR-08": runner("kvmResourceName", [["kvmResourceName"], "kvm"]),
  "CR-09": runner("hostUsers", [["hostUsers"], true]),
  "CR-10": runner("seccompProfilePath", [["seccompProfilePath"], "compass/profile"]),
  "CR-11": runner("hostPaths.sessionVolumeRoot", [["hostPaths", "sessionVolumeRoot"], "/"]),
  "CR-12": runner("tolerations", [["tolerations"], []]),
  "CR-13": runner("arch", [["arch"], "arm64"]),
  "CR-14": runner("serverCA.pem", [["serverCA", "configMap"], DELETE], [["serverCA", "pem"], "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n"]),
  "CR-15": runner("egressAllow[0]", [["egressAllow"], [{ ports: [{ port: 443 }] }]]),
  "CR-16": runner("otel.endpoint", [["otel", "endpoint"], "collector:4318"]),
  "CR-17": runner("runnerId", [["runnerId"], "runner-1"]),
  "CR-19": runner("guestCpus", [["guestCpus"], 1.5]),
  "CR-20": runner("runnerTokenSecret", [["runnerTokenSecret"], { name: "x", key: "y" }]),
  "CS-01": server("replicas", [["replicas"], 3]),
  "CS-02": server("securityContext", [["securityContext"], { runAsUser: 0 }]),
  "CS-03": server("database.bundled", [["database", "bundled"], true]),
  "CS-04": server("forge.appId", [["forge", "appId"], "123456"]),
  "CS-05": server("masterKey.env", [["masterKey", "key"], DELETE], [["masterKey", "env"], "COMPASS_MASTER_KEY"]),
  "CS-06": server("adminToken.env", [["adminToken"], { name: "compass-admin-token", env: "COMPASS_ADMIN_TOKEN" }]),
  "CS-07": server("nats.passwordSecret", [["nats", "passwordSecret"], DELETE]),
  "CS-08": server("tls", [["tls"], DELETE]),
  "CS-09": server("runnerClusters", [["runnerClusters"], []]),
  "CS-10": server('nodeSelector["kubernetes.io/arch"]', [["nodeSelector"], { "kubernetes.io/arch": "arm64" }]),
  "CS-11": server("database.cidr", [["database", "cidr"], "db.example.net"]),
  "CS-13": server("config", [["config"], { listen: ":8443" }]),
  "CS-14": server("adminToken", [["designed"], { P4: true }]),
  "CS-15": {
    example: "compass.yaml",
    edits: [
      [["server", "cluster", "jwksFile"], DELETE],
      [["server", "issuerEgress"], [{ cidr: "10.96.0.1/32", ports: [{ port: 443 }] }]],
    ],
    path: "server.cluster.issuer",
  },
  "RP-01": rootpilot("replicas", [["replicas"], 0]),
  "RP-02": rootpilot("containerPort", [["containerPort"], 8080]),
  "RP-03": rootpilot("drainTimeoutMs", [["drainTimeoutMs"], 1.5]),
  "RP-04": rootpilot("learnedFlushIntervalMs", [["learnedFlushIntervalMs"], 0]),
  "RP-05": rootpilot("learnedStorePath", [["learnedStorePath"], "learned.db"]),
  "RP-06": rootpilot("attestation.expirationSeconds", [["attestation", "expirationSeconds"], 599]),
  "RP-07": rootpilot("AWS_ACCESS_KEY_ID", [["AWS_ACCESS_KEY_ID"], "AKIAIOSFODNN7EXAMPLE"]),
  "RP-08": rootpilot("egressAllow[0].cidr", [["egressAllow"], [{ cidr: "vault.example.com" }]]),
  "RP-09": rootpilot("resources.requests.cpu", [["resources", "requests", "cpu"], "lots"]),
  "RP-10": rootpilot("otel.endpoint", [["otel", "endpoint"], "otel:4318"]),
};

/** Requirements no values can break, and why. */
const NO_REFUSING_VALUES: Record<string, string> = {
  "G-02": "a property of the renderer (order and bytes), the same for every values file",
  "G-03": "a property of the renderer's output: render runs the catalog over it, and a finding there is an internal error, not a refusal",
  "CR-18": "node prerequisites: render prints them as a checklist for every values file; no values can break or meet them",
  "CS-12": "the Postgres version and roles live in the database, which values only name; `rigging preflight postgres` judges them",
};

function refusingText({ example, edits }: Refusing): string {
  const doc = parseDocument(readFileSync(join(ROOT, "examples", example), "utf8"));
  for (const [path, value] of edits) {
    if (value === DELETE) doc.deleteIn(path);
    else doc.setIn(path, doc.createNode(value));
  }
  return String(doc);
}

describe("every requirement has a rule, or a named reason it is judged elsewhere", () => {
  it("the IDs of the general rules and of every system run from 01 without a gap", () => {
    for (const prefix of catalog.idPrefixes()) {
      const numbers = IDS.filter((id) => id.startsWith(`${prefix}-`)).map((id) => Number(id.slice(prefix.length + 1)));
      expect(numbers.length, prefix).toBeGreaterThan(0);
      expect(numbers, prefix).toEqual(numbers.map((_, i) => i + 1));
    }
  });

  it("each ID is written once, and every rule judges an ID of the requirement files", () => {
    expect(IDS.length).toBe(catalog.requirementEntries().length);
    for (const id of RULES.keys()) expect(IDS, id).toContain(id);
  });

  it.each(IDS)("%s", (id) => {
    const rule = RULES.get(id);
    const entry = ENTRIES.get(id)!;
    // A requirement is judged by a rule or enforced elsewhere, never both.
    expect(rule === undefined, `${id}: a rule, or enforcedBy`).toBe(entry.enforcedBy !== undefined);
    if (rule && !rule.judgedFrom) expect(rule.check).toBeTypeOf("function");
    else expect(judgedElsewhere(id), `${id}: no rule and no recorded reason`).toMatch(/\w+ \w+ \w+/);
  });
});

describe("every requirement values can break has values that render refuses with its ID", () => {
  it("the table names every requirement once: refusing values, or why there are none", () => {
    const named = [...Object.keys(REFUSING), ...Object.keys(NO_REFUSING_VALUES)].sort();
    expect(named).toEqual([...IDS].sort());
    for (const id of Object.keys(NO_REFUSING_VALUES)) expect(Object.keys(REFUSING)).not.toContain(id);
  });

  it.each(Object.entries(REFUSING))("%s", (id, refusing) => {
    const diagnostics = refusal(refusingText(refusing));
    const found = diagnostics.find((d) => d.id === id);
    expect(found, `no ${id}; got ${JSON.stringify(diagnostics.map((d) => `${d.id} ${d.path}`))}`).toBeDefined();
    expect(found!.path).toBe(refusing.path);
    expect(found!.fix.length).toBeGreaterThan(10);
  });
});

describe("a refusal that breaks a requirement the same way a manifest can says the requirement's own fix", () => {
  const SAME_FIX: [string, Refusing][] = [
    ["RP-03", rootpilot("terminationGracePeriodSeconds", [["terminationGracePeriodSeconds"], 100])],
    ["CS-10", REFUSING["CS-10"]],
    ["CS-10", server("arch", [["arch"], "amd64"])],
    ["CR-17", REFUSING["CR-17"]],
    ["RP-02", REFUSING["RP-02"]],
    ["RP-02", rootpilot("livenessProbe", [["livenessProbe"], { httpGet: { port: 8080 } }])],
  ];
  it.each(SAME_FIX.map(([id, refusing]) => [id, refusing.path, refusing] as const))("%s at %s", (id, _path, refusing) => {
    const found = refusal(refusingText(refusing)).find((d) => d.id === id && d.path === refusing.path);
    expect(found?.fix).toBe(ENTRIES.get(id)!.fix);
  });
});

describe("every requirement a manifest can break has a corpus fixture that check flags with it", () => {
  const fixtures = (system: string, files: string[]) => new Set(files.map((f) => `${system}:${expectedId(f)}`));
  const broken = new Set(CORPUS_SYSTEMS.flatMap((s) => [...fixtures(s, brokenFiles(s))]));
  const warned = new Set(CORPUS_SYSTEMS.flatMap((s) => [...fixtures(s, warnFiles(s))]));
  const judged = catalog.allRules().filter((rule) => !rule.judgedFrom);

  it("the requirements without one are judged elsewhere, or named with a reason", () => {
    const unjudged = IDS.filter((id) => !judged.some((r) => r.id === id));
    for (const id of unjudged) expect(judgedElsewhere(id), id).toMatch(/\w+ \w+ \w+/);
    expect(unjudged).toEqual(["G-01", "G-02", "G-03", "CR-18", "CS-12", "RP-09"]);
    expect(judgedElsewhere("CR-18")).toMatch(/checklist/);
    expect(judgedElsewhere("CS-12")).toMatch(/database/);
    expect(judgedElsewhere("RP-09")).toMatch(/^values/);
  });

  // An error needs a broken/ fixture; a warning, or an error a system holds as rigging's opinion, a warn/ or opinion/ one.
  it.each(judged.flatMap((rule) => rule.profiles.map((system) => [`${system} ${rule.id}`, system, rule.id] as const)))("%s", (_name, system, id) => {
    const key = `${system}:${id}`;
    const rule = RULES.get(id)!;
    const record = SYSTEMS.find((s) => s.name === system)!;
    const opinionHere = (id === "G-05" && record.digestOpinion !== undefined) || rule.severity === "warning";
    if (opinionHere) expect(warned.has(key) || broken.has(key), `${system}/warn/${id}.yaml`).toBe(true);
    else expect(broken.has(key), `${system}/broken/${id}.yaml`).toBe(true);
  });
});
