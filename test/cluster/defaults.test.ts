// The object Kubernetes runs is the one the API server stores: defaults
// filled in, quantities in canonical form. rigging check must give the same
// verdict on a manifest as on what the API server makes of it. The spellings
// it still judges by their text are listed, each with the issue that fixes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseAllDocuments } from "yaml";
import { promisify } from "node:util";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { CLI, ROOT, tempDir } from "../support/cli.ts";
import { startControlPlane, type ControlPlane } from "./support/control-plane.ts";
import { apply, EXAMPLES, examplePath, rendered, yamlStream } from "./support/install.ts";
import { SPELLINGS } from "./support/spellings.ts";

const exec = promisify(execFile);
let cp: ControlPlane;
const work = tempDir();

beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(async () => {
  await cp?.stop();
});

/**
 * Spellings whose verdict still changes once the API server has stored them: rigging judges their text
 * (the issue "check judges the object Kubernetes will run" empties this list, each entry with its test).
 */
const JUDGED_BY_TEXT = new Set<string>([]);

/**
 * Check fixtures whose verdict changes once the API server has stored them, with what changes.
 * The issue "check judges the object Kubernetes will run" empties this list.
 */
const FIXTURES_JUDGED_BY_TEXT = new Set<string>([]);

/** What the API server stores for `object` (a dry-run create), without what only the server writes. */
async function stored(object: K8sObject): Promise<K8sObject> {
  const r = await dryRun(object);
  if (r.status !== 201) throw new Error(`${object.kind} ${object.metadata.name}: ${r.status} ${r.text.slice(0, 400)}`);
  return strip(r.json() as K8sObject);
}

/** An object as the server returns it, without what only the server writes. */
function strip(object: K8sObject): K8sObject {
  const { metadata, status: _status, ...rest } = object as K8sObject & { status?: unknown };
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    managedFields: _m,
    generation: _g,
    ...meta
  } = metadata as K8sObject["metadata"] & Record<string, unknown>;
  return { ...rest, metadata: meta } as unknown as K8sObject;
}

async function dryRun(object: K8sObject) {
  return cp.api("POST", `${await collectionOf(object)}?dryRun=All&fieldValidation=Strict`, object);
}

async function collectionOf(o: K8sObject): Promise<string> {
  const base = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const list = (await cp.api("GET", base)).json() as { resources: { name: string; kind: string; namespaced: boolean }[] };
  const r = list.resources.find((x) => x.kind === o.kind && !x.name.includes("/"))!;
  return `${base}${r.namespaced ? `/namespaces/${o.metadata.namespace ?? "default"}` : ""}/${r.name}`;
}

/** rigging check's findings over a set of objects, as `rule severity kind/name path` lines. */
async function verdict(name: string, objects: readonly K8sObject[]): Promise<string[]> {
  const file = join(work, `${name.replace(/\W+/g, "-")}.yaml`);
  writeFileSync(file, yamlStream(objects));
  const r = await exec(process.execPath, [CLI, "check", file, "--format", "json"]).catch((e: { stdout: string }) => e);
  const findings = JSON.parse(r.stdout) as { ruleId: string; severity: string; object?: { kind: string; name: string }; path?: string }[];
  return findings.map((f) => `${f.ruleId} ${f.severity} ${f.object?.kind}/${f.object?.name} ${f.path ?? ""}`).sort();
}

/** Findings of one check over a tree of fixture folders, by folder. */
async function verdicts(dir: string): Promise<Map<string, string[]>> {
  const r = await exec(process.execPath, [CLI, "check", dir, "--format", "json"], { maxBuffer: 64 * 1024 * 1024 }).catch((e: { stdout: string }) => e);
  const byFolder = new Map<string, string[]>();
  for (const f of JSON.parse(r.stdout) as { file: string; ruleId: string; severity: string; object?: { kind: string; name: string }; path?: string }[]) {
    const folder = relative(dir, f.file).replace(/\/objects\.yaml$/, "");
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), `${f.ruleId} ${f.severity} ${f.object?.kind}/${f.object?.name} ${f.path ?? ""}`].sort());
  }
  return byFolder;
}

