// zod's issues turned into Diagnostics with a requirement ID, a fix and a position.
import { z } from "zod";
import { formatPath, type Diagnostic } from "../core/diagnostic.ts";
import { ValuesError } from "../core/errors.ts";
import { findInlineSecrets, INLINE_SECRET_FIX } from "./inline-secrets.ts";
import type { SourceDocument } from "../parse/source.ts";
import { judge, judgedAlways } from "./judge.ts";
import { variantOfKey, type Variant } from "./variants.ts";

export { eachCheck, judgedAlways } from "./judge.ts";

const SEPARATOR = "\u001f";

/** zod passes only a message, so the ID and fix travel inside it. */
export function tagged(id: string, message: string, fix: string): string {
  return [id, message, fix].join(SEPARATOR);
}

/** What a refusal says after its ID, in `tagged`'s order: the message (zod's own words when left out), then the fix. */
type Said = [fix: string] | [message: string, fix: string];

/** Error option for a zod check: files its issue under requirement `id`. */
export function req(id: string, ...said: Said) {
  const [message, fix] = said.length === 1 ? [undefined, said[0]] : said;
  return { error: (issue: z.core.$ZodRawIssue) => tagged(id, message ?? describeIssue(issue), fix) };
}

/** zod's context when zod validates, or a sink that only notes an issue. */
export type IssueSink = Pick<z.RefinementCtx, "addIssue">;

/** Adds an issue for a cross-field rule inside a refinement. */
export function fail(ctx: IssueSink, path: PropertyKey[], id: string, message: string, fix: string): void {
  ctx.addIssue({ code: "custom", path: path as (string | number)[], message: tagged(id, message, fix) });
}

/** Values a named refinement is given beside the value: written into the generated validators as JSON. */
type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

const namedChecks = new WeakMap<object, { fn: Function; args: readonly Json[] }>();
const namedTransforms = new WeakMap<object, Function>();

/** A named, exported refinement, so the generated validators can call it too; it runs on every parse (see `judge`). */
export function refineBy<S extends z.ZodType, A extends readonly Json[]>(
  schema: S,
  check: (value: z.output<S>, ctx: IssueSink, ...args: A) => void,
  ...args: A
): S {
  const refined = schema.superRefine((value, ctx) => judge(value, ctx, (v) => check(v, ctx, ...args)), { when: judgedAlways });
  const checks = refined._zod.def.checks!;
  namedChecks.set(checks[checks.length - 1], { fn: check, args });
  return refined;
}

/** A transform that is a named, exported function (see `refineBy`); it reports a refusal through `ctx`. */
export function transformBy<S extends z.ZodType, T>(schema: S, transform: (value: z.output<S>, ctx: IssueSink) => T) {
  const transformed = schema.transform((value, ctx) => transform(value, ctx));
  namedTransforms.set(transformed._zod.def.out, transform);
  return transformed;
}

/** The named function and arguments of a `refineBy` check, for the generator. */
export function namedCheck(check: z.core.$ZodCheck): { fn: Function; args: readonly Json[] } | undefined {
  return namedChecks.get(check);
}

/** The named function of a `transformBy` transform, for the generator. */
export function namedTransform(transform: z.core.$ZodType): Function | undefined {
  return namedTransforms.get(transform);
}

/** Builds once on first use, so a process builds only its kind's schemas. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** A key refused by requirement `id`, named so rather than as an unknown key. */
export const refused = (id: string, ...said: Said) => {
  const [message, fix] = said.length === 1 ? ["is not accepted", said[0]] : said;
  return z
    .never(req(id, message, fix))
    .optional()
    .meta({ description: `Not accepted (${id}): ${fix}` });
};

function describeIssue(issue: z.core.$ZodRawIssue): string {
  const i = issue as z.core.$ZodRawIssue & Record<string, unknown>;
  switch (issue.code) {
    case "too_small":
      if (i.origin === "array") return Number(i.minimum) === 1 ? "is empty" : `has fewer than ${i.minimum} items`;
      if (i.origin === "string") return Number(i.minimum) === 1 ? "is empty" : `is shorter than ${i.minimum} characters`;
      return `is below ${i.minimum}`;
    case "too_big":
      if (i.origin === "array") return `has more than ${i.maximum} items`;
      if (i.origin === "string") return `is longer than ${i.maximum} characters`;
      return `is above ${i.maximum}`;
    case "invalid_type":
      return `expected ${i.expected === "int" ? "an integer" : `${/^[aeiou]/.test(String(i.expected)) ? "an" : "a"} ${String(i.expected)}`}`;
    case "invalid_value":
      return `must be ${(i.values as unknown[]).map((v) => JSON.stringify(v)).join(" or ")}`;
    default:
      return "is not valid";
  }
}

