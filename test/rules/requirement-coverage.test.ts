// Every requirement ID of the requirement files (the general one and every
// system's of the registry) is covered three ways, or the data names why it
// cannot be:
// (a) a rule over manifests, or the reason the requirement data records that
//     it is judged elsewhere (its `judged`);
// (b) values that render refuses with that ID: the entry's `refusedBy` (for a
//     G- requirement, a system's `generalRefusedBy`), or its `noValues` reason;
// (c) a corpus fixture that `check` flags with that ID (corpus.test.ts runs it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import type { RefusedBy } from "../../src/rules/requirement-data.ts";
import { catalog, SYSTEMS, type System } from "../../src/systems/registry.ts";
import { ROOT } from "../support/cli.ts";
import { brokenFiles, CORPUS_SYSTEMS, expectedId, warnFiles } from "../support/corpus.ts";
import { refusal } from "../support/values.ts";

const ENTRIES = new Map(catalog.requirementEntries().map((r) => [r.id, r]));
const IDS = [...ENTRIES.keys()];
const RULES = new Map(catalog.allRules().map((r) => [r.id, r]));

/** What the requirement data records as the reason a requirement is not judged from manifests. */
function judgedElsewhere(id: string): string | undefined {
  const judged = ENTRIES.get(id)?.judged;
  return judged?.by === "not-manifests" ? judged.from : judged?.by === "elsewhere" ? judged.where : undefined;
}

/** Values that break a requirement: edits to a bundled example of `system`. */
interface Refusal {
  id: string;
  system: System;
  by: RefusedBy;
}

/** Every refusal the data records: each system's own requirements', then how its values break the G- ones. */
const REFUSALS: Refusal[] = SYSTEMS.flatMap((system) => [
  ...Object.values(system.requirements).flatMap((entry) => (entry.refusedBy ? [{ id: entry.id, system, by: entry.refusedBy }] : [])),
  ...Object.entries(system.generalRefusedBy ?? {}).flatMap(([id, by]) => (by ? [{ id, system, by }] : [])),
]);

const systemNamed = (name: string) => SYSTEMS.find((s) => s.name === name)!;

function refusingText({ system, by: { example, edits } }: Refusal): string {
  const doc = parseDocument(readFileSync(join(ROOT, example ?? system.valuesKinds[0].example), "utf8"));
  for (const edit of edits) {
    if ("delete" in edit) doc.deleteIn(edit.at);
    else doc.setIn(edit.at, doc.createNode(edit.value));
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
    expect(rule === undefined, `${id}: a rule, or judged elsewhere`).toBe(entry.judged?.by === "elsewhere");
    if (rule && rule.judged?.by !== "not-manifests") expect(rule.check).toBeTypeOf("function");
    else expect(judgedElsewhere(id), `${id}: no rule and no recorded reason`).toMatch(/\w+ \w+ \w+/);
  });
});

describe("every requirement values can break has values that render refuses with its ID", () => {
  it.each(IDS)("%s says how values break it, or why none can, never both", (id) => {
    const entry = ENTRIES.get(id)!;
    const refusals = REFUSALS.filter((r) => r.id === id);
    // A G- requirement knows no system: the systems' records say how their values break it.
    if (id.startsWith("G-")) expect(entry.refusedBy, id).toBeUndefined();
    if (entry.noValues === undefined) expect(refusals.length, `${id}: refusedBy or noValues`).toBeGreaterThan(0);
    else {
      expect(refusals, `${id}: refusedBy and noValues`).toEqual([]);
      expect(entry.noValues).toMatch(/\w+ \w+ \w+/);
    }
  });

  it("a system's refusals name its own requirements or the general ones, and edit its own examples", () => {
    for (const { id, system, by } of REFUSALS) {
      expect(ENTRIES.get(id)?.profiles, `${system.name} ${id}`).toContain(system.name);
      if (by.example) expect(system.valuesKinds.map((k) => k.example)).toContain(by.example);
    }
  });

  it.each(REFUSALS.map((r) => [`${r.id} in ${r.system.name} values`, r] as const))("%s", (_name, refusing) => {
    const diagnostics = refusal(refusingText(refusing));
    const found = diagnostics.find((d) => d.id === refusing.id);
    expect(found, `no ${refusing.id}; got ${JSON.stringify(diagnostics.map((d) => `${d.id} ${d.path}`))}`).toBeDefined();
    expect(found!.path).toBe(refusing.by.path);
    expect(found!.fix.length).toBeGreaterThan(10);
  });
});

describe("a refusal that breaks a requirement the same way a manifest can says the requirement's own fix", () => {
  const recorded = (id: string) => REFUSALS.find((r) => r.id === id)!;
  const other = (id: string, system: string, path: string, value: unknown): Refusal => ({
    id,
    system: systemNamed(system),
    by: { edits: [{ at: [path], value }], path },
  });
  const SAME_FIX: Refusal[] = [
    other("RP-03", "rootpilot-runner", "terminationGracePeriodSeconds", 100),
    recorded("CS-10"),
    other("CS-10", "compass-server", "arch", "amd64"),
    recorded("CR-17"),
    recorded("RP-02"),
    other("RP-02", "rootpilot-runner", "livenessProbe", { httpGet: { port: 8080 } }),
  ];
  it.each(SAME_FIX.map((r) => [r.id, r.by.path, r] as const))("%s at %s", (id, _path, refusing) => {
    const found = refusal(refusingText(refusing)).find((d) => d.id === id && d.path === refusing.by.path);
    expect(found?.fix).toBe(ENTRIES.get(id)!.fix);
  });
});

describe("every requirement a manifest can break has a corpus fixture that check flags with it", () => {
  const fixtures = (system: string, files: string[]) => new Set(files.map((f) => `${system}:${expectedId(f)}`));
  const broken = new Set(CORPUS_SYSTEMS.flatMap((s) => [...fixtures(s, brokenFiles(s))]));
  const warned = new Set(CORPUS_SYSTEMS.flatMap((s) => [...fixtures(s, warnFiles(s))]));
  const judged = catalog.allRules().filter((rule) => rule.judged?.by !== "not-manifests");

  it("the requirements without one are judged elsewhere, or named with a reason", () => {
    const unjudged = IDS.filter((id) => !judged.some((r) => r.id === id));
    for (const id of unjudged) expect(judgedElsewhere(id), id).toMatch(/\w+ \w+ \w+/);
    expect(unjudged).toEqual(["G-01", "G-02", "G-03", "CR-18", "CS-12", "RP-09"]);
    expect(judgedElsewhere("CR-18")).toMatch(/checklist/);
    expect(judgedElsewhere("CS-12")).toMatch(/database/);
    expect(judgedElsewhere("RP-09")).toMatch(/^values/);
  });

  // An error needs a broken/ fixture; a warning, or an error a system holds as rigging's opinion, a warn/ one.
  it.each(judged.flatMap((rule) => rule.profiles.map((system) => [`${system} ${rule.id}`, system, rule.id] as const)))("%s", (_name, system, id) => {
    const key = `${system}:${id}`;
    const rule = RULES.get(id)!;
    const record = systemNamed(system);
    const opinionHere = (id === "G-05" && record.digestOpinion !== undefined) || rule.severity === "warning";
    if (opinionHere) expect(warned.has(key) || broken.has(key), `${system}/warn/${id}.yaml`).toBe(true);
    else expect(broken.has(key), `${system}/broken/${id}.yaml`).toBe(true);
  });
});