async function ensureNamespaces(objects: readonly K8sObject[]): Promise<void> {
  const names = new Set(objects.map((o) => o.metadata?.namespace).filter((n): n is string => Boolean(n)));
  for (const name of names) await cp.api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** The installation with each workload replaced by what the API server stores for it. */
async function asStored(objects: readonly K8sObject[]): Promise<K8sObject[]> {
  await apply(
    cp,
    objects.filter((o) => o.kind === "Namespace"),
  );
  return Promise.all(objects.map((o) => (["DaemonSet", "Deployment", "Service", "NetworkPolicy", "ServiceAccount"].includes(o.kind) ? stored(o) : o)));
}

describe("check judges what the API server stores", () => {
  for (const example of EXAMPLES) {
    it(`${example}: the same findings for the rendered objects and for the stored ones`, async () => {
      const objects = await rendered(examplePath(example));
      expect(await verdict(`${example}-stored`, await asStored(objects))).toEqual(await verdict(example, objects));
    });
  }

  it("each check fixture the server accepts gets the verdict of what the server stores, but those listed", async () => {
    const fixtures = readdirSync(join(ROOT, "test/fixtures/check"), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".yaml"))
      .sort();
    const [text, kube] = [join(work, "fixtures-text"), join(work, "fixtures-stored")];
    let accepted = 0;
    for (const fixture of fixtures) {
      const objects = parseAllDocuments(readFileSync(join(ROOT, "test/fixtures/check", fixture), "utf8"))
        .map((d) => d.toJS() as K8sObject)
        .filter(Boolean);
      await ensureNamespaces(objects);
      const replies = await Promise.all(objects.map((o) => (o.kind === "Namespace" ? undefined : dryRun(o))));
      // A fixture the API server refuses is judged by nobody but rigging; it is not part of this comparison.
      if (replies.some((r) => r && r.status !== 201)) continue;
      accepted++;
      const storedObjects = objects.map((o, i) => (replies[i] ? strip(replies[i]!.json() as K8sObject) : o));
      for (const [dir, set] of [
        [text, objects],
        [kube, storedObjects],
      ] as const) {
        mkdirSync(join(dir, fixture.replace(/\.yaml$/, "")), { recursive: true });
        writeFileSync(join(dir, fixture.replace(/\.yaml$/, ""), "objects.yaml"), yamlStream(set));
      }
    }
    expect(accepted).toBeGreaterThan(fixtures.length / 2);
    const [byText, byKube] = [await verdicts(text), await verdicts(kube)];
    // Most fixtures break a rule: the comparison is of findings, not of two empty reports.
    expect(byText.size).toBeGreaterThan(accepted / 2);
    const differing = [...new Set([...byText.keys(), ...byKube.keys()])]
      .filter((f) => JSON.stringify(byText.get(f) ?? []) !== JSON.stringify(byKube.get(f) ?? []))
      .map((f) => `${f}: text ${JSON.stringify(byText.get(f) ?? [])}, stored ${JSON.stringify(byKube.get(f) ?? [])}`);
    expect(differing.filter((d) => !FIXTURES_JUDGED_BY_TEXT.has(d.split(":")[0]))).toEqual([]);
    expect([...FIXTURES_JUDGED_BY_TEXT].filter((f) => !differing.some((d) => d.startsWith(`${f}:`)))).toEqual([]);
  });

  it("each spelling of the Runner gets the verdict of the object it becomes, but those listed", async () => {
    const base = await rendered(examplePath("compass-runner.yaml"));
    const differing: string[] = [];
    for (const spelling of SPELLINGS) {
      const objects = base.map((o) => (o.kind === "DaemonSet" ? spelling.edit(structuredClone(o)) : o));
      const [text, kube] = [await verdict(spelling.name, objects), await verdict(`${spelling.name}-stored`, await asStored(objects))];
      // The spelling must be one the API server changes; otherwise it proves nothing here.
      const ds = objects.find((o) => o.kind === "DaemonSet")!;
      expect(JSON.stringify(await stored(ds)), spelling.name).not.toEqual(JSON.stringify(ds));
      if (JSON.stringify(text) !== JSON.stringify(kube)) differing.push(`${spelling.name}: text ${JSON.stringify(text)}, stored ${JSON.stringify(kube)}`);
    }
    expect(differing.filter((d) => !JUDGED_BY_TEXT.has(d.split(":")[0]))).toEqual([]);
    expect([...JUDGED_BY_TEXT].filter((name) => !differing.some((d) => d.startsWith(`${name}:`)))).toEqual([]);
  });
});
