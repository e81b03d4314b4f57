// What a CEL expression reads (src/admission/reads.ts) decides which
// answers the judge shares between the identities that ask the same
// request. The real CEL engine is the oracle: every expression said to read
// neither request.userInfo nor some variable must answer the same, value or
// error, for requests that differ in who asks and in every variable it does
// not read; and every way of reaching the request or the variables other
// than plainly must be "may read anything".
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { celEnv, celList, celMap, isCelError, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { CEL_COST_LIMIT, estimatedCost } from "../../src/admission/cost.ts";
import { guardOf, readsOf } from "../../src/admission/reads.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { renderSource } from "../../src/pipeline.ts";
import { ROOT } from "../support/cli.ts";
import { runs } from "../support/runs.ts";

const CORPUS = join(ROOT, "test", "fixtures", "check", "compass-runner");
const rendered = (): K8sObject[] => renderSource(parseValuesFile(readFileSync(join(ROOT, "examples", "compass-runner.yaml"), "utf8"), "values.yaml")).objects;

function expressionsOf(objects: K8sObject[]): string[] {
  return objects
    .filter((o) => o?.kind === "ValidatingAdmissionPolicy")
    .flatMap((o) =>
      ["matchConditions", "variables", "validations"].flatMap((f) =>
        ((o.spec as Record<string, { expression?: unknown }[]>)?.[f] ?? []).map((e) => e?.expression),
      ),
    )
    .filter((e): e is string => typeof e === "string");
}

const corpus = ["", "broken", "warn"].flatMap((dir) =>
  readdirSync(join(CORPUS, dir))
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => expressionsOf(parseAllDocuments(readFileSync(join(CORPUS, dir, f), "utf8")).map((d) => d.toJS()))),
);

/** Expressions that reach the request or the variables in every way the grammar allows. */
const TRICKY = [
  "request.userInfo.username == 'alice'",
  "has(request.userInfo.groups)",
  "request.userInfo",
  ".request.userInfo.username == 'alice'",
  "request['userInfo'].username == 'alice'",
  "request == request",
  "size(request) > 0",
  "'userInfo' in request",
  "request.operation == 'CREATE' && request.name == 'x'",
  "[request][0].userInfo.username == 'alice'",
  "{'a': request}.a.userInfo.username == 'alice'",
  "[1].exists(request, request == 1) || variables.a",
  "[request.userInfo].exists(u, u.username == 'alice')",
  "['alice'].exists(variables, variables == request.userInfo.username)",
  "variables.a",
  "variables.a.b",
  "has(variables.a)",
  "variables",
  "variables['a']",
  "size(variables) > 0",
  ".variables.a",
  "object.metadata.name == request.name",
  "request.userInfo.groups.exists(g, g in variables.groups)",
  "true ? request.userInfo : request",
  "(request).userInfo.username == 'alice'",
  "request.userInfo.username.startsWith('system:')",
  "oldObject == null && request.dryRun == false",
  "variables.a == variables.b",
  "request.userInfo.groups.exists(g, g == 'system:masters') && request.operation == 'CONNECT'",
  "has(request.userInfo.uid) && request.userInfo.username != ''",
  "object.metadata.labels.app == 'x' || oldObject == null",
  "namespaceObject.metadata.name == request.namespace",
  "[object].exists(object, object == 1)",
  "request.resource.resource == 'pods' && request.subResource == 'exec'",
  "variables.a && request.name == 'x'",
  "!variables.a || variables.b || request.userInfo.username == 'alice'",
  "(variables.a && variables.b) && request.name.matches('(')",
  "request.name.matches('(') && variables.a",
  "variables.a || [1][3] == 1",
  "!variables.a && !variables.b",
  "!!variables.a && true",
];

const EXPRESSIONS = [...new Set([...corpus, ...expressionsOf(rendered()), ...TRICKY])];

const env = celEnv({ funcs: strings });

