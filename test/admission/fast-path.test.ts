// CR-06's speed paths (src/admission/compile.ts, decide.ts, evaluate.ts) change no verdict. Every
// set here is judged twice: on the plain path (each expression parsed and
// planned anew, objects handed to CEL as plain data, each request matched
// anew for every identity) and on the fast path, whose caches are warm from
// every set judged before it. The findings of the whole catalog must be
// equal, and a program cached for one installation must never decide
// another installation's different policy.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { breathe, loopProperty } from "../support/breathe.ts";
import { stringify, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
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
const EXAMPLE = join(ROOT, "examples", "compass-runner.yaml");

const objectsOf = (text: string): K8sObject[] => parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
const render = (text: string): K8sObject[] => renderSource(parseValuesFile(text, "values.yaml")).objects;
const example = (): string => readFileSync(EXAMPLE, "utf8");
const policiesOf = (objects: K8sObject[]) => objects.filter((o) => o.kind === "ValidatingAdmissionPolicy") as (K8sObject & { spec: Record<string, any> })[];

/** The fast path's check run, warm from every set judged before; the plain path's, the reference. */
const fast = admissionScope();
const reference = admissionScope({ plain: true });
const judged = (objects: K8sObject[]) => catalog.checkObjects(objects, undefined, { run: fast.scope });

/** The catalog's findings on the plain path and on the fast path (twice: cold for this set, then warm); all equal. */
function judgedAlike(objects: K8sObject[]): Finding[] {
  const plain = catalog.checkObjects(objects, undefined, { run: reference.scope });
  const found = judged(objects);
  expect(found).toEqual(plain);
  expect(judged(objects)).toEqual(plain);
  return found;
}

const cr06 = (findings: Finding[]) => findings.filter((f) => f.id === "CR-06");

describe("the fast path decides as the plain path", () => {
  it("on every Runner set of the check corpus that holds admission policies", async () => {
    const files = ["", "broken", "warn"].flatMap((dir) =>
      readdirSync(join(CORPUS, dir))
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => join(CORPUS, dir, f)),
    );
    const sets = files.map((f) => objectsOf(readFileSync(f, "utf8"))).filter((objects) => policiesOf(objects).length > 0);
    expect(sets.length).toBeGreaterThan(40);
    let withCr06 = 0;
    for (const objects of sets) {
      await breathe();
      if (cr06(judgedAlike(objects)).length > 0) withCr06++;
    }
    expect(withCr06).toBeGreaterThan(0);
  });

  it("on rendered installations of generated values (a fleet: the caches carry over from one to the next)", async () => {
    await fc.assert(
      loopProperty(validCompassRunner, (values) => {
        judgedAlike(render(stringify(values)));
      }),
      { numRuns: runs(12) },
    );
  });

  // Expressions that answer true, false, fail (a missing key, a list where a
  // map belongs, a user without groups), call a function the engine lacks,
  // or read other parts of the request and objects.
  const POOL = [
    "true",
    "false",
    "object.metadata.nope == 'x'",
    "request.userInfo.groups.exists(g, g == 'system:masters')",
    "'system:masters' in request.userInfo.groups",
    "request.userInfo.username.startsWith('system:serviceaccount:')",
    "authorizer.group('').resource('pods').check('exec').allowed()",
    "has(object.spec) && has(object.spec.template) && object.spec.template.spec.hostUsers == false",
    "request.operation == 'DELETE' || object.metadata.name.lowerAscii() == object.metadata.name",
    "has(oldObject.metadata) && oldObject.metadata == object.metadata",
    "size(request.userInfo.username) % 2 == 0",
    "namespaceObject.metadata.name == request.namespace",
    "request.subResource in ['exec', 'attach', 'status']",
    "variables.nope",
    "1 / 0 == 1",
    "object.metadata.name.matches('^[a-z0-9-]+$') && !object.metadata.name.matches('x{2,}')",
    "request.userInfo.username.matches('^system:(node|serviceaccount):')",
    "request.name.matches('(')",
    // Read by some identities only, or through a variable that reads who asks (answers kept per request).
    "variables.v1 || request.name == 'x'",
    "[request.userInfo].exists(u, u.username == 'alice')",
    "['alice'].exists(variables, variables == request.userInfo.username)",
    "request.subResource == 'exec' && !has(request.userInfo.groups)",
    // Chains whose leading variables may decide them (the guard), before or after a term that fails.
    "variables.v1 && request.userInfo.username == 'alice'",
    "!variables.v2 || request.userInfo.groups.exists(g, g == 'system:masters')",
    "variables.v0 && variables.v3 || request.name == 'x'",
    "variables.v4 && request.name.matches('(')",
    "request.name.matches('(') && variables.v0",
    "!variables.v1 && [1][3] == 1",
    // Answers kept across requests and installations by what they read (the memo).
    "request.userInfo.username in ['system:serviceaccount:kube-system:daemon-set-controller', 'alice']",
    "object.metadata.name == request.name || request.operation == 'DELETE'",
    "has(oldObject.spec) && object.spec == oldObject.spec",
    "namespaceObject.metadata.name.startsWith('tenant') || variables.v2",
  ];
  const slot = fc.record({
    policy: fc.nat(),
    field: fc.constantFrom("matchConditions", "variables", "validations"),
    index: fc.nat(),
    expression: fc.constantFrom(...POOL),
    fromSet: fc.boolean(),
  });
  type Slot = { policy: number; field: string; index: number; expression: string; fromSet: boolean };
  const structural = fc.record({ policy: fc.nat(), change: fc.constantFrom("ignore", "audit", "unbound", "pods-star", "no-namespace-selector") });

  /** Applies the mutations to a fresh copy of `objects`. */
  function mutated(objects: K8sObject[], slots: Slot[], changes: { policy: number; change: string }[]): K8sObject[] {
    const copy = structuredClone(objects);
    const policies = policiesOf(copy);
    const expressions = policies.flatMap((p) =>
      ["matchConditions", "variables", "validations"].flatMap((f) => (p.spec[f] ?? []).map((e: { expression: string }) => e.expression)),
    );
    for (const s of slots) {
      const policy = policies[s.policy % policies.length];
      const entries: { name?: string; expression: string }[] = (policy.spec[s.field] ??= []);
      const expression = s.fromSet ? expressions[s.index % expressions.length] : s.expression;
      if (entries.length === 0 || s.index % 3 === 0) entries.push(s.field === "variables" ? { name: `v${s.index % 5}`, expression } : { expression });
      else entries[s.index % entries.length].expression = expression;
    }
    for (const c of changes) {
      const policy = policies[c.policy % policies.length];
      const bindings = copy.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding" && (o.spec as any)?.policyName === policy.metadata.name) as any[];
      if (c.change === "ignore") policy.spec.failurePolicy = "Ignore";
      if (c.change === "audit") for (const b of bindings) b.spec.validationActions = ["Audit"];
      if (c.change === "unbound") for (const b of bindings) b.spec.policyName = "elsewhere";
      if (c.change === "pods-star") policy.spec.matchConstraints.resourceRules[0].resources = ["pods/*"];
      if (c.change === "no-namespace-selector") delete policy.spec.matchConstraints.namespaceSelector;
    }
    return copy;
  }

  it.each([
    ["rigging's own rendered policies", () => render(example())],
    ["the corpus's hand-written valid set", () => objectsOf(readFileSync(join(CORPUS, "valid.yaml"), "utf8"))],
  ])("on mutated policies: %s", async (_name, base) => {
    const objects = base();
    const seen = new Set<string>();
    const verdict = (findings: ReturnType<typeof cr06>) =>
      findings.length === 0 ? "none" : findings.some((f) => f.severity === "error") ? "errors" : "warnings";
    // The set as it is, then mutated: most mutations break a policy, so the unmutated set is the case that passes.
    seen.add(verdict(cr06(judgedAlike(objects))));
    await fc.assert(
      loopProperty(fc.array(slot, { minLength: 1, maxLength: 3 }), fc.array(structural, { maxLength: 1 }), (slots, changes) => {
        seen.add(verdict(cr06(judgedAlike(mutated(objects, slots, changes)))));
      }),
      { numRuns: runs(25) },
    );
    // The mutations reach more than one kind of verdict, errors among them, so the comparison is not vacuous.
    expect(seen.has("errors")).toBe(true);
    expect(seen.size).toBeGreaterThan(1);
  });
});

