// CR-06 decides identities as classes (src/admission/classes.ts): when
// every expression of a set uses who asks only in tests against string
// literals, identities whose names pass the same tests are decided once.
// Two oracles: the real CEL engine (an expression said to pass answers the
// same, value or error, for any two identities of one class) and the judge's
// plain path (every identity asked on its own), whose
// findings the class path must give byte for byte on the corpus, on rendered
// fleets and on policies mutated to use names in every way.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { celEnv, celList, celMap, isCelError, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import fc from "fast-check";
import { breathe, loopProperty } from "../support/breathe.ts";
import { parseAllDocuments, stringify } from "yaml";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the bench's fleet generator is plain JavaScript
import { fleetValues } from "../../bench/fleet-values.mjs";
import { blindOf, classKey, uniqueTests, type Blind, type Tests } from "../../src/admission/classes.ts";
import { CEL_COST_LIMIT, estimatedCost } from "../../src/admission/cost.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import type { Finding } from "../../src/rules/engine.ts";
import { validCompassRunner } from "../support/compass-runner-values.ts";
import { ROOT } from "../support/cli.ts";
import { admissionScope } from "../support/admission-run.ts";
import { runs } from "../support/runs.ts";
import { catalog } from "../../src/systems/registry.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check", "compass-runner");
const objectsOf = (text: string): K8sObject[] => parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
const render = (text: string): K8sObject[] => renderSource(parseValuesFile(text, "values.yaml")).objects;
const example = (): string => readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8");
const policiesOf = (objects: K8sObject[]) => objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as (K8sObject & { spec: Record<string, any> })[];
const corpusSets = (): K8sObject[][] =>
  ["", "broken", "warn"]
    .flatMap((dir) =>
      readdirSync(join(CORPUS, dir))
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => objectsOf(readFileSync(join(CORPUS, dir, f), "utf8"))),
    )
    .filter((objects) => policiesOf(objects).length > 0);

/** Names used in every way: the ones that pass the proof, then the ones that must not. */
const PASSING = [
  "request.userInfo.username == 'system:masters'",
  "'alice' != request.userInfo.username",
  "request.userInfo.username in ['alice', 'system:kube-controller-manager']",
  "request.userInfo.username.startsWith('system:node:')",
  "request.userInfo.username.endsWith(':daemon-set-controller') || request.name == 'x'",
  "request.userInfo.username.contains('serviceaccount')",
  "has(request.userInfo.groups) && request.userInfo.groups.exists(g, g == 'system:masters')",
  "request.userInfo.groups.all(g, g.startsWith('system:'))",
  "request.userInfo.groups.exists_one(g, g in ['system:nodes', 'system:authenticated'])",
  "request.userInfo.groups.map(g, g == 'developers')[0]",
  "'system:nodes' in request.userInfo.groups && size(request.userInfo.groups) > 1",
  "request.userInfo.groups.size() == 2 || has(request.userInfo.uid)",
  "has(request.userInfo.extra)",
  "request.userInfo.groups.exists(g, [1, 2].exists(x, x == 2 && g == 'system:masters'))",
  "request.userInfo.username == 'alice' ? object.metadata.nope : 1 / 0 == 1",
  "request.userInfo.groups.exists(g, g == 'x' ? object.metadata.nope == 1 : [1][5] == 1)",
  "variables",
];
const FAILING = [
  "request.userInfo.username + '!' == 'alice!'",
  "size(request.userInfo.username) > 5",
  "request.userInfo.username.matches('^system:')",
  "request.userInfo.username == request.name",
  "request.userInfo.username == variables.who",
  "request.userInfo.groups.exists(g, g == request.userInfo.username)",
  "request.userInfo.groups[0] == 'system:masters'",
  "request.userInfo.groups.filter(g, g.startsWith('system:')) == ['system:masters']",
  "request.userInfo.uid == 'uid-alice'",
  "has(request.userInfo.extra) && request.userInfo.extra == {}",
  "request.userInfo == request.userInfo",
  "[request.userInfo.username].exists(u, u == 'alice')",
  "request.userInfo.username.lowerAscii() == 'alice'",
  "request.userInfo.groups.exists(g, g.size() == 3)",
  "request.userInfo.groups.exists(g, [g].exists(h, h == 'alice'))",
  "request.userInfo.groups.exists(g, ['x'].exists(g, g == 'x'))",
  "['alice'].exists(variables, variables == request.userInfo.username)",
  "request == request",
  "request['userInfo'].username == 'alice'",
  "request.userInfo.groups.exists(i, g, g == 'alice')",
  "request.userInfo.username in variables",
  "request.userInfo.groups.exists(g, g in request.userInfo.groups)",
];

