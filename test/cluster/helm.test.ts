// Real Helm 4 (the rigging-check plugin) and Helm 3 (--post-renderer rigging) run rigging as their post-renderer: a clean chart renders the same objects, a wrong Runner token audience (CR-03) stops helm, and helm's own output says why.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, type Scalar } from "yaml";
import { CLI, ROOT, riggingOnPath, tempDir } from "../support/cli.ts";
import { testTool } from "./support/control-plane.ts";
import { run } from "./support/run.ts";

type Obj = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
type WithVolumes = { spec: { template: { spec: { volumes: { projected?: { sources: { serviceAccountToken?: { audience?: string } }[] } }[] } } } };

const HELM_DOC = readFileSync(join(ROOT, "docs", "integrations", "helm.md"), "utf8");

let work: string;
let PATH: string;
let clean: string;
let faulty: string;
let cleanChart: string;
let faultyChart: string;

/** The flags after `helm install my-release chart/` in the first command of a section of docs/integrations/helm.md. */
function documentedFlags(heading: string): string[] {
  const section = HELM_DOC.split(/^## /m).find((s) => s.startsWith(heading));
  const command = section && /^helm install my-release chart\/ ((?:.*\\\n)*.*)$/m.exec(section);
  if (!command) throw new Error(`docs/integrations/helm.md: no "helm install my-release chart/" under "## ${heading}"`);
  return command[1].replace(/\\\n/g, " ").trim().split(/\s+/);
}

/** The objects of a YAML stream, in a stable order (Helm re-indents and re-orders by kind). */
function objectsOf(text: string): Obj[] {
  const docs = parseAllDocuments(text);
  for (const doc of docs) expect(doc.errors, String(doc.errors[0])).toEqual([]);
  const id = (o: Obj) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
  return docs
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o === "object")
    .sort((a, b) => id(a).localeCompare(id(b)));
}

/** The path of the audience of the DaemonSet's projected serviceAccountToken (CR-03). */
function audiencePath(daemonSet: Obj): (string | number)[] {
  const volumes = (daemonSet as unknown as WithVolumes).spec.template.spec.volumes;
  for (const [i, volume] of volumes.entries())
    for (const [j, source] of (volume.projected?.sources ?? []).entries())
      if (source.serviceAccountToken?.audience) return ["spec", "template", "spec", "volumes", i, "projected", "sources", j, "serviceAccountToken", "audience"];
  throw new Error("the DaemonSet mounts no projected serviceAccountToken with an audience");
}

/** `manifests` with the Runner's token audience replaced, every other byte unchanged. */
function withAudience(manifests: string, audience: string): string {
  for (const doc of parseAllDocuments(manifests)) {
    if (doc.get("kind") !== "DaemonSet") continue;
    const node = doc.getIn(audiencePath(doc.toJS() as Obj), true) as Scalar;
    expect(node.value).not.toBe(audience);
    const [start, end] = node.range!;
    return manifests.slice(0, start) + audience + manifests.slice(end);
  }
  throw new Error("no DaemonSet in the render");
}

function writeChart(dir: string, manifests: string): string {
  mkdirSync(join(dir, "templates"), { recursive: true });
  writeFileSync(join(dir, "Chart.yaml"), "apiVersion: v2\nname: rigging-e2e\nversion: 0.1.0\n");
  writeFileSync(join(dir, "templates", "all.yaml"), manifests.replaceAll("{{", '{{ "{{" }}'));
  return dir;
}

/** Helm with its config, data and cache in `home`, rigging on PATH, and no cluster. */
function helm(binary: string, home: string, args: string[]) {
  const env = {
    PATH,
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_PLUGINS: undefined,
    KUBECONFIG: join(home, "no-kubeconfig"),
  };
  return run(binary, args, { env, cwd: work });
}

