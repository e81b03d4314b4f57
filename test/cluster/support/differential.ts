// The differential harness: every mutant of the catalog goes to the real API
// server (a strict server-side dry run) and to `rigging check` (the schema
// rule, which stands for what the API server refuses); each pair of
// verdicts is a trial, and a trial where they differ is a disagreement.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { stringify } from "yaml";
import type { CheckFinding } from "../../../src/check/run.ts";
import { CLI, ROOT } from "../../support/cli.ts";
import type { ControlPlane } from "./control-plane.ts";
import { CORPUS } from "./corpus.ts";
import { EXAMPLES, examplePath, rendered } from "./install.ts";
import { mutants, type Schemas } from "./mutations.ts";
import { run } from "./run.ts";

export const NAMESPACE = "diff";
/** The seed of every choice among fields: a run repeats the one before it. */
export const SEED = 45;

export interface Verdict {
  refused: boolean;
  message: string;
}

export interface Trial {
  class: string;
  kind: string;
  field: string;
  server: Verdict;
  rigging: Verdict;
}

type Obj = Record<string, unknown>;
type Resource = { plural: string; namespaced: boolean };
/** Discovery by group-version, asked once per run: undefined where the server serves no such group-version. */
type Discovered = Map<string, Map<string, Resource> | undefined>;

/** The server's resources of a group-version, by kind; undefined where it serves no such group-version. */
async function discovery(cp: ControlPlane, apiVersion: string, cache: Discovered) {
  if (!cache.has(apiVersion)) {
    const reply = await cp.api("GET", apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
    const resources = reply.status === 200 ? (reply.json().resources as { name: string; kind: string; namespaced: boolean }[]) : undefined;
    cache.set(
      apiVersion,
      resources && new Map(resources.filter((r) => !r.name.includes("/")).map((r) => [r.kind, { plural: r.name, namespaced: r.namespaced }])),
    );
  }
  return cache.get(apiVersion);
}

/** The server's verdict on creating `object`: a dry run with strict field validation. */
async function serverVerdict(cp: ControlPlane, object: Obj, cache: Discovered): Promise<Verdict> {
  const apiVersion = String(object.apiVersion);
  const resource = (await discovery(cp, apiVersion, cache))?.get(String(object.kind));
  if (!resource) return { refused: true, message: `404: the server serves no ${object.kind} at ${apiVersion}` };
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const path = `${base}${resource.namespaced ? `/namespaces/${NAMESPACE}` : ""}/${resource.plural}?dryRun=All&fieldValidation=Strict`;
  const reply = await cp.api("POST", path, object);
  const refused = reply.status >= 300;
  return { refused, message: refused ? `${reply.status}: ${String(reply.json().message ?? reply.text).slice(0, 600)}` : `${reply.status}` };
}

/** Namespaced objects in the harness's namespace, cluster-scoped ones without one. */
async function placed(cp: ControlPlane, object: Obj, cache: Discovered): Promise<Obj> {
  const resource = (await discovery(cp, String(object.apiVersion), cache))?.get(String(object.kind));
  const metadata = { ...(object.metadata as Obj) };
  if (resource?.namespaced) metadata.namespace = NAMESPACE;
  else delete metadata.namespace;
  return { ...object, metadata };
}

/** The corpus and every object the examples render, placed; a kind and name once. */
export async function bases(cp: ControlPlane, cache: Discovered): Promise<Obj[]> {
  const all = [...CORPUS, ...(await Promise.all(EXAMPLES.map((e) => rendered(examplePath(e))))).flat()] as Obj[];
  const seen = new Set<string>();
  const out: Obj[] = [];
  for (const object of all) {
    const key = `${object.apiVersion} ${object.kind} ${(object.metadata as Obj).name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(await placed(cp, object, cache));
  }
  return out;
}

/** rigging check's verdict on each object, from one run over a directory each. */
async function riggingVerdicts(objects: readonly Obj[], version: string): Promise<Verdict[]> {
  const dir = mkdtempSync(join(tmpdir(), "rigging-differential-"));
  try {
    objects.forEach((object, i) => {
      mkdirSync(join(dir, String(i)));
      writeFileSync(join(dir, String(i), "object.yaml"), stringify(object, { lineWidth: 0 }));
    });
    const r = await run(process.execPath, [CLI, "check", "--format", "json", "--schema-only", "--kube-version", version, dir], { cwd: ROOT });
    if (r.code !== 0 && r.code !== 1) throw new Error(`rigging check exited ${r.code}:\n${r.err.slice(-3000)}`);
    const errors = new Map<number, string[]>();
    for (const f of JSON.parse(r.out) as CheckFinding[]) {
      if (f.severity !== "error") continue;
      const index = Number(relative(dir, f.file).split(sep)[0]);
      errors.set(index, [...(errors.get(index) ?? []), `${f.ruleId} ${f.path}: ${f.message}`]);
    }
    return objects.map((_, i) => ({ refused: errors.has(i), message: (errors.get(i) ?? ["accepted"]).join("; ").slice(0, 600) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each object's server verdict, a few requests in flight at once. */
async function serverVerdicts(cp: ControlPlane, objects: readonly Obj[], cache: Discovered): Promise<Verdict[]> {
  const out: Verdict[] = new Array(objects.length);
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const i = next++;
      out[i] = await serverVerdict(cp, objects[i], cache);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return out;
}

/** Makes the namespace the harness dry-runs in (for real: a dry run cannot create it and its objects in one call). */
export async function prepare(cp: ControlPlane): Promise<void> {
  for (const [path, body] of [
    ["/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } }],
    [`/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } }],
  ] as const) {
    const reply = await cp.api("POST", path, body);
    if (reply.status >= 300 && reply.status !== 409) throw new Error(`POST ${path}: ${reply.status} ${reply.text}`);
  }
}

/** Every trial: each base object as written (the class "valid object"), then each of its mutants. */
export async function differential(
  cp: ControlPlane,
  schemas: Schemas,
  version: string,
  judge: (objects: readonly Obj[], version: string) => Promise<Verdict[]> = riggingVerdicts,
): Promise<Trial[]> {
  await prepare(cp);
  const cache: Discovered = new Map();
  const objects = await bases(cp, cache);
  const cases = objects.flatMap((object, i) => [
    { class: "valid object", field: "", object },
    ...mutants(object, schemas, SEED + i).map((m) => ({ ...m, object: m.object as Obj })),
  ]);
  const [server, rigging] = await Promise.all([
    serverVerdicts(
      cp,
      cases.map((c) => c.object),
      cache,
    ),
    judge(
      cases.map((c) => c.object),
      version,
    ),
  ]);
  return cases.map((c, i) => ({ class: c.class, kind: String(c.object.kind), field: c.field, server: server[i], rigging: rigging[i] }));
}

export const schemasOf = (version: string): Schemas => JSON.parse(readFileSync(join(ROOT, "kube-schemas", `${version}.json`), "utf8")) as Schemas;