const rendered = () => render(example());
const OWN = policiesOf(rendered()).flatMap((p) =>
  ["matchConditions", "variables", "validations"].flatMap((f) => (p.spec[f] ?? []).map((e: { expression: string }) => e.expression)),
);

/** The variables `NAME in variables.V` may name, as the rendered policies define them (lists of string literals). */
const LISTS: Record<string, string[]> = {
  breakGlassGroups: ["system:masters"],
  controllers: ["system:serviceaccount:kube-system:daemon-set-controller"],
  deployers: ["system:serviceaccount:flux-system:kustomize-controller"],
  housekeepers: ["system:serviceaccount:kube-system:namespace-controller", "system:kube-controller-manager"],
};

const env = celEnv({ funcs: strings });
const celOf = (value: unknown): any => {
  if (Array.isArray(value)) return celList(value.map(celOf));
  if (value !== null && typeof value === "object") return celMap(new Map(Object.entries(value).map(([k, v]) => [k, celOf(v)])));
  return value;
};
const show = (value: unknown): string => {
  if (isCelError(value)) return `error: ${value.message}`;
  if (typeof value === "bigint") return `${value}n`;
  if (value !== null && typeof value === "object" && Symbol.iterator in value) return `[${[...(value as Iterable<unknown>)].map(show).join(", ")}]`;
  return JSON.stringify(value) ?? String(value);
};

/** The tests of an expression, its variable lists resolved as the policy would. */
function testsOf(blind: Blind): Tests {
  const eq = (names: string[]) => names.flatMap((name) => LISTS[name].map((value) => ({ op: "==" as const, value })));
  return { user: uniqueTests([...blind.user, ...eq(blind.userLists)]), group: uniqueTests([...blind.group, ...eq(blind.groupLists)]) };
}

/** Names that collide with the literals above, share their prefixes and suffixes, or meet none. */
const NAME = fc.constantFrom(
  "alice",
  "bob",
  "system:masters",
  "system:nodes",
  "system:node:node-1",
  "system:node:",
  "system:node",
  "system:authenticated",
  "developers",
  "x",
  "system:kube-controller-manager",
  "system:serviceaccount:kube-system:daemon-set-controller",
  "system:serviceaccount:kube-system:namespace-controller",
  "system:serviceaccount:flux-system:kustomize-controller",
  "uid-alice",
  "",
);
const identity = fc.record({ user: NAME, groups: fc.option(fc.array(NAME, { maxLength: 3 }), { nil: undefined }) });

