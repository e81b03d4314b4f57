// Every flag and variable a rendered Compass pod carries is one the real
// program reads: it is in the system's contract file, and each contract
// entry is in the interface facts (test/fixtures/compass-interfaces.md, a
// copy of the facts gathered from the public Compass sources) with the same
// status. A name no Compass program reads makes the pod fail at boot.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../../src/k8s/objects.ts";
import { parse } from "yaml";
import { FORBIDDEN_SETTINGS, RUNNER_SETTINGS, type Setting } from "../../../src/systems/compass-runner/interface.ts";
import { type InterfaceName, SERVER_INTERFACE, SERVER_SECRETS } from "../../../src/systems/compass-server/interface.ts";
import { ROOT } from "../../support/cli.ts";
import { render } from "../../support/values.ts";

const FACTS = readFileSync(join(ROOT, "test/fixtures/compass-interfaces.md"), "utf8");
const factRows = FACTS.split("\n").filter((line) => line.startsWith("|"));

/** The facts' rows that name `name` as a whole word. */
function rowsNaming(name: string): string[] {
  const word = new RegExp(`(?<![A-Za-z0-9_-])${name.replace(/[-]/g, "\\-")}(?![A-Za-z0-9_-])`);
  return factRows.filter((row) => word.test(row));
}

const inputs = [...readdirSync(join(ROOT, "examples")).map((f) => join(ROOT, "examples", f)), join(ROOT, "test/fixtures/upstream/values.example.json")];

function runnerContainers(objects: K8sObject[]) {
  return objects
    .filter((o) => o.kind === "DaemonSet" && o.metadata.labels?.["app.kubernetes.io/name"] === "compass-runner")
    .flatMap((o) => (o.spec as any).template.spec.containers as { env?: { name: string }[]; args?: string[]; command?: string[] }[]);
}

const namesOf = (c: { env?: { name: string }[]; args?: string[]; command?: string[] }) => [
  ...(c.env ?? []).map((e) => e.name),
  ...[...(c.args ?? []), ...(c.command ?? []).slice(1)].filter((a) => a.startsWith("--")).map((a) => a.split("=")[0]),
];

describe("the Compass Runner contract (CR-20)", () => {
  const contract = new Set(
    Object.values(RUNNER_SETTINGS as Record<string, Setting>).flatMap((s) => [s.flag, s.env].filter((n): n is string => n !== undefined)),
  );

  it.each(
    inputs.filter((f) => /compass(-runner)?\.yaml$|values\.example\.json$/.test(f)),
  )("every name in the Runner rendered from %s is in the contract", (file) => {
    const containers = runnerContainers(render(readFileSync(file, "utf8")));
    expect(containers.length).toBeGreaterThan(0);
    for (const c of containers) for (const name of namesOf(c)) expect(contract.has(name), `${name} is not in interface.ts`).toBe(true);
  });

  it.each(Object.entries(RUNNER_SETTINGS as Record<string, Setting>))("%s is in the interface facts with its status", (_key, setting) => {
    for (const name of [setting.flag, setting.env].filter((n): n is string => n !== undefined)) {
      const rows = rowsNaming(name);
      expect(rows.length, `${name} is not in compass-interfaces.md`).toBeGreaterThan(0);
      if (setting.status === "designed")
        expect(
          rows.some((r) => /designed/.test(r)),
          `${name} is not marked designed there`,
        ).toBe(true);
      else
        expect(
          rows.some((r) => /\| implemented/.test(r)),
          `${name} is not marked implemented there`,
        ).toBe(true);
    }
  });

  it("never renders the names the Runner refuses (CR-17, CR-20)", () => {
    const forbidden: string[] = FORBIDDEN_SETTINGS.flatMap((f) => ("flag" in f ? [f.flag, f.env] : [f.env]));
    for (const file of inputs.filter((f) => /compass(-runner)?\.yaml$|values\.example\.json$/.test(f))) {
      for (const c of runnerContainers(render(readFileSync(file, "utf8")))) for (const name of namesOf(c)) expect(forbidden).not.toContain(name);
    }
    for (const name of forbidden) expect(rowsNaming(name).length, name).toBeGreaterThan(0);
  });
});

/**
 * CS-14: every flag and variable of every Compass container rendered from
 * the examples and the upstream values file is in a released row of its
 * contract (implemented at compass-server f71f2ba4 / compass-runner
 * c0c4e3c5). A designed row carries its task and appears only when the
 * values opt into that task.
 */
describe("the rendered Compass containers name only released rows, unless a task is opted into (CS-14)", () => {
  type Row = { flag?: string; env?: string; status: string; task?: string };
  const rows: Row[] = [
    ...Object.values(SERVER_INTERFACE as Record<string, InterfaceName>),
    ...Object.values(RUNNER_SETTINGS as Record<string, Setting>),
    ...SERVER_SECRETS,
  ];
  const rowOf = (name: string) => rows.find((r) => r.flag === name || r.env === name);
  const compassContainers = (objects: K8sObject[]) =>
    objects
      .filter(
        (o) => (o.kind === "DaemonSet" || o.kind === "Deployment") && /^compass-(server|runner)$/.test(o.metadata.labels?.["app.kubernetes.io/name"] ?? ""),
      )
      .flatMap((o) => (o.spec as any).template.spec.containers as { env?: { name: string }[]; args?: string[]; command?: string[] }[]);

  /** The names rendered from values, each with the row it must be. */
  function judged(values: string | object, opted: readonly string[]): string[] {
    const problems: string[] = [];
    const containers = compassContainers(render(values));
    expect(containers.length).toBeGreaterThan(0);
    for (const c of containers)
      for (const name of namesOf(c)) {
        const row = rowOf(name);
        if (!row) problems.push(`${name}: in no contract row`);
        else if (row.status === "designed" && !(row.task && opted.includes(row.task)))
          problems.push(`${name}: designed (${row.task ?? "no task"}), not opted in`);
        else if (row.status !== "designed" && row.status !== "implemented") problems.push(`${name}: ${row.status}`);
      }
    return problems;
  }

  it("every designed row names its task", () => {
    for (const row of rows.filter((r) => r.status === "designed")) expect(row.task, row.flag ?? row.env).toMatch(/^P\d+$/);
  });

  it.each(inputs.filter((f) => /compass[-a-z]*\.yaml$|values\.example\.json$/.test(f)))("%s renders only released names", (file) => {
    expect(judged(readFileSync(file, "utf8"), [])).toEqual([]);
  });

  it("with P4 and P9 opted in, the designed names appear, and only they", () => {
    const v = parse(readFileSync(join(ROOT, "examples/compass.yaml"), "utf8"));
    v.server.designed = { P4: true };
    v.server.adminToken = { name: "compass-admin-token" };
    v.runner.designed = { P9: true };
    expect(judged(v, ["P4", "P9"])).toEqual([]);
    expect(judged(v, []).sort()).toEqual(["--admin-token-file: designed (P4), not opted in", "--server-name: designed (P9), not opted in"]);
  });

  it("the removed forge flag is in no row, and its successor is released (§7 R1)", () => {
    for (const name of ["--forge-enforce-scopes", "COMPASS_FORGE_ENFORCE_SCOPES"]) expect(rowOf(name), name).toBeUndefined();
    expect(rowOf("--forge-disable-scope-enforcement")).toMatchObject({ status: "implemented", env: "COMPASS_FORGE_DISABLE_SCOPE_ENFORCEMENT" });
  });
});