beforeAll(async () => {
  work = tempDir();
  PATH = riggingOnPath(work);
  const rendered = await run(process.execPath, [CLI, "render", "-f", join(ROOT, "examples", "compass-runner.yaml")]);
  expect(rendered.code, rendered.err).toBe(0);
  clean = rendered.out;
  faulty = withAudience(clean, "not-the-runner");
  const check = await run(process.execPath, [CLI, "check", "-"], { input: faulty });
  expect(check.code).toBe(1);
  expect(check.out).toMatch(/CR-03/);
  cleanChart = writeChart(join(work, "clean"), clean);
  faultyChart = writeChart(join(work, "faulty"), faulty);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("Helm 4: --post-renderer rigging-check (the plugin of integrations/helm)", () => {
  let helm4: string;
  let home: string;
  const flags = documentedFlags("Helm 4");

  beforeAll(async () => {
    helm4 = testTool("helm4");
    home = join(work, "helm4");
    expect(flags).toEqual(["--post-renderer", "rigging-check"]);
    const installed = await helm(helm4, home, ["plugin", "install", join(ROOT, "integrations", "helm")]);
    expect(installed.code, installed.err).toBe(0);
    const list = await helm(helm4, home, ["plugin", "list"]);
    expect(list.out).toMatch(/^rigging-check\s/m);
  });

  it("renders a clean chart: exit 0 and the same objects", async () => {
    const r = await helm(helm4, home, ["template", "r", cleanChart, ...flags]);
    expect(r.code, r.err).toBe(0);
    expect(objectsOf(r.out)).toEqual(objectsOf(clean));
  });

  it.each([
    ["helm template", ["template", "r"]],
    ["helm template --debug", ["template", "r", "--debug"]],
    ["helm install --dry-run=client", ["install", "r", "--dry-run=client"]],
  ])("stops on a wrong Runner token audience (CR-03), and %s prints rigging's finding with the template's file", async (_, command) => {
    const r = await helm(helm4, home, [...command.slice(0, 2), faultyChart, ...command.slice(2), ...flags]);
    expect(r.code).not.toBe(0);
    expect(objectsOf(r.out)).toEqual([]);
    expect(r.err).toMatch(/^Error: .*error while parsing post rendered output/m);
    expectFinding(r.err);
  });

  it("says so when --post-renderer-args are wrong", async () => {
    const r = await helm(helm4, home, ["template", "r", cleanChart, ...flags, "--post-renderer-args", "--profil"]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/unknown option --profil for rigging check \(did you mean --profile\?\)/);
  });
});

/** rigging's CR-03 finding as a user reads it: the rule, the template Helm rendered it from, the value, the fix. */
function expectFinding(shown: string): void {
  const line = shown.split("\n").find((l) => /\bCR-03\b/.test(l) && /not-the-runner/.test(l));
  expect(line, shown).toBeDefined();
  expect(line).toMatch(/rigging-e2e\/templates\/all\.yaml/);
  expect(line).toMatch(/serviceAccountToken\.audience/);
  expect(shown).toMatch(/CR-03 +mount a projected serviceAccountToken \(audience compass-runner/);
}

describe("Helm 3: helm template --post-renderer rigging --post-renderer-args ... (docs/integrations/helm.md)", () => {
  let helm3: string;
  let home: string;
  const flags = documentedFlags("Helm 3");

  beforeAll(() => {
    helm3 = testTool("helm3");
    home = join(work, "helm3");
    expect(flags.slice(0, 2)).toEqual(["--post-renderer", "rigging"]);
  });

  it("renders a clean chart: exit 0 and the same objects", async () => {
    const r = await helm(helm3, home, ["template", "r", cleanChart, ...flags]);
    expect(r.code, r.err).toBe(0);
    expect(objectsOf(r.out)).toEqual(objectsOf(clean));
  });

  it("stops on a wrong Runner token audience: a non-zero exit, and rigging's CR-03 finding with the template's file in helm's stderr", async () => {
    const r = await helm(helm3, home, ["template", "r", faultyChart, ...flags]);
    expect(r.code).not.toBe(0);
    expectFinding(r.err);
    expect(objectsOf(r.out)).toEqual([]);
  });
});