describe("the proof over the syntax tree", () => {
  const blind = (text: string) => blindOf((parse(text) as { expr: unknown }).expr);

  it.each(PASSING)("passes %s", (text) => expect(blind(text)).toBeDefined());
  it.each(FAILING)("fails %s", (text) => expect(blind(text)).toBeUndefined());

  it("passes every expression of rigging's rendered policies, with their variable lists", () => {
    for (const text of OWN) expect(blind(text), text).toBeDefined();
    expect(OWN.map(blind).some((b) => b!.userLists.length > 0 && b!.groupLists.length === 0)).toBe(true);
  });

  it("gives the same answer, value or error, for two identities of one class (the CEL engine as oracle)", async () => {
    const EXPRESSIONS = [
      ...new Set([...PASSING, ...OWN, ...corpusSets().flatMap((s) => policiesOf(s).flatMap((p) => (p.spec.validations ?? []).map((v: any) => v.expression)))]),
    ];
    const planned = EXPRESSIONS.flatMap((text) => {
      if (typeof text !== "string") return [];
      let parsed: { expr: unknown };
      try {
        parsed = parse(text) as { expr: unknown };
      } catch {
        return [];
      }
      // An expression over the API server's cost limit never runs (CR-06 refuses it), and would cost this test minutes.
      if (estimatedCost(parsed.expr as Parameters<typeof estimatedCost>[0]) > CEL_COST_LIMIT) return [];
      const b = blindOf(parsed.expr);
      return b && [...b.userLists, ...b.groupLists].every((n) => n in LISTS) ? [{ text, fn: plan(env, parsed as any), tests: testsOf(b) }] : [];
    });
    expect(planned.length).toBeGreaterThan(PASSING.length);
    const object = celOf({ metadata: { name: "runner-x7k2p", labels: { app: "x" } }, spec: {} });
    const context = (who: { user: string; groups?: string[] }) => ({
      request: celOf({
        operation: "CONNECT",
        name: "runner-x7k2p",
        namespace: "tenant",
        subResource: "exec",
        resource: { resource: "pods" },
        userInfo: { username: who.user, uid: `uid-${who.user}`, ...(who.groups ? { groups: who.groups } : {}) },
      }),
      object,
      oldObject: object,
      namespaceObject: null,
      params: null,
      variables: celOf({ isPod: true, isChange: false, ...LISTS }),
    });
    let same = 0;
    let told = 0;
    await fc.assert(
      loopProperty(fc.constantFrom(...planned), identity, identity, (p, a, b) => {
        const answerA = show(p.fn(context(a)));
        const answerB = show(p.fn(context(b)));
        if (classKey(p.tests, a.user, a.groups) !== classKey(p.tests, b.user, b.groups)) {
          if (answerA !== answerB) told++;
          return;
        }
        same++;
        expect(answerB, `${p.text} for ${JSON.stringify(a)} and ${JSON.stringify(b)}`).toBe(answerA);
      }),
      { numRuns: runs(6000) },
    );
    // Not vacuous: many pairs share a class, and the classes tell apart identities the expressions answer differently.
    expect(same).toBeGreaterThan(500);
    expect(told).toBeGreaterThan(100);
  });
});

/** The fast path's check run, warm from every set judged before; the plain path's, the reference. */
const fast = admissionScope();
const reference = admissionScope({ plain: true });
const judged = (objects: K8sObject[]) => catalog.checkObjects(objects, undefined, { run: fast.scope });

/** The catalog's findings on the plain path and on the class path (cold, then warm); all equal. Whether the class path answered any ask. */
function judgedAlike(objects: K8sObject[]): { findings: Finding[]; classed: boolean } {
  const plain = catalog.checkObjects(objects, undefined, { run: reference.scope });
  const before = fast.admission.stats.fromClass;
  const found = judged(objects);
  expect(found).toEqual(plain);
  expect(judged(objects)).toEqual(plain);
  return { findings: found, classed: fast.admission.stats.fromClass > before };
}
const cr06 = (findings: Finding[]) => findings.filter((f) => f.id === "CR-06");

