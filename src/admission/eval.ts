// The API server's side of ValidatingAdmissionPolicies, for judging
// hand-written policies by what they decide rather than by how they look:
// which policies and bindings match a request (namespaceSelector,
// objectSelector, resourceRules with subresources, operations and
// resourceNames, excludeResourceRules, matchConditions), what their CEL
// variables and validations answer (a real CEL engine, loaded only when a
// set holds policies), and what the binding's validationActions and the
// policy's failurePolicy make of it.
import { createRequire } from "node:module";
import type { K8sObject } from "../core/objects.ts";
import { dig } from "../rules/engine.ts";
import { instantiate, splitLiterals, templateOf, type Parsed, type Template } from "./literals.ts";
import { blindOf, classKey, uniqueTests, type Blind, type Test, type Tests } from "./classes.ts";
import { CEL_COST_LIMIT, estimatedCost } from "./cost.ts";
import { guardOf, readsOf, type Guard, type Reads } from "./reads.ts";
import { isRecord, list, selects } from "../rules/templates.ts";

export interface AdmissionRequest {
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  group: string;
  version: string;
  resource: string;
  subResource?: string;
  kind: string;
  namespace: string;
  name: string;
  user: string;
  groups?: readonly string[];
  object?: unknown;
  oldObject?: unknown;
}

/** Why a request was decided as it was, to point a finding at the field that decided it. */
export interface Decision {
  allowed: boolean;
  /** Undecided: a policy that matched uses a function the engine does not have. */
  unknown?: string;
  /** The policy (and field) that denied it. */
  deniedBy?: { object: K8sObject; path: PropertyKey[]; message: string };
}

/** A policy found in a set, with its CEL planned once. */
interface Planned {
  policy: K8sObject;
  bindings: K8sObject[];
  failClosed: boolean;
  matchConditions: ({ path: PropertyKey[] } & Slot)[];
  variables: ({ name: string } & Slot)[];
  validations: ({ path: PropertyKey[]; message: string } & Slot)[];
  /** What its expressions test of who asks, when all of them pass the proof of classes.ts. */
  tests?: Tests;
}

/** An expression in its place in a policy. */
interface Slot {
  fn: Evaluator;
  /** Its answer is the same whoever asks (see `shared` in planPolicies): kept per request. */
  shared: boolean;
  /** What it reads, when that is plain, and its answers by what it read (see `Memo`). */
  reads?: Reads;
  memo?: Memo;
  /** Leading variable terms that may decide it alone (see `guardOf`). */
  guard?: Guard;
  /** What it does with who asks, when that passes the proof of classes.ts. */
  blind?: Blind;
}

type Evaluator = (context: Record<string, unknown>) => unknown;

/** A CEL expression that the API server would refuse, with where it is. */
export interface Uncompiled {
  object: K8sObject;
  path: PropertyKey[];
  message: string;
}

// ----------------------------------------------------------------- CEL engine

interface Cel {
  plan(env: unknown, parsed: unknown): (context: Record<string, unknown>) => unknown;
  parse(expression: string): unknown;
  isCelError(value: unknown): value is Error;
  celMap(map: ReadonlyMap<string, unknown>): unknown;
  celList(list: readonly unknown[]): unknown;
  env: unknown;
  /** The environment with the engine's own `matches`, for the plain path. */
  plainEnv: unknown;
}

let engine: Cel | undefined;

/** The longest CEL expression evaluated (the API server's own limit on one is 5 KiB: x-kubernetes validation maxLength). */
const MAX_EXPRESSION = 64 * 1024;

/** The CEL engine, loaded on first use: a check of a set without policies never pays for it. */
function cel(): Cel {
  if (engine) return engine;
  // Literal require() calls, so that the bundle and the standalone executable
  // carry the engine; the sources under test run as ES modules, without require.
  const [coreModule, extModule, re2Module] =
    typeof require === "function"
      ? [require("@bufbuild/cel"), require("@bufbuild/cel/ext"), require("@bufbuild/re2")]
      : ((load: NodeJS.Require) => [load("@bufbuild/cel"), load("@bufbuild/cel/ext"), load("@bufbuild/re2")])(createRequire(import.meta.url));
  const core = coreModule as Omit<Cel, "env" | "plainEnv"> & { celEnv(options: unknown): unknown };
  const { strings } = extModule as { strings: unknown };
  const { RE2JS } = re2Module as { RE2JS: { compile(pattern: string): Matcher } };
  const re2 = { compile: (pattern: string) => compiledPattern(pattern, (p) => RE2JS.compile(p)) };
  engine = {
    plan: core.plan,
    parse: core.parse,
    isCelError: core.isCelError,
    celMap: core.celMap,
    celList: core.celList,
    env: core.celEnv({ funcs: strings, re2 }),
    plainEnv: core.celEnv({ funcs: strings }),
  };
  return engine;
}

interface Matcher {
  test(text: string): boolean;
}

