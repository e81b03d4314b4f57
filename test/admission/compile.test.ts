// CEL expressions compiled once per check run (src/admission/compile.ts):
// the fast path compiles each distinct text once and plans texts that differ
// only in string literals from a kept tree; the plain path compiles every
// time; the cache holds a bounded amount of text.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { admissionScope } from "../support/admission-run.ts";
import { ROOT } from "../support/cli.ts";
import { catalog } from "../../src/systems/registry.ts";

const example = (): string => readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
const render = (text: string): K8sObject[] => renderSource(parseValuesFile(text, "values.yaml")).objects;
const policiesOf = (objects: K8sObject[]) => objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as (K8sObject & { spec: Record<string, any> })[];

/** Every CEL expression of the admission policies among `objects`. */
function expressionsOf(objects: K8sObject[]): string[] {
  return policiesOf(objects)
    .flatMap((p) => ["matchConditions", "variables", "validations"].flatMap((f) => ((p.spec[f] ?? []) as { expression?: unknown }[]).map((e) => e.expression)))
    .filter((e): e is string => typeof e === "string");
}

describe("the program cache", () => {
  it("compiles each distinct expression once on the fast path, every time on the plain path", () => {
    const objects = render(example().replace("name: compass-runner\n", "name: program-cache\n"));
    const { scope, admission } = admissionScope();
    catalog.checkObjects(objects, undefined, { run: scope });
    const first = admission.stats.compilations;
    expect(first).toBeGreaterThan(0);
    catalog.checkObjects(objects, undefined, { run: scope });
    expect(admission.stats.compilations).toBe(first);
    const plain = admissionScope({ plain: true });
    catalog.checkObjects(objects, undefined, { run: plain.scope });
    catalog.checkObjects(objects, undefined, { run: plain.scope });
    expect(plain.admission.stats.compilations).toBe(2 * expressionsOf(objects).length);
  });

  it("holds a bounded amount of expression text however many distinct expressions it meets", () => {
    const policy = (i: number): K8sObject => ({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: `p${i}` },
      spec: { validations: [{ expression: `request.name != "${String(i).padStart(6, "0")}${"x".repeat(4000)}"` }] },
    });
    const { scope, admission } = admissionScope();
    for (let i = 0; i < 40; i++) catalog.checkObjects([policy(i)], () => "compass-runner", { run: scope });
    expect(admission.compile.programText).toBeLessThanOrEqual(64 * 1024);
    expect(admission.compile.programText).toBeGreaterThan(32 * 1024);
  });
});

describe("the judge parses an expression of a known template no more", () => {
  it("installations that differ only in names parse only what the first one did not", () => {
    const install = (name: string) => render(example().replace(/^name: compass-runner$/m, `name: ${name}`));
    const { scope, admission } = admissionScope();
    const parses = () => admission.stats.parses;
    catalog.checkObjects(install("literal-first"), undefined, { run: scope });
    const before = parses();
    const second = install("literal-second");
    catalog.checkObjects(second, undefined, { run: scope });
    // Its expressions with the name in a literal are new texts, compiled, but from the first one's trees.
    expect(expressionsOf(second).filter((e) => e.includes("literal-second")).length).toBeGreaterThan(0);
    expect(parses() - before).toBe(0);
  });
});
