// Layered values with Helm's rules: one test per rule on the merged values,
// then through `rigging render -f -f --set`, where every refusal points at
// the layer that set the value, and the bad inputs of the issue.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadValues, type SetArgument } from "../../src/values/layers.ts";
import { parseSet } from "../../src/values/set-values.ts";
import { ROOT, runInProcess, tempDir } from "../support/cli.ts";

let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const set = (...args: string[]): SetArgument[] => args.map((arg) => ({ flag: "--set", arg }));
const merged = (files: string[], sets: SetArgument[] = []) => loadValues(files, sets).data;

beforeAll(() => {
  dir = tempDir();
});

describe("Helm's rules, on the merged values", () => {
  it("a later file wins, and maps merge key by key", () => {
    const a = file("a.yaml", "kind: RootpilotRunner\nreplicas: 2\nattestation:\n  provider: gke\n  expirationSeconds: 3600\n");
    const b = file("b.yaml", "replicas: 5\nattestation:\n  expirationSeconds: 7200\n");
    expect(merged([a, b])).toEqual({ kind: "RootpilotRunner", replicas: 5, attestation: { provider: "gke", expirationSeconds: 7200 } });
  });

  it("lists replace, they do not merge", () => {
    const a = file("list-a.yaml", "egressAllow:\n  - cidr: 10.0.0.0/8\n  - cidr: 192.0.2.0/24\n");
    const b = file("list-b.yaml", "egressAllow:\n  - cidr: 198.51.100.0/24\n");
    expect(merged([a, b])).toEqual({ egressAllow: [{ cidr: "198.51.100.0/24" }] });
  });

  it("a scalar replaces a map and a map replaces a scalar", () => {
    const a = file("s-a.yaml", "otel:\n  endpoint: http://x:4318\nname: a\n");
    const b = file("s-b.yaml", "otel: off\nname:\n  first: b\n");
    expect(merged([a, b])).toEqual({ otel: "off", name: { first: "b" } });
  });

  it("null removes a key an earlier file set; a file alone keeps its nulls", () => {
    const a = file("n-a.yaml", "otel:\n  endpoint: http://x:4318\nreplicas: 2\nnested:\n  keep: 1\n  drop: 2\n");
    const b = file("n-b.yaml", "otel: null\nnested:\n  drop: ~\n");
    expect(merged([a, b])).toEqual({ replicas: 2, nested: { keep: 1 } });
    expect(merged([file("n-c.yaml", "otel: null\n")])).toEqual({ otel: null });
  });

  it("--set with dotted paths makes the maps on its way and merges into the files' maps", () => {
    const a = file("set-a.yaml", "attestation:\n  provider: gke\n");
    expect(merged([a], set("attestation.expirationSeconds=700,secretStore.mode=vault"))).toEqual({
      attestation: { provider: "gke", expirationSeconds: 700 },
      secretStore: { mode: "vault" },
    });
  });

  it("--set with indexes: an item of a list a file set, or the end of it to append", () => {
    const a = file("idx-a.yaml", "egressAllow:\n  - cidr: 10.0.0.0/8\n    ports:\n      - port: 443\n");
    expect(merged([a], set("egressAllow[0].ports[0].port=8443", "egressAllow[1].cidr=192.0.2.1/32"))).toEqual({
      egressAllow: [{ cidr: "10.0.0.0/8", ports: [{ port: 8443 }] }, { cidr: "192.0.2.1/32" }],
    });
  });

  it("--set types as Helm's: true/false/null, whole numbers without a leading 0, lists in {}; the rest are strings", () => {
    expect(parseSet("a=true,b=FALSE,c=0,d=-12,e=007,f=1.5,g=,h={x,2,true},i=1e3").map((x) => [x.path.join("."), x.value])).toEqual([
      ["a", true],
      ["b", false],
      ["c", 0],
      ["d", -12],
      ["e", "007"],
      ["f", "1.5"],
      ["g", ""],
      ["h", ["x", 2, true]],
      ["i", "1e3"],
    ]);
    expect(parseSet("a=true,b=12", true).map((x) => x.value)).toEqual(["true", "12"]);
    expect(parseSet("a\\.b=c\\,d")).toEqual([{ path: ["a.b"], value: "c,d" }]);
  });

  it("--set KEY=null removes the key; later --set arguments apply after earlier ones", () => {
    const a = file("setnull.yaml", "otel:\n  endpoint: http://x:4318\nreplicas: 2\n");
    expect(merged([a], set("otel=null", "replicas=3", "replicas=4"))).toEqual({ replicas: 4 });
  });
});