/**
 * Compiled regular expressions by pattern. The engine's `matches` compiles
 * its pattern (the same RE2 engine, @bufbuild/re2) on every call, and a
 * compiled pattern answers any text. A pattern that does not compile
 * throws each time, as the engine's does. Measured gain: `matches` went
 * from 5.2% to 0.8% of `check`'s CPU on 200 rendered Runner installations,
 * each asking the same digest pattern (node --cpu-prof dist/rigging.mjs
 * check OUT); too little for bench/check-speed.ts to tell from its noise.
 */
const patterns = new Map<string, Matcher>();
const MAX_PATTERNS = 256;
const MAX_PATTERN = 1024;

function compiledPattern(pattern: string, compile: (pattern: string) => Matcher): Matcher {
  const known = patterns.get(pattern);
  if (known) return known;
  const matcher = compile(pattern);
  if (pattern.length <= MAX_PATTERN) {
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(JSON.parse(JSON.stringify(pattern)) as string, matcher); // a copy, not a slice of a file
  }
  return matcher;
}

/**
 * The speed paths of the judge can be turned off, so that tests compare
 * their verdicts with the plain path's (test/admission/fast-path.test.ts),
 * and the bench measures what deciding identities as classes saves
 * (bench/check-speed.ts).
 */
const paths = { plain: false, byClass: true };

function withPaths<T>(change: Partial<typeof paths>, fn: () => T): T {
  const before = { ...paths };
  Object.assign(paths, change);
  try {
    return fn();
  } finally {
    Object.assign(paths, before);
  }
}

/** Runs `fn` on the plain path: every expression compiled anew, objects handed to CEL as plain data. */
export const withoutSpeedPaths = <T>(fn: () => T): T => withPaths({ plain: true }, fn);

/** Runs `fn` with the fast path but every identity decided on its own (see `decider`). */
export const withoutClasses = <T>(fn: () => T): T => withPaths({ byClass: false }, fn);

/** A compiled expression (and what it reads, when that is plain, with its answers by what it read), or why it does not compile. */
type Compiled = CompiledProgram | { error: string };
type CompiledProgram = { fn: Evaluator; reads?: Reads; memo?: Memo; guard?: Guard; blind?: Blind };

/**
 * A program's answers by the values it read. An expression whose reads are
 * plain (reads.ts) answers alike wherever those values are alike:
 * the request fields, the asker's name or groups, the variables and the
 * objects it reads (objects and other composite values by identity, so a
 * constant list kept here keeps its identity too). The program is shared by
 * every policy with the same text, so its answers are too, across requests
 * and installations: a fleet asks the same few questions over and over.
 * Bounded, in two generations: when the young one is full it becomes the
 * old one, and an answer found in the old one is kept young again, so the
 * answers asked across installations stay and an installation's own go.
 * An answer that read one of the installation's own objects is kept apart,
 * for that installation only (`Prepared.local`).
 *
 * Measured gain, with the leading-variable shortcut (`guarded`): CEL
 * evaluations for `check` of 100 rendered fleet installations went from
 * 66,900 to 5,656 (counted); the catalog's CPU per installation from a
 * median 7.50 ms to 4.24 ms (min 4.65 to 2.88; the plain path, the same
 * in both, 30.2 and 36.6 ms on the loaded machine: plain / fast 4.0 and
 * 8.6), `npx tsx bench/check-speed.ts 200`, the two builds back to back.
 * Peak RSS of `check` of 3,000 installations on one thread: 170 MB before,
 * 216 MB with generations of 4,096 answers, 181-186 MB with 512.
 */
class Memo {
  static readonly MAX = 512;
  private young = new Map<unknown, unknown>();
  private old = new Map<unknown, unknown>();
  private size = 0;
  /** The answer kept for these read values (a tree with one level per value read, so that no key is ever built or hashed whole). */
  get(parts: readonly unknown[]): Outcome | undefined {
    const young = Memo.find(this.young, parts);
    if (young) return young;
    const old = Memo.find(this.old, parts);
    if (old) this.set(parts, old);
    return old;
  }
  set(parts: readonly unknown[], outcome: Outcome): void {
    if (this.size >= Memo.MAX) {
      this.old = this.young;
      this.young = new Map();
      this.size = 0;
    }
    let node = this.young;
    for (const part of parts) {
      let next = node.get(part) as Map<unknown, unknown> | undefined;
      if (!next) node.set(part, (next = new Map()));
      node = next;
    }
    node.set(ANSWER, outcome);
    this.size++;
  }
  private static find(root: Map<unknown, unknown>, parts: readonly unknown[]): Outcome | undefined {
    let node: Map<unknown, unknown> | undefined = root;
    for (const part of parts) {
      node = node.get(part) as Map<unknown, unknown> | undefined;
      if (!node) return undefined;
    }
    return node.get(ANSWER) as Outcome | undefined;
  }
}
const ANSWER = Symbol("answer");

/**
 * Compiled programs by expression text. A fleet's installations share most
 * of their CEL word for word, and a planned program is reusable with any
 * data (@bufbuild/cel: "the returned function can be called multiple
 * times"). Bounded by the text it holds; the least recently used goes
 * first. Measured gain: without it the catalog took 2.5 times the CPU per
 * rendered Runner installation (median 18.9-20.0 ms against 6.7-9.0 ms,
 * this cache turned off alone in bench/check-speed.ts's fast path; parsing
 * and planning were 27% of `node --cpu-prof dist/rigging.mjs check OUT`).
 */