// The one place the paths may differ: the plain path hands CEL plain
// objects, and the engine tells a plain object by its `constructor`, so a
// variable or a key named `constructor` (or `__proto__`) breaks it there.
// The fast path hands over Maps, in which such a name is a name like any
// other, as it is to the API server: it must decide as with any other name.
describe("names JavaScript treats specially", () => {
  const NAMES = ["__proto__", "constructor", "toString"];

  /** The corpus set whose exec policy reads its decision from a variable named `name`, set to `expression`. */
  function withVariable(name: string, expression?: string): K8sObject[] {
    const objects = objectsOf(readFileSync(join(CORPUS, "valid.yaml"), "utf8"));
    const access = policiesOf(objects).find((p) => p.metadata.name === "kvm-runner-no-exec")!;
    const [validation] = access.spec.validations;
    access.spec.variables = [{ name, expression: expression ?? validation.expression }];
    validation.expression = `variables.${name}`;
    return objects;
  }
  const errors = (findings: Finding[]) => cr06(findings).filter((f) => f.severity === "error");
  const messages = (findings: Finding[]) => cr06(findings).map((f) => [f.severity, f.message]);

  it.each(NAMES)("a variable named %s decides as one named v", (name) => {
    expect(errors(judgedAlike(withVariable("v")))).toEqual([]);
    expect(messages(judged(withVariable(name)))).toEqual(messages(judged(withVariable("v"))));
    // And it decides: false everywhere shuts out the break-glass group too.
    expect(errors(judgedAlike(withVariable("v", "false"))).map((f) => f.message)).toContainEqual(
      expect.stringMatching(/^no identity may exec into a Runner pod/),
    );
    expect(messages(judged(withVariable(name, "false")))).toEqual(messages(judged(withVariable("v", "false"))));
  });

  it.each(NAMES)("a label named %s on the Runner pod is read like any other label", (name) => {
    const labelled = (key: string): K8sObject[] => {
      const objects = objectsOf(readFileSync(join(CORPUS, "valid.yaml"), "utf8"));
      const ds = objects.find((o) => o.kind === "DaemonSet") as any;
      Object.defineProperty(ds.spec.template.metadata.labels, key, { value: "x", enumerable: true, writable: true, configurable: true });
      // The pod-create policy also asks for the label, so that it is read.
      const create = policiesOf(objects).find((p) => p.metadata.name === "kvm-runner-pod-creators")!;
      create.spec.validations.push({ expression: `has(object.metadata.labels) && object.metadata.labels[${JSON.stringify(key)}] == "x"`, message: "labelled" });
      return objects;
    };
    const other = judgedAlike(labelled("other"));
    expect(errors(other)).toEqual([]);
    expect(messages(judged(labelled(name)))).toEqual(messages(other));
  });
});