/** A CEL value, or error, as text (maps and lists by their contents). */
function show(value: unknown): string {
  if (isCelError(value)) return `error: ${value.message}`;
  if (typeof value === "bigint") return `${value}n`;
  if (value !== null && typeof value === "object" && Symbol.iterator in value) {
    const items = [...(value as Iterable<unknown>)].map((item) => (Array.isArray(item) ? item.map(show).join(": ") : show(item)));
    return `${"has" in value ? "map" : "list"}(${items.join(", ")})`;
  }
  return JSON.stringify(value) ?? String(value);
}

const NAMES = ["alice", "system:masters", "system:node:node-1", "system:serviceaccount:kube-system:daemon-set-controller", "x"];
const userInfo = fc.record(
  { username: fc.constantFrom(...NAMES), groups: fc.array(fc.constantFrom(...NAMES, "system:authenticated"), { maxLength: 3 }) },
  { requiredKeys: ["username"] },
);
const VARIABLE_NAMES = ["a", "b", "groups", "isPod", "isChange", "isBreakGlass", "breakGlassGroups", "controllers", "deployers", "isSecret"];
const variableValue = fc.oneof(fc.boolean(), fc.constantFrom("x", "alice"), fc.constant(["system:masters"]));
const variables = fc.dictionary(fc.constantFrom(...VARIABLE_NAMES), variableValue, { maxKeys: 6 });

/** Plain test data as the engine's own values. */
function celOf(value: unknown): any {
  if (Array.isArray(value)) return celList(value.map(celOf));
  if (value !== null && typeof value === "object") return celMap(new Map(Object.entries(value).map(([k, v]) => [k, celOf(v)])));
  return value;
}

const REQUEST = { operation: "CONNECT", name: "runner-x7k2p", namespace: "tenant", subResource: "exec", resource: { resource: "pods" }, dryRun: false };
const OBJECTS = {
  object: { metadata: { name: "runner-x7k2p", labels: { app: "x" } }, spec: {} },
  oldObject: null,
  namespaceObject: { metadata: { name: "tenant" } },
};

function context(
  user: { username: string; groups?: string[] },
  vars: Record<string, unknown>,
  request: Record<string, unknown> = REQUEST,
  objects: Record<string, unknown> = OBJECTS,
): Record<string, any> {
  return {
    request: celOf({ ...request, userInfo: user }),
    object: celOf(objects.object),
    oldObject: celOf(objects.oldObject),
    namespaceObject: celOf(objects.namespaceObject),
    params: null,
    variables: celOf(vars),
  };
}

/** Another request and other objects, field by field (any field may be left as it was). */
const otherRequest = fc.record({
  operation: fc.constantFrom("CONNECT", "UPDATE", "DELETE"),
  name: fc.constantFrom("runner-x7k2p", "x"),
  namespace: fc.constantFrom("tenant", "other"),
  subResource: fc.constantFrom("exec", "", "status"),
  resource: fc.constantFrom({ resource: "pods" }, { resource: "daemonsets" }),
  dryRun: fc.boolean(),
});
const otherObjects = fc.record({
  object: fc.constantFrom(OBJECTS.object, { metadata: { name: "x", labels: { app: "y" } } }, null),
  oldObject: fc.constantFrom(null, OBJECTS.object),
  namespaceObject: fc.constantFrom(OBJECTS.namespaceObject, { metadata: { name: "other" } }),
});