const programs = new Map<string, { text: string; compiled: Compiled }>();
let programText = 0;
const MAX_PROGRAM_TEXT = 64 * 1024;
let compilations = 0;
let parses = 0;

/**
 * Parsed templates by template text (literals.ts; null: the
 * expression's tree did not show its literals plainly). A fleet's
 * installations differ in a few literals of five of their expressions.
 * Measured gain: compiling went from 12.2% to 6.0% of `check`'s CPU on 200
 * rendered Runner installations, parsing from about 11% to 1.7% (node
 * --cpu-prof dist/rigging.cjs check OUT); a copied tree costs about a tenth
 * of a parse.
 */
const templates = new Map<string, Template | null>();
let templateText = 0;

/** How many expressions were compiled and how many of them parsed so far, and how much text the program cache holds (for tests). */
export function programStats(): { compilations: number; parses: number; cachedText: number } {
  return { compilations, parses, cachedText: programText };
}

function compileExpression(expression: string): Compiled {
  const known = paths.plain ? undefined : programs.get(expression);
  if (known) {
    // Most recently used last, under the key it was stored with (the copy, see below).
    programs.delete(known.text);
    programs.set(known.text, known);
    return known.compiled;
  }
  const { plan, parse, env, plainEnv } = cel();
  compilations++;
  // Parsed from a copy: the expression is a slice of its file's text, and a
  // cached program that kept it (the key, the parser's literals) would keep
  // the whole file alive.
  const text = paths.plain ? expression : (JSON.parse(JSON.stringify(expression)) as string);
  const split = paths.plain ? undefined : splitLiterals(text);
  const template = split && templates.get(split.template);
  let compiled: Compiled;
  try {
    if (template) {
      const expr = instantiate(template, split);
      compiled = costly(expr) ?? withReads(plan(env, expr) as Evaluator, expr);
    } else {
      parses++;
      const parsed = parse(text) as Parsed;
      compiled = costly(parsed.expr) ?? withReads(plan(paths.plain ? plainEnv : env, parsed) as Evaluator, parsed.expr);
      if (split && template === undefined) keepTemplate(split.template, templateOf(parsed, split) ?? null);
    }
  } catch (error) {
    compiled = { error: firstLine((error as Error).message) };
    // The parser's stack may overflow on deep nesting, which depends on where it is called from: not kept.
    if (error instanceof RangeError) return compiled;
  }
  if (paths.plain || expression.length > MAX_PROGRAM_TEXT / 8) return compiled;
  programs.set(text, { text, compiled });
  programText += text.length;
  for (const [oldest] of programs) {
    if (programText <= MAX_PROGRAM_TEXT) break;
    programs.delete(oldest);
    programText -= oldest.length;
  }
  return compiled;
}

/** Why the API server would refuse an expression for its cost, before it is planned or run (cost.ts). */
function costly(expr: unknown): Compiled | undefined {
  const cost = estimatedCost(expr as Parameters<typeof estimatedCost>[0]);
  if (cost <= CEL_COST_LIMIT) return undefined;
  return { error: `its estimated cost is over the API server's limit of ${CEL_COST_LIMIT} per expression (nested comprehensions multiply)` };
}

function withReads(fn: Evaluator, expr: unknown): Compiled {
  if (paths.plain) return { fn };
  const reads = readsOf(expr);
  const guard = guardOf(expr);
  const blind = blindOf(expr);
  return { fn, ...(reads ? { reads, memo: new Memo() } : {}), ...(guard ? { guard } : {}), ...(blind ? { blind } : {}) };
}

function keepTemplate(text: string, template: Template | null): void {
  if (text.length > MAX_PROGRAM_TEXT / 8) return;
  if (templateText + text.length > MAX_PROGRAM_TEXT) {
    templates.clear();
    templateText = 0;
  }
  templates.set(text, template);
  templateText += text.length;
}

/** CEL results: a value, or an error (evaluation failed; `thrown` where the engine threw, which may depend on the stack), or an unsupported function. */
type Outcome = { value: unknown } | { error: string; thrown?: true } | { unsupported: string };

/** Requests asked of a set, and how many of them were answered from the decision of their class (for tests). */
let asked = 0;
let fromClass = 0;
export function classStats(): { asked: number; fromClass: number } {
  return { asked, fromClass };
}

/** How many evaluations threw so far (a decision that met one is not shared with a class). */
let thrown = 0;

function evaluate(fn: Evaluator, context: Record<string, unknown>): Outcome {
  const { isCelError } = cel();
  let value: unknown;
  try {
    value = fn(context);
  } catch (error) {
    thrown++;
    return { error: (error as Error).message, thrown: true };
  }
  if (!isCelError(value)) return { value };
  const unbound = /unbound function: (\S+)/.exec(value.message);
  return unbound ? { unsupported: unbound[1] } : { error: value.message };
}