describe("a cached verdict is never reused for a different policy", () => {
  /** Two installations of the same values: the second differs in one character of one expression. */
  function pair(): [K8sObject[], K8sObject[]] {
    const first = render(example());
    const second = structuredClone(first);
    const access = policiesOf(second).find((p) => p.metadata.name.endsWith("-pod-access"))!;
    const validation = access.spec.validations[0];
    expect(validation.expression).toBe("!variables.isPod || variables.isChange || variables.isBreakGlass");
    validation.expression = "!variables.isPod || variables.isChange || !variables.isBreakGlass";
    return [first, second];
  }

  it("an installation judged right after its twin gets its own verdict", () => {
    const [first, second] = pair();
    expect(cr06(judgedAlike(first))).toEqual([]);
    const found = cr06(judgedAlike(second));
    expect(found.map((f) => f.message)).toContainEqual(expect.stringMatching(/^exec on a Runner pod by an ordinary user \(alice\).* is allowed/));
    // And back: the first's verdict is not the second's.
    expect(cr06(judgedAlike(first))).toEqual([]);
  });

  it("installations that differ only in the data a policy reads (the pod template) are judged on their own data", () => {
    const first = render(example());
    const second = structuredClone(first);
    const ds = second.find((o) => o.kind === "DaemonSet") as any;
    ds.spec.template.spec.containers[0].image = "registry.example.com/rigelbuild/compass-runner:latest";
    expect(cr06(judgedAlike(first))).toEqual([]);
    const found = judgedAlike(second);
    // The policies refuse the tagged image: G-05 reports it, and CR-06 does not blame the policies for refusing it.
    expect(found.map((f) => f.id)).toContain("G-05");
  });
});