/** zod's compiled parser pays only on repeat parses, so the first parse of a schema runs without it. */
const parsedBefore = new WeakSet<z.ZodType>();

/** A build-time validator: the parsed values, or `undefined` when it does not accept. */
export type FastValidator = (data: unknown) => { value: unknown } | undefined;

/** Validates `source.data` or throws every problem at once; `fast` accepts what it can and leaves the rest to zod. */
export function validateValues<S extends z.ZodType>(schema: S | (() => S), source: SourceDocument, kind: string, fast?: FastValidator): z.output<S> {
  const secrets = inlineSecretDiagnostics(source);
  // The fast path: no zod schema is built and zod parses nothing.
  if (fast && secrets.length === 0) {
    const accepted = fast(source.data);
    if (accepted) return accepted.value as z.output<S>;
  }
  const built = typeof schema === "function" ? schema() : schema;
  const jitless = !parsedBefore.has(built);
  parsedBefore.add(built);
  const { result, cut } = parseOrCut(built, source.data, jitless);
  if (result.success && secrets.length === 0 && cut.length === 0) return result.data as z.output<S>;
  // Other diagnostics about a secret-looking value still appear (a static
  // AWS key is RP-07 as well as G-04), but never echo the value itself.
  const secret = new Set(secrets.map((s) => s.path));
  const rest = result.success ? [] : toDiagnostics(result.error.issues, source, built, kind, (path) => secret.has(path));
  const unchecked = cut.map(({ path, length, kept }) => ({
    id: "G-01",
    path: formatPath(path),
    message: `holds ${length} items, too many problems to report at once; only the first ${kept} were checked`,
    fix: "fix the problems reported and run again",
    location: source.locate(path, { key: true }),
  }));
  throw new ValuesError(sortByLocation([...secrets, ...rest, ...unchecked]));
}

/** A list cut short for zod, and how long it was. */
interface Cut {
  path: PropertyKey[];
  length: number;
  kept: number;
}

/** zod on the values, or with lists cut short: huge issue lists exceed the stack. */
function parseOrCut(schema: z.ZodType, data: unknown, jitless: boolean): { result: z.ZodSafeParseResult<unknown>; cut: Cut[] } {
  try {
    return { result: schema.safeParse(data, { jitless }), cut: [] };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  for (const kept of [1000, 100, 10]) {
    const cut: Cut[] = [];
    const pruned = cutLists(data, kept, [], cut);
    try {
      return { result: schema.safeParse(pruned, { jitless }), cut };
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  }
  throw new RangeError("too many problems in the values to report");
}

/** `value` with every list longer than `kept` cut to its first `kept` items, noted in `cut` (depth is bounded). */
function cutLists(value: unknown, kept: number, path: PropertyKey[], cut: Cut[]): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    if (value.length > kept) cut.push({ path, length: value.length, kept });
    return value.slice(0, kept).map((item, i) => cutLists(item, kept, [...path, i], cut));
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    Object.defineProperty(out, key, { value: cutLists(child, kept, [...path, key], cut), enumerable: true, writable: true, configurable: true });
  return out;
}

/** G-04: values that look like secrets, wherever they are (never shown). */
function inlineSecretDiagnostics(source: SourceDocument): Diagnostic[] {
  return findInlineSecrets(source.data).map((found) => ({
    id: "G-04",
    path: formatPath(found.path),
    message: found.message,
    fix: INLINE_SECRET_FIX,
    location: source.locate(found.path),
  }));
}

export function toDiagnostics(
  issues: readonly z.core.$ZodIssue[],
  source: SourceDocument,
  schema: z.ZodType,
  kind: string,
  hideValue: (path: string) => boolean = () => false,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const known = keysAt(schema, issue.path);
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        const variant = variantOfKey(schema, issue.path, key, source.data);
        if (variant) {
          out.push(variantDiagnostic(variant, path, kind, source));
          continue;
        }
        const near = closest(
          key,
          known.filter((k) => k !== key),
        );
        out.push({
          id: "G-01",
          path: formatPath(path),
          message: "unknown key",
          fix: near ? `did you mean \`${near}\`? unknown keys are errors` : `remove it; \`rigging schema ${kind}\` lists the keys`,
          location: source.locate(path, { key: true }),
        });
      }
      continue;
    }
    // Keys of records and members of unions report their own issues
    // nested inside one generic issue; the nested one carries the ID.
    const nested =
      "issues" in issue ? (issue.issues as z.core.$ZodIssue[] | z.core.$ZodIssue[][]).flat().find((i) => i.message.includes(SEPARATOR)) : undefined;
    const text = nested?.message ?? issue.message;
    const [id, message, fix] = text.includes(SEPARATOR)
      ? text.split(SEPARATOR)
      : ["G-01", lowerFirst(issue.message), `see \`rigging schema ${kind}\` for the expected shape`];
    const value = valueAt(source.data, issue.path);
    const missing = missingKey(source.data, issue);
    if (missing) {
      // Reported where the key has to be added: at its parent's line (the
      // path stays the key's own, which is what scripts look up).
      const parent = issue.path.slice(0, -1);
      const tagged = text.includes(SEPARATOR);
      const addIt = tagged ? fix : `add it; \`rigging schema ${kind}\` shows its shape`;
      // A requirement's own "is missing: why it matters" keeps its reason.
      const why = tagged && message.startsWith("is missing") ? message.slice("is missing".length) : "";
      out.push({
        id,
        path: formatPath(issue.path),
        message: `missing required key \`${missing}\`${why}`,
        fix: addIt,
        location: source.locate(parent, { key: true }),
      });
      continue;
    }
    const path = formatPath(issue.path);
    if (typeof value === "number" && !Number.isFinite(value)) {
      // YAML reads `1e400` and `.inf` as Infinity and `.nan` as NaN; JSON would print them as null.
      const what = Number.isNaN(value) ? "is not a number (.nan)" : "is out of range (not a finite number)";
      out.push({ id, path, message: what, fix, location: source.locate(issue.path) });
      continue;
    }
    const shown = isScalar(value) && !hideValue(path) && !mentions(message, value) ? `${JSON.stringify(value)} ` : "";
    out.push({ id, path, message: shown + message, fix, location: source.locate(issue.path) });
  }
  return sortByLocation(out);
}