// ------------------------------------------------------------------- policies

/** Plans every bound ValidatingAdmissionPolicy of the set; expressions that do not compile are returned apart. */
export function planPolicies(objects: readonly K8sObject[]): { planned: Planned[]; uncompiled: Uncompiled[] } {
  const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
  const bindings = objects.filter((o) => o.kind === "ValidatingAdmissionPolicyBinding");
  const planned: Planned[] = [];
  const uncompiled: Uncompiled[] = [];
  if (policies.length === 0) return { planned, uncompiled };
  for (const policy of policies) {
    const spec = isRecord(policy.spec) ? policy.spec : {};
    const compile = (expression: unknown, path: PropertyKey[]): CompiledProgram | undefined => {
      if (typeof expression !== "string") {
        uncompiled.push({ object: policy, path, message: "the expression is not a string" });
        return undefined;
      }
      // Read no further than the API server would: it refuses a policy whose CEL is this long, and
      // the CEL parser is not linear on hostile text (test/hardening/linear-time.test.ts).
      if (expression.length > MAX_EXPRESSION) {
        uncompiled.push({
          object: policy,
          path,
          message: `is ${expression.length} characters long, over the ${MAX_EXPRESSION} rigging evaluates: the API server refuses such a policy`,
        });
        return undefined;
      }
      const compiled = compileExpression(expression);
      if ("fn" in compiled) return compiled;
      uncompiled.push({ object: policy, path, message: `does not compile (${compiled.error}): the API server refuses the policy` });
      return undefined;
    };
    const entry: Planned = {
      policy,
      bindings: bindings.filter((b) => dig(b, ["spec", "policyName"]) === policy.metadata.name),
      failClosed: spec.failurePolicy !== "Ignore",
      matchConditions: [],
      variables: [],
      validations: [],
    };
    let broken = false;
    // Which expressions answer alike whoever asks: those that read neither
    // request.userInfo nor a variable that may differ by who asks. Match
    // conditions run before any variable is set; a variable reads the ones
    // set before it; validations read the last of each name. Their answers
    // are kept per request (`shared` in the decider). Measured gain: 64%
    // fewer evaluations (37,300 against 13,380 for 20 rendered Runner
    // installations, counted); `rigging check` of 1,000 rendered
    // installations took 9.2-9.5 s of CPU against 10.0-10.8 s before (user +
    // sys, /usr/bin/time, three runs each alternated with the build before
    // it, a loaded machine); 10,000: 80.0-81.8 s against 76.5-93.2 s (one
    // pair each way, too noisy to tell more than "not slower").
    const alike = (reads: Reads | undefined, names: ReadonlySet<string> | undefined): boolean =>
      reads !== undefined && !reads.userInfo && [...reads.variables].every((name) => names === undefined || names.has(name));
    const sharedNames = new Set<string>();
    const differingNames = new Set<string>();
    list<Record<string, unknown>>(spec.matchConditions).forEach((c, i) => {
      const compiled = compile(c?.expression, ["spec", "matchConditions", i, "expression"]);
      if (compiled) entry.matchConditions.push(slotOf(compiled, alike(compiled.reads, undefined), { path: ["spec", "matchConditions", i, "expression"] }));
      else broken = true;
    });
    list<Record<string, unknown>>(spec.variables).forEach((v, i) => {
      const compiled = compile(v?.expression, ["spec", "variables", i, "expression"]);
      if (compiled && typeof v?.name === "string") {
        const shared = alike(compiled.reads, sharedNames);
        entry.variables.push(slotOf(compiled, shared, { name: v.name }));
        if (shared && !differingNames.has(v.name)) sharedNames.add(v.name);
        else {
          sharedNames.delete(v.name);
          differingNames.add(v.name);
        }
      } else broken = true;
    });
    list<Record<string, unknown>>(spec.validations).forEach((v, i) => {
      const compiled = compile(v?.expression, ["spec", "validations", i, "expression"]);
      if (compiled)
        entry.validations.push(
          slotOf(compiled, alike(compiled.reads, sharedNames), {
            path: ["spec", "validations", i, "expression"],
            message: typeof v?.message === "string" ? v.message : `failed expression: ${String(v?.expression)}`,
          }),
        );
      else broken = true;
    });
    // A policy the API server refuses is not in the cluster: it decides nothing.
    if (broken) continue;
    const tests = paths.plain ? undefined : testsOf(entry, spec);
    if (tests) entry.tests = tests;
    planned.push(entry);
  }
  return { planned, uncompiled };
}

/**
 * A slot of a planned policy: `place` (its path, message or name) with the
 * program's parts, every slot with the same properties (undefined where the
 * program has no such part). Built by assignment rather than by spreading
 * objects of varying shapes, which V8 copies through its slow generic path
 * (the validations' callback of planPolicies was 2.4-2.9% of `check`'s
 * self time in node --cpu-prof). Measured gain: `valgrind --tool=callgrind
 * node --single-threaded dist/rigging.cjs check OUT` on 200 rendered
 * installations of the bench's fleet, 8.16 -> 8.02 G instructions (-1.7%;
 * one run each, the same command repeated varies by about 1.5%); with the
 * DaemonSet requests asked once (judge.ts, `onDs`), 8.53 -> 8.07
 * G (-5.4%, the two builds run side by side; two earlier pairs, with a
 * per-identity class cache since dropped, -4.2% and -4.4%).
 */