describe("what a CEL expression reads", () => {
  const parsed = EXPRESSIONS.flatMap((text) => {
    try {
      return [{ text, tree: parse(text) as { expr?: unknown } }];
    } catch {
      return [];
    }
  });
  // Over the cost limit, compile.ts refuses an expression and the judge never runs it (the
  // corpus's CR-06-cel-cost takes a million steps, most of this file's time if run).
  const overCost = parsed.filter((p) => estimatedCost(p.tree.expr as Parameters<typeof estimatedCost>[0]) > CEL_COST_LIMIT);
  const planned = parsed
    .filter((p) => !overCost.includes(p))
    .map(({ text, tree }) => ({ text, fn: plan(env, tree as Parameters<typeof plan>[1]), reads: readsOf(tree.expr) }));

  it("finds plainly read fields in the corpus, the rendered policies and the tricky cases", () => {
    expect(overCost.map((p) => p.text.slice(0, 40))).toEqual([expect.stringMatching(/^\[0, 1, 2, 3, /)]);
    expect(planned.length).toBeGreaterThan(60);
    // Most of rigging's own expressions are plain, and some read who asks.
    const own = new Set(expressionsOf(rendered()));
    const plainOwn = planned.filter((p) => own.has(p.text) && p.reads);
    expect(plainOwn.length).toBeGreaterThan(own.size / 2);
    expect(plainOwn.some((p) => p.reads!.userInfo)).toBe(true);
    expect(plainOwn.some((p) => !p.reads!.userInfo && p.reads!.variables.size === 0)).toBe(true);
  });

  it("answers alike for every identity and every variable it does not read", async () => {
    await fc.assert(
      loopProperty(fc.constantFrom(...planned), userInfo, userInfo, variables, variables, (p, userA, userB, varsA, varsB) => {
        if (!p.reads) return;
        const a = p.reads.userInfo ? userB : userA;
        // The variables it reads keep their values (or stay unset); the others may differ.
        const other = { ...varsB };
        for (const name of VARIABLE_NAMES) {
          if (!p.reads.variables.has(name)) continue;
          if (name in varsA) other[name] = varsA[name];
          else delete other[name];
        }
        expect(show(p.fn(context(userB, other))), p.text).toBe(show(p.fn(context(a, varsA))));
      }),
      { numRuns: runs(3000) },
    );
  });

  it("answers alike for contexts that agree on every field, user field, variable and object it reads", async () => {
    await fc.assert(
      loopProperty(
        fc.constantFrom(...planned),
        fc.tuple(userInfo, userInfo),
        fc.tuple(variables, variables),
        fc.tuple(otherRequest, otherRequest),
        fc.tuple(otherObjects, otherObjects),
        (p, [userA, userB], [varsA, varsB], [requestA, requestB], [objectsA, objectsB]) => {
          const reads = p.reads;
          if (!reads) return;
          // B takes A's value of everything the expression reads; the rest stays B's own.
          const whole = reads.user.has("*");
          const user = {
            username: whole || reads.user.has("username") || reads.user.has("uid") ? userA.username : userB.username,
            ...((whole || reads.user.has("groups") ? userA : userB).groups !== undefined
              ? { groups: (whole || reads.user.has("groups") ? userA : userB).groups }
              : {}),
          };
          const request: Record<string, unknown> = { ...requestB };
          for (const field of reads.request) (request as Record<string, unknown>)[field] = (requestA as Record<string, unknown>)[field];
          const objects: Record<string, unknown> = { ...objectsB };
          for (const root of reads.roots) if (root in objectsA) objects[root] = (objectsA as Record<string, unknown>)[root];
          const vars = { ...varsB };
          for (const name of VARIABLE_NAMES) {
            if (!reads.variables.has(name)) continue;
            if (name in varsA) vars[name] = varsA[name];
            else delete vars[name];
          }
          expect(show(p.fn(context(user, vars, request, objects))), p.text).toBe(show(p.fn(context(userA, varsA, requestA, objectsA))));
        },
      ),
      { numRuns: runs(4000) },
    );
  });

  it("decides a chain by its leading variables as the engine does, wherever the guard says it decides", async () => {
    const guarded = planned.filter((p) => guardOf((parse(p.text) as { expr?: unknown }).expr));
    expect(guarded.length).toBeGreaterThan(5);
    let decided = 0;
    await fc.assert(
      loopProperty(fc.constantFrom(...guarded), userInfo, variables, (p, user, vars) => {
        const guard = guardOf((parse(p.text) as { expr?: unknown }).expr)!;
        // As the judge does (evaluate.ts `guarded`): the first boolean that decides, past unset ones.
        let answer: boolean | undefined;
        for (const { name, negated } of guard.terms) {
          if (!(name in vars)) continue;
          const value = vars[name];
          if (typeof value !== "boolean") break;
          const term = negated ? !value : value;
          if (guard.op === "&&" && !term) answer = false;
          if (guard.op === "||" && term) answer = true;
          if (answer !== undefined) break;
        }
        if (answer === undefined) return;
        decided++;
        expect(show(p.fn(context(user, vars))), p.text).toBe(JSON.stringify(answer));
      }),
      // About one run in sixteen is decided by its guard.
      { numRuns: runs(2000) },
    );
    expect(decided).toBeGreaterThan(runs(2000) / 20);
  });

  it.each([
    ["variables.a && request.name == 'x'", { op: "&&", terms: [{ name: "a", negated: false }] }],
    [
      "!variables.a || variables.b || request.userInfo.username == 'alice'",
      {
        op: "||",
        terms: [
          { name: "a", negated: true },
          { name: "b", negated: false },
        ],
      },
    ],
    ["request.name.matches('(') && variables.a", undefined],
    ["variables.a == variables.b", undefined],
    // The parser drops an even number of `!`, as cel-go's does.
    ["!!variables.a && true", { op: "&&", terms: [{ name: "a", negated: false }] }],
    ["!!!variables.a && true", { op: "&&", terms: [{ name: "a", negated: true }] }],
    ["variables.a && (variables.b || variables.c)", { op: "&&", terms: [{ name: "a", negated: false }] }],
  ])("the guard of %s is %o", (text, expected) => {
    expect(guardOf((parse(text) as { expr?: unknown }).expr)).toEqual(expected);
  });

  it.each([
    ["request.userInfo.username == 'alice'", { userInfo: true, variables: [] }],
    ["has(request.userInfo.groups)", { userInfo: true, variables: [] }],
    [".request.userInfo.username == 'alice'", { userInfo: true, variables: [] }],
    ["request.operation == 'CREATE' && request.name == 'x'", { userInfo: false, variables: [] }],
    ["[request.userInfo].exists(u, u.username == 'alice')", { userInfo: true, variables: [] }],
    ["request.userInfo.groups.exists(g, g in variables.groups)", { userInfo: true, variables: ["groups"] }],
    ["variables.a.b", { userInfo: false, variables: ["a"] }],
    ["has(variables.a)", { userInfo: false, variables: ["a"] }],
    ["object.metadata.name == request.name", { userInfo: false, variables: [] }],
  ])("%s reads %o", (text, expected) => {
    const reads = readsOf((parse(text) as { expr?: unknown }).expr);
    expect(reads && { userInfo: reads.userInfo, variables: [...reads.variables].sort() }).toEqual(expected);
  });

  it.each([
    ["request.userInfo.groups.exists(g, g == 'system:masters') && request.operation == 'CONNECT'", ["groups"], ["operation"], []],
    ["has(request.userInfo.uid) && request.userInfo.username != ''", ["uid", "username"], [], []],
    ["request.userInfo == request.userInfo", ["*"], [], []],
    ["object.metadata.labels.app == 'x' || oldObject == null", [], [], ["object", "oldObject"]],
    ["[object].exists(object, object == 1)", [], [], ["object"]],
    ["request.resource.resource == 'pods' && request.subResource == 'exec'", [], ["resource", "subResource"], []],
  ])("%s reads the user fields %o, the request fields %o and the objects %o", (text, user, request, roots) => {
    const reads = readsOf((parse(text) as { expr?: unknown }).expr)!;
    expect([[...reads.user].sort(), [...reads.request].sort(), [...reads.roots].sort()]).toEqual([user, request, roots]);
  });

  it.each([
    "request['userInfo'].username == 'alice'",
    "request == request",
    "size(request) > 0",
    "'userInfo' in request",
    "[request][0].userInfo.username == 'alice'",
    "{'a': request}.a.userInfo.username == 'alice'",
    "[1].exists(request, request == 1) || variables.a",
    "['alice'].exists(variables, variables == request.userInfo.username)",
    "variables",
    "variables['a']",
    "size(variables) > 0",
    "true ? request.userInfo : request",
  ])("%s may read anything", (text) => {
    expect(readsOf((parse(text) as { expr?: unknown }).expr)).toBeUndefined();
  });

  it("takes any unknown node for one that may read anything", () => {
    expect(readsOf(undefined)).toBeUndefined();
    expect(readsOf({ exprKind: { case: "somethingNew", value: {} } })).toBeUndefined();
    expect(readsOf({ exprKind: { case: "selectExpr", value: { operand: { exprKind: { case: "identExpr", value: { name: "request" } } } } } })).toBeUndefined();
  });
});