/** A key another variant reads: "valid only for provider gke (this file says provider: eks)". */
function variantDiagnostic(variant: Variant, path: PropertyKey[], kind: string, source: SourceDocument): Diagnostic {
  const { discriminator, owners, given } = variant;
  const said = typeof given === "string" ? given : JSON.stringify(given);
  return {
    id: variant.refusal?.includes(SEPARATOR) ? variant.refusal.split(SEPARATOR)[0] : "G-01",
    path: formatPath(path),
    message: `valid only for ${discriminator} ${owners.join(" or ")} (this file says ${discriminator}: ${said})`,
    fix: `remove it: ${discriminator} ${said} does not read it; \`rigging schema ${kind}\` lists the keys of each ${discriminator}`,
    location: source.locate(path, { key: true }),
  };
}

/** The name of the key an issue says is missing, when its parent is a mapping without it. */
function missingKey(data: unknown, issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_type" || issue.path.length === 0) return undefined;
  const key = issue.path.at(-1)!;
  const parent = valueAt(data, issue.path.slice(0, -1));
  if (parent === null || typeof parent !== "object" || Array.isArray(parent) || typeof key !== "string") return undefined;
  return Object.hasOwn(parent, key) ? undefined : key;
}

/** Whether a message already names the value; short strings count only quoted. */
function mentions(message: string, value: unknown): boolean {
  const shown = typeof value === "string" && value.length < 3 ? [JSON.stringify(value)] : [String(value), JSON.stringify(value)];
  return message.split(/[\s(),;]+/).some((word) => shown.includes(word));
}

export function sortByLocation(list: Diagnostic[]): Diagnostic[] {
  return list.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.column ?? 0) - (b.location?.column ?? 0));
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const segment of path) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

/** The keys a zod object schema accepts at `path`, for "did you mean". */
export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: zod's definition records differ per node type; this reads the few fields each case names
  const def = schema._zod.def as unknown as Record<string, any>;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return keysAt(def.innerType, path);
    case "pipe":
      return keysAt(def.in, path);
    case "lazy":
      return keysAt(def.getter(), path);
    case "union":
      return [...new Set((def.options as z.core.$ZodType[]).flatMap((option) => keysAt(option, path)))];
    case "intersection":
      return [...keysAt(def.left, path), ...keysAt(def.right, path)];
    case "object": {
      if (path.length === 0) return Object.keys(def.shape);
      const child = def.shape[path[0] as string];
      return child ? keysAt(child, path.slice(1)) : [];
    }
    case "array":
      return path.length === 0 ? [] : keysAt(def.element, path.slice(1));
    case "record":
      return path.length === 0 ? [] : keysAt(def.valueType, path.slice(1));
    default:
      return [];
  }
}

/** The known key nearest to `word`, when it is near enough to be a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  // A typo of a known key is short; comparing a long word would cost its
  // length times each candidate's.
  if (word.length > 64) return undefined;
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    // The lengths alone bound the distance from below: most candidates stop here.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