function slotOf<T extends object>({ fn, reads, memo, guard, blind }: CompiledProgram, shared: boolean, place: T): Slot & T {
  const slot = place as Slot & T;
  slot.fn = fn;
  slot.shared = shared;
  slot.reads = reads && memo ? reads : undefined;
  slot.memo = reads && memo ? memo : undefined;
  slot.guard = guard;
  slot.blind = blind;
  return slot;
}

/**
 * What a planned policy tests of who asks, when every expression of it
 * (its messageExpressions too, though the judge reports the plain message)
 * passes the proof of classes.ts; undefined otherwise. A test
 * `NAME in variables.V` stands for V's literals when V is defined once in
 * the policy, as a list of string literals, before the expression that
 * reads it (a matchCondition runs before any variable is set).
 */
function testsOf(entry: Planned, spec: Record<string, unknown>): Tests | undefined {
  const user: Test[] = [];
  const group: Test[] = [];
  const defined = new Map<string, number>();
  entry.variables.forEach((v, i) => defined.set(v.name, defined.has(v.name) ? -1 : i));
  const add = (blind: Blind | undefined, before: number): boolean => {
    if (!blind) return false;
    user.push(...blind.user);
    group.push(...blind.group);
    for (const [names, into] of [
      [blind.userLists, user],
      [blind.groupLists, group],
    ] as const) {
      for (const name of names) {
        const at = defined.get(name) ?? -1;
        const strings = at >= 0 && at < before ? entry.variables[at].blind?.strings : undefined;
        if (!strings) return false;
        for (const value of strings) into.push({ op: "==" as const, value });
      }
    }
    return true;
  };
  if (!entry.matchConditions.every((c) => add(c.blind, 0))) return undefined;
  if (!entry.variables.every((v, i) => add(v.blind, i))) return undefined;
  const all = entry.variables.length;
  if (!entry.validations.every((v) => add(v.blind, all))) return undefined;
  for (const v of list<Record<string, unknown>>(spec.validations)) {
    const text = v?.messageExpression;
    if (text === undefined) continue;
    if (typeof text !== "string" || text.length > MAX_EXPRESSION) return undefined;
    const compiled = compileExpression(text);
    if (!("fn" in compiled) || !add(compiled.blind, all)) return undefined;
  }
  return { user: uniqueTests(user), group: uniqueTests(group) };
}

/** What a set tests of who asks: every policy's tests, or undefined when one of them does not pass the proof. */
function setTests(planned: readonly Planned[]): Tests | undefined {
  const user: Test[] = [];
  const group: Test[] = [];
  for (const entry of planned) {
    if (!entry.tests) return undefined;
    user.push(...entry.tests.user);
    group.push(...entry.tests.group);
  }
  return { user: uniqueTests(user), group: uniqueTests(group) };
}

/** Whether a policy's (or binding's) match rules take a request, as the API server matches them. */
export function matchesRules(match: unknown, req: RequestShape, namespaceLabels: Record<string, string>): boolean {
  if (match === undefined || match === null) return true;
  if (!isRecord(match)) return false;
  if (!selects(match.namespaceSelector ?? {}, namespaceLabels)) return false;
  const objectSelector = match.objectSelector ?? {};
  const labelsOf = (o: unknown) => (isRecord(o) && isRecord(o.metadata) && isRecord(o.metadata.labels) ? (o.metadata.labels as Record<string, string>) : {});
  if (!selects(objectSelector, labelsOf(req.object)) && !selects(objectSelector, labelsOf(req.oldObject))) return false;
  const rules = match.resourceRules;
  // A binding's matchResources may leave resourceRules out (the policy's decide); a policy's may not.
  if (rules !== undefined && !list<Record<string, unknown>>(rules).some((rule) => ruleMatches(rule, req))) return false;
  return !list<Record<string, unknown>>(match.excludeResourceRules).some((rule) => ruleMatches(rule, req));
}

function ruleMatches(rule: Record<string, unknown>, req: RequestShape): boolean {
  const any = (field: string, value: string) => {
    const values = list<unknown>(rule?.[field]);
    return values.includes("*") || values.includes(value);
  };
  if (!isRecord(rule) || !any("apiGroups", req.group) || !any("apiVersions", req.version) || !any("operations", req.operation)) return false;
  const scope = rule.scope;
  if (scope === "Cluster") return false; // every request judged here is namespaced
  const resources = list<unknown>(rule.resources);
  const sub = req.subResource ?? "";
  const hit =
    sub === ""
      ? resources.includes("*") || resources.includes(req.resource)
      : resources.some((r) => r === "*/*" || r === `${req.resource}/${sub}` || r === `${req.resource}/*` || r === `*/${sub}`);
  if (!hit) return false;
  const names = list<unknown>(rule.resourceNames);
  return names.length === 0 || names.includes(req.name);
}