describe("the class path decides as the plain path", () => {
  it("on every Runner set of the check corpus that holds admission policies", async () => {
    const sets = corpusSets();
    expect(sets.length).toBeGreaterThan(40);
    const judged: ReturnType<typeof judgedAlike>[] = [];
    for (const set of sets) {
      await breathe();
      judged.push(judgedAlike(set));
    }
    expect(judged.filter((j) => j.classed).length).toBeGreaterThan(sets.length / 2);
    expect(judged.some((j) => j.classed && cr06(j.findings).length > 0)).toBe(true);
  });

  it("on a rendered fleet, each installation judged by the class path", async () => {
    for (const text of fleetValues(6) as string[]) {
      await breathe();
      expect(judgedAlike(render(text)).classed).toBe(true);
    }
  });

  it("on rendered installations of generated values", async () => {
    await fc.assert(
      loopProperty(validCompassRunner, (values) => {
        expect(judgedAlike(render(stringify(values))).classed).toBe(true);
      }),
      { numRuns: runs(10) },
    );
  });

  // Policies that use names in every way, some passing the proof and some not,
  // with literals that name identities the judge then asks (colliding with
  // its fixed ones: alice, the kubelet, the controllers).
  const slot = fc.record({
    policy: fc.nat(),
    field: fc.constantFrom("matchConditions", "variables", "validations", "messageExpression"),
    index: fc.nat(),
    expression: fc.constantFrom(...PASSING, ...FAILING, ...OWN),
  });
  type Slot = { policy: number; field: string; index: number; expression: string };
  const MESSAGES = ["'denied for ' + request.userInfo.username", "'no ' + string(size(request.userInfo.groups))", "'plain'"];

  function mutated(objects: K8sObject[], slots: Slot[]): K8sObject[] {
    const copy = structuredClone(objects);
    const policies = policiesOf(copy);
    for (const s of slots) {
      const policy = policiesOf(copy)[s.policy % policies.length];
      if (s.field === "messageExpression") {
        const validations: { messageExpression?: string }[] = policy.spec.validations ?? [];
        if (validations.length > 0) validations[s.index % validations.length].messageExpression = MESSAGES[s.index % MESSAGES.length];
        continue;
      }
      const entries: { name?: string; expression: string }[] = (policy.spec[s.field] ??= []);
      // A variable list redefined, or used before it is defined, must not be taken for its literals.
      const name = s.index % 4 === 0 ? "controllers" : `v${s.index % 5}`;
      if (entries.length === 0 || s.index % 3 === 0) {
        const entry = s.field === "variables" ? { name, expression: s.expression } : { expression: s.expression };
        if (s.index % 2 === 0) entries.unshift(entry);
        else entries.push(entry);
      } else entries[s.index % entries.length].expression = s.expression;
    }
    return copy;
  }

  it.each([
    ["rigging's own rendered policies", rendered],
    ["the corpus's hand-written valid set", () => objectsOf(readFileSync(join(CORPUS, "valid.yaml"), "utf8"))],
  ])("on policies mutated to use names in every way: %s", async (_name, base) => {
    const objects = base();
    let classed = 0;
    let plain = 0;
    const verdicts = new Set<string>();
    await fc.assert(
      loopProperty(fc.array(slot, { minLength: 1, maxLength: 3 }), (slots) => {
        const judged = judgedAlike(mutated(objects, slots));
        if (judged.classed) classed++;
        else plain++;
        const found = cr06(judged.findings);
        verdicts.add(found.length === 0 ? "none" : found.some((f) => f.severity === "error") ? "errors" : "warnings");
      }),
      // About half the cases take each path, and about one in three has no error.
      { numRuns: runs(40) },
    );
    // Both paths were taken, and the verdicts differ from case to case: the comparison is not vacuous.
    expect(classed).toBeGreaterThan(5);
    expect(plain).toBeGreaterThan(5);
    expect(verdicts.has("errors")).toBe(true);
    expect(verdicts.size).toBeGreaterThan(1);
  });
});

describe("a class key", () => {
  // The answers as a string of 0s and 1s, one per test, as the key held them before they became a number's bits.
  const answered = (name: string, tests: Tests["user"]): string =>
    tests
      .map(({ op, value }) =>
        (op === "==" ? name === value : op === "startsWith" ? name.startsWith(value) : op === "endsWith" ? name.endsWith(value) : name.includes(value))
          ? "1"
          : "0",
      )
      .join("");
  const word = fc.stringMatching(/^[ab:-]{0,4}$/);
  const test = fc.record({ op: fc.constantFrom("==" as const, "startsWith" as const, "endsWith" as const, "contains" as const), value: word });
  const identity = fc.record({ user: word, groups: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined }) });

  it("is the same for two identities exactly when their names answer every test alike, under 31 tests and over", async () => {
    await fc.assert(
      loopProperty(fc.array(test, { maxLength: 40 }), fc.array(test, { maxLength: 40 }), identity, identity, (user, group, a, b) => {
        const tests = { user, group };
        const alike =
          answered(a.user, user) === answered(b.user, user) &&
          (a.groups === undefined) === (b.groups === undefined) &&
          (a.groups ?? []).length === (b.groups ?? []).length &&
          (a.groups ?? []).every((g, i) => answered(g, group) === answered(b.groups![i], group));
        expect(classKey(tests, a.user, a.groups) === classKey(tests, b.user, b.groups)).toBe(alike);
      }),
      { numRuns: runs(3000) },
    );
  });
});