describe("rigging render -f -f --set", () => {
  let base: string;
  beforeAll(() => {
    base = file("base.yaml", readFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), "utf8"));
  });
  const objects = (out: string) => parseAllDocuments(out).map((d) => d.toJS());

  it("renders the layers: the cluster file's and --set's values reach the objects", () => {
    const cluster = file("cluster.yaml", "replicas: 5\n");
    const r = runInProcess(["render", "-f", base, "-f", cluster, "--set", "attestation.expirationSeconds=7200"]);
    expect(r.code, r.err).toBe(0);
    const deployment = objects(r.out).find((o) => o.kind === "Deployment");
    expect(deployment.spec.replicas).toBe(5);
    expect(JSON.stringify(deployment.spec.template.spec.volumes)).toContain('"expirationSeconds":7200');
  });

  it("a refusal names the file and line of the layer that set the value", () => {
    const cluster = file("cluster-bad.yaml", "replicas: 5\nattestation:\n  expirationSeconds: 60\n");
    const r = runInProcess(["render", "-f", base, "-f", cluster]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain(`${cluster}:3:22 attestation.expirationSeconds: 60 is below 600`);
  });

  it("a refusal names the --set argument that set the value", () => {
    const r = runInProcess(["render", "-f", base, "--set", "replicas=zero"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('--set "replicas=zero" replicas: "zero" expected a number (RP-01');
  });

  it.each([
    ["a map under a map the file has", "attestation.extra.deep=1", "attestation.extra: unknown key"],
    ["maps under a key the file does not have", "nodeSelector.a.b=1", "nodeSelector.a: expected a string"],
    ["a map in place of the file's string", "attestation.provider.x=1", "attestation.provider: is not gke or eks"],
    ["a list and its item", "tolerations[0].key.x=1", "tolerations[0].key: invalid input"],
  ])("a refusal of %s that --set made names the --set argument, not the file", (_, arg, message) => {
    const r = runInProcess(["render", "-f", base, "--set", arg]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`--set ${JSON.stringify(arg)} ${message}`);
    expect(r.err).not.toContain(base);
  });

  it("a value a later layer did not touch is still located in the file that set it", () => {
    const text = readFileSync(base, "utf8").replace(/^ {2}expirationSeconds: .*$/m, "  expirationSeconds: 60");
    const low = file("base-low.yaml", text);
    const line = text.split("\n").findIndex((l) => l.startsWith("  expirationSeconds: 60")) + 1;
    const r = runInProcess(["render", "-f", low, "--set", "replicas=4"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${low}:${line}:22 attestation.expirationSeconds: 60 is below 600`);
  });

  it.each([
    ["a..b=1", /--set "a\.\.b=1": an empty key in the path at character 3/],
    ["a[x]=1", /--set "a\[x\]=1": an index is a whole number in \[\]/],
    ["replicas", /--set "replicas": key "replicas" has no value \(expected KEY=VALUE\)/],
    ["egressAllow[7].cidr=192.0.2.1/32", /--set "egressAllow\[7\]\.cidr=192\.0\.2\.1\/32": index 7 is past the end of egressAllow \(2 items\)/],
  ])("refuses --set %s with the argument quoted (exit 2, nothing printed)", (arg, message) => {
    const r = runInProcess(["render", "-f", base, "--set", arg]);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(message);
  });

  it("refuses two files of different kinds in one line", () => {
    const server = file("server.yaml", "kind: CompassServer\n");
    const r = runInProcess(["render", "-f", base, "-f", server]);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split("\n")).toEqual([
      `error ${server}:1:7 kind: "CompassServer", but ${base}:4:7 has kind: "RootpilotRunner"; layered values files render one kind`,
    ]);
  });

  it("-f yaml is not taken for --format", () => {
    const r = runInProcess(["render", "-f", "json"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("-f json: -f is a values file, as in Helm; the output format is --format json");
  });
});

describe("base: a file names the file it builds on", () => {
  it("renders a cluster file on its base, the chain in order", () => {
    const shared = join(dir, "fleet");
    mkdirSync(join(shared, "clusters"), { recursive: true });
    writeFileSync(join(shared, "base.yaml"), readFileSync(join(ROOT, "examples", "rootpilot-gke.yaml"), "utf8"));
    writeFileSync(join(shared, "region.yaml"), "base: base.yaml\nreplicas: 3\n");
    writeFileSync(join(shared, "clusters", "one.yaml"), "base: ../region.yaml\nname: one\n");
    // The base sits above the cluster file's directory: outside a repository, --values-root names the tree that holds both.
    const data = loadValues([join(shared, "clusters", "one.yaml")], [], { valuesRoot: shared }).data as Record<string, unknown>;
    expect(data).toMatchObject({ kind: "RootpilotRunner", replicas: 3, name: "one" });
    expect(data).not.toHaveProperty("base");
    const r = runInProcess(["render", join(shared, "clusters", "one.yaml"), "--values-root", shared]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("name: one\n");
    expect(runInProcess(["render", join(shared, "clusters", "one.yaml")]).err).toContain("outside");
    // In a repository (a .git above), the repository is the tree: no flag.
    mkdirSync(join(shared, ".git"));
    const inRepo = runInProcess(["render", join(shared, "clusters", "one.yaml")]);
    expect(inRepo.code, inRepo.err).toBe(0);
  });

  it("refuses a missing base with the chain of files", () => {
    const a = file("chain-a.yaml", "base: chain-b.yaml\n");
    file("chain-b.yaml", "base: chain-gone.yaml\n");
    const r = runInProcess(["render", a]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `base: ${join(dir, "chain-gone.yaml")}: cannot read: no such file (${a} -> ${join(dir, "chain-b.yaml")} -> ${join(dir, "chain-gone.yaml")})`,
    );
  });

  it("refuses a cycle with the chain of files", () => {
    const a = file("cycle-a.yaml", "base: cycle-b.yaml\n");
    const b = file("cycle-b.yaml", "base: cycle-a.yaml\n");
    const r = runInProcess(["render", a]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${b}:1:7 base: cycle-a.yaml makes a cycle: ${a} -> ${b} -> ${a}`);
  });
});