/** A request before anyone makes it: who asks is given apart. */
export type RequestShape = Omit<AdmissionRequest, "user" | "groups">;

/** Asks the policies about a request made by a user (in groups, if any). */
export type Decide = (req: RequestShape, user: string, groups?: readonly string[]) => Decision;

/** What a request meets whoever makes it: the policies that match it (with a binding that denies), and its data as CEL sees it. */
interface Prepared {
  matching: Planned[];
  request: Record<string, unknown>;
  /** The request's fields as CEL sees them (all but userInfo, dryRun and options), in order. */
  requestEntries: [string, unknown][];
  base: Record<string, unknown>;
  /** The answers of the expressions that answer alike whoever asks, by slot. */
  shared: Map<Slot, Outcome>;
  /** Each request field read, as a memo key part (see `Memo`). */
  fieldKeys: Map<string, string>;
  /** Answers by what was read, where that holds an object of this installation: kept while its decider lives (see `Memo`). */
  local: Map<Memo, Memo>;
  /** Its decisions by the class of who asks (see `classKey`), when the set's expressions pass the proof of classes.ts. */
  classes: Map<string, Decision>;
}

/** One request, asked by one identity. */
interface Asking {
  ready: Prepared;
  user: string;
  groups?: readonly string[];
  /** The request as CEL sees it, with who asks. */
  request(): unknown;
}

/**
 * The API server's decisions on requests: every matching policy, through
 * its bindings. Which policies and bindings match does not depend on who
 * asks, so a request asked by many identities is matched and converted
 * once (by the identity of the `req` object; the judge asks each request of
 * its matrix for up to 100 identities). Measured gain: without it the
 * catalog took 1.3 times the CPU per rendered Runner installation (median
 * 10.4-10.7 ms against 6.9-8.3 ms, turned off alone in
 * bench/check-speed.ts's fast path).
 */
export function decider(planned: readonly Planned[], namespaceObject: K8sObject): Decide {
  const prepared = new WeakMap<RequestShape, Prepared>();
  const local = new Map<Memo, Memo>();
  const prepare = (req: RequestShape): Prepared => {
    const namespaceLabels = {
      ...((namespaceObject.metadata?.labels as Record<string, string> | undefined) ?? {}),
      "kubernetes.io/metadata.name": req.namespace,
    };
    const matching = planned.filter(
      (entry) =>
        matchesRules(dig(entry.policy, ["spec", "matchConstraints"]), req, namespaceLabels) &&
        entry.bindings.some(
          (b) => list(dig(b, ["spec", "validationActions"])).includes("Deny") && matchesRules(dig(b, ["spec", "matchResources"]), req, namespaceLabels),
        ),
    );
    const request = {
      kind: { group: req.group, version: req.version, kind: req.kind },
      resource: { group: req.group, version: req.version, resource: req.resource },
      subResource: req.subResource ?? "",
      requestKind: { group: req.group, version: req.version, kind: req.kind },
      requestResource: { group: req.group, version: req.version, resource: req.resource },
      requestSubResource: req.subResource ?? "",
      name: req.name,
      namespace: req.namespace,
      operation: req.operation,
    };
    const base =
      matching.length === 0 ? {} : { object: cached(req.object), oldObject: cached(req.oldObject), namespaceObject: cached(namespaceObject), params: null };
    const requestEntries = paths.plain || matching.length === 0 ? [] : Object.entries(request).map(([k, v]): [string, unknown] => [k, celData(v)]);
    return { matching, request, requestEntries, base, shared: new Map(), fieldKeys: new Map(), local, classes: new Map() };
  };
  /** The request as CEL sees it: converted once but for who asks (CEL values are never changed, so they can be shared). */
  const requestOf = (ready: Prepared, user: string, groups?: readonly string[]): unknown => {
    const userInfo = { username: user, uid: `uid-${user}`, ...(groups ? { groups: [...groups] } : {}) };
    if (paths.plain) return celData({ ...ready.request, userInfo, dryRun: false, options: {} });
    return cel().celMap(new Map([...ready.requestEntries, ["userInfo", celData(userInfo)], ["dryRun", false], ["options", celData({})]]));
  };
  // Identities decided as classes: a request is decided once for each class
  // of who asks (classes.ts gives the proof that no decision
  // changes). On rendered fleet installations 71% of the asks are answered
  // from their class (4,260 of 6,000 for 20 installations, counted), about
  // 87 decisions per installation instead of 300; the CEL evaluations left
  // (about 45 per installation) read the installation's own objects and are
  // not changed. Measured gain: the catalog's CPU per installation 1.30x
  // without it (median of 8 alternated pairs of 200 installations, range
  // 0.93-2.15 on a loaded machine, `npx tsx bench/check-speed.ts 200`); CR-06
  // alone (judgeAdmission) 0.77x the CPU of the judge before it (median of
  // 10 alternated rounds of 100 fleet installations in one process).
  const tests = paths.plain || !paths.byClass ? undefined : setTests(planned);
  return (req, user, groups) => {
    let ready = paths.plain ? undefined : prepared.get(req);
    if (!ready) {
      ready = prepare(req);
      if (!paths.plain) prepared.set(req, ready);
    }
    if (ready.matching.length === 0) return { allowed: true };
    asked++;
    if (!tests) return decideFor(ready, user, groups);
    const key = classKey(tests, user, groups);
    const known = ready.classes.get(key);
    if (known) {
      fromClass++;
      return known;
    }
    const before = thrown;
    const decision = decideFor(ready, user, groups);
    // An engine that threw may have run out of stack, which depends on where it was called from: not shared.
    if (thrown === before) ready.classes.set(key, decision);
    return decision;
  };
  function decideFor(ready: Prepared, user: string, groups: readonly string[] | undefined): Decision {
    // The request as CEL sees it is made only if an expression is evaluated (most are answered from a memo).
    let request: unknown;
    const asking: Asking = { ready, user, groups, request: () => (request ??= requestOf(ready, user, groups)) };
    let unknown: string | undefined;
    for (const entry of ready.matching) {
      const verdict = judgePolicy(entry, asking);
      if (verdict === undefined) continue;
      if ("deniedBy" in verdict) return { allowed: false, deniedBy: verdict.deniedBy };
      unknown ??= verdict.unknown;
    }
    return unknown === undefined ? { allowed: true } : { allowed: false, unknown };
  }
}

/** One policy's answer: undefined when it admits the request. */
function judgePolicy(entry: Planned, asking: Asking): { deniedBy: NonNullable<Decision["deniedBy"]> } | { unknown: string } | undefined {
  const { ready } = asking;
  // As a Map the engine reads it live; as a plain object it copies it on every access.
  const variables = new Map<string, unknown>();
  const plainVariables: Record<string, unknown> = {};
  let context: Record<string, unknown> | undefined;
  const evaluateIn = (slot: Slot) =>
    evaluate(slot.fn, (context ??= { request: asking.request(), ...ready.base, variables: paths.plain ? plainVariables : cel().celMap(variables) }));
  // An expression that answers alike whoever asks is evaluated once per request (see `shared` in planPolicies).
  // Any other with plain reads is answered from its program's memo when it read the same before.
  const run = (slot: Slot): Outcome => {
    if (paths.plain) return evaluateIn(slot);
    if (slot.guard) {
      const decided = guarded(slot.guard, variables);
      if (decided) return decided;
    }
    let outcome = slot.shared ? ready.shared.get(slot) : undefined;
    if (outcome) return outcome;
    const { reads } = slot;
    const key = reads ? memoKey(reads, asking, variables) : undefined;
    let memo: Memo | undefined;
    if (key !== undefined) {
      memo = key.local ? ready.local.get(slot.memo!) : slot.memo;
      if (key.local && !memo) ready.local.set(slot.memo!, (memo = new Memo()));
      outcome = memo!.get(key.parts);
    }
    if (!outcome) {
      outcome = evaluateIn(slot);
      if (memo && !("thrown" in outcome)) {
        memo.set(key!.parts, outcome);
        if (!key!.local && "value" in outcome && typeof outcome.value === "object" && outcome.value !== null) sharedValues.add(outcome.value);
      }
    }
    if (slot.shared) ready.shared.set(slot, outcome);
    return outcome;
  };
  const failed = (path: PropertyKey[], error: string) =>
    entry.failClosed ? { deniedBy: { object: entry.policy, path, message: `evaluation failed (${error}) and failurePolicy is Fail` } } : undefined;
  for (const condition of entry.matchConditions) {
    const outcome = run(condition);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) return failed(condition.path, outcome.error);
    if (outcome.value === false) return undefined;
  }
  // Variables are computed in order; one that fails stays unset, and fails what reads it.
  for (const variable of entry.variables) {
    const outcome = run(variable);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("value" in outcome) {
      if (paths.plain) plainVariables[variable.name] = outcome.value;
      else variables.set(variable.name, outcome.value);
    }
  }
  for (const validation of entry.validations) {
    const outcome = run(validation);
    if ("unsupported" in outcome) return { unknown: outcome.unsupported };
    if ("error" in outcome) {
      const denied = failed(validation.path, outcome.error);
      if (denied) return denied;
      continue;
    }
    if (outcome.value !== true) return { deniedBy: { object: entry.policy, path: validation.path, message: validation.message } };
  }
  return undefined;
}

const TRUE: Outcome = { value: true };
const FALSE: Outcome = { value: false };

/**
 * The answer of a chain decided by its leading variable terms, as the
 * engine gives it (see `guardOf`): the first boolean that decides the chain
 * does; an unset variable is an error the chain passes over; any other
 * value ends the shortcut. Measured gain: see `Memo`.
 */
function guarded(guard: Guard, variables: ReadonlyMap<string, unknown>): Outcome | undefined {
  for (const { name, negated } of guard.terms) {
    if (!variables.has(name)) continue;
    const value = variables.get(name);
    if (typeof value !== "boolean") return undefined;
    const term = negated ? !value : value;
    if (guard.op === "&&" && !term) return FALSE;
    if (guard.op === "||" && term) return TRUE;
  }
  return undefined;
}

/**
 * What an expression read, value by value: each request field, asker
 * field, variable and object it reads, in the order of its reads; scalars
 * as they are, anything else by identity. A user's fields are all made of
 * the name and the groups (`uid-NAME`, no extra), so any field but these
 * two stands for both.
 */
function memoKey(reads: Reads, asking: Asking, variables: ReadonlyMap<string, unknown>): { parts: unknown[]; local: boolean } {
  const { ready, user, groups } = asking;
  const parts: unknown[] = [];
  for (const field of reads.request) {
    let part = ready.fieldKeys.get(field);
    if (part === undefined) ready.fieldKeys.set(field, (part = JSON.stringify(ready.request[field as keyof Prepared["request"]]) ?? "-"));
    parts.push(part);
  }
  for (const field of reads.user) {
    if (field === "username" || field === "uid") parts.push(user);
    else if (field === "groups") parts.push(groupsKey(groups));
    else parts.push(user, groupsKey(groups));
  }
  // An object of this installation (one of its objects, or a value computed from them) keys an answer for this installation only.
  let local = false;
  for (const name of reads.variables) {
    const value = variables.get(name);
    parts.push(variables.has(name) ? part(value) : UNSET);
    if (typeof value === "object" && value !== null && !sharedValues.has(value)) local = true;
  }
  for (const root of reads.roots) {
    const value = ready.base[root];
    parts.push(part(value));
    if (typeof value === "object" && value !== null) local = true;
  }
  return { parts, local };
}

const UNSET = Symbol("unset");
const NEGATIVE_ZERO = Symbol("-0");
/** A value as a memo key: a Map tells keys apart by SameValueZero, which takes -0 for 0 (and CEL does not: 1.0 / -0.0). */
function part(value: unknown): unknown {
  return Object.is(value, -0) ? NEGATIVE_ZERO : value;
}

/** Values answered from a program's own memo: the same object for every installation that asks, so they may key shared answers. */
const sharedValues = new WeakSet<object>();

const groupKeys = new WeakMap<readonly string[], string>();
function groupsKey(groups: readonly string[] | undefined): string {
  if (groups === undefined) return "-";
  let key = groupKeys.get(groups);
  if (key === undefined) groupKeys.set(groups, (key = JSON.stringify(groups)));
  return key;
}

/** Objects are asked about many times (one request per identity): converted once. */
const converted = new WeakMap<object, unknown>();
const convertedPlain = new WeakMap<object, unknown>();
function cached(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return celData(value);
  const store = paths.plain ? convertedPlain : converted;
  if (!store.has(value)) store.set(value, celData(value));
  return store.get(value);
}

/**
 * Plain data as CEL sees Kubernetes objects: whole numbers are ints
 * (bigint), not doubles. Maps and lists are handed over as the engine's own
 * values, which it reads as they are; a plain object it would copy into a
 * new Map on every access (toCel in @bufbuild/cel). The same entries in the
 * same order, so the same values; and a key named `constructor` or
 * `__proto__` (a label, a variable) is read like any other, where the
 * engine's reading of a plain object trips over it. Measured gain (with the variables and the
 * request handed over the same way): without it the catalog took twice the
 * CPU per rendered Runner installation (median 17.9-18.4 ms against
 * 7.0-10.2 ms, turned off alone in bench/check-speed.ts's fast path).
 */
function celData(value: unknown): unknown {
  return paths.plain ? plainData(value, 0) : engineData(value, 0, cel());
}

/**
 * `celData` on the fast path: each map filled key by key, with the engine
 * asked for once, instead of an array of entries copied into the Map (the
 * same keys, in the same order: Object.keys as Object.entries). Measured
 * gain: `valgrind --tool=callgrind node --single-threaded dist/rigging.cjs
 * check OUT` on 200 rendered installations of the bench's fleet, 7.75-7.78
 * -> 7.65-7.68 G instructions (-1.2% to -1.4% in three pairs run side by
 * side; two runs beside other builds gave 7.74 and 7.90 G, the spread of
 * V8's optimizing compiler under load).
 */
function engineData(value: unknown, depth: number, engine: Cel): unknown {
  if (depth > 200) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return engine.celList(value.map((item) => engineData(item, depth + 1, engine)));
  if (isRecord(value)) {
    const map = new Map<string, unknown>();
    for (const key of Object.keys(value)) map.set(key, engineData(value[key], depth + 1, engine));
    return engine.celMap(map);
  }
  return value;
}

/** `celData` on the plain path: plain objects and arrays. */
function plainData(value: unknown, depth: number): unknown {
  if (depth > 200) return null;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map((item) => plainData(item, depth + 1));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]): [string, unknown] => [k, plainData(v, depth + 1)]));
  return value;
}

function firstLine(text: string): string {
  return text.split("\n")[0];
}
