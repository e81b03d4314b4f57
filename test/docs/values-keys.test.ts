// Every values key the docs show exists in the schema `rigging schema` prints.
// 1. A ```yaml block of README.md or docs/**/*.md whose top-level `kind:` is
//    a values kind is a values file, or the part of one the page talks about:
//    laid over that kind's shipped example (`rigging render -f EXAMPLE -f
//    BLOCK`), it validates against `rigging schema KIND` under Ajv 2020
//    (strict, ajv-formats), and renders.
// 2. On a system's pages (docs/<system>.md and docs/<system>-*.md), an inline
//    code span that is a dotted key path (two or more names joined by `.`,
//    each name optionally followed by `[]`), whose first name is a top-level
//    key of one of that system's kinds and whose last is not a file
//    extension (FILE_EXTENSION: `clusters.yaml`, `nats.conf` name files),
//    resolves in that kind's schema (through properties, list items,
//    oneOf/anyOf branches and maps). A path through a key the schema
//    refuses (`not: {}`) may be named only where the text around it (its
//    paragraph, list item or table row) says it is refused or not accepted.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { CLI, ROOT } from "../support/cli.ts";
import { type CodeSpan, codeBlocks, codeSpans, docPages } from "./markdown.ts";
import { SYSTEMS } from "../../src/systems/registry.ts";

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  additionalProperties?: Schema | boolean;
  not?: object;
}

const riggingSchema = (kind: string): Schema => JSON.parse(execFileSync(process.execPath, [CLI, "schema", kind], { encoding: "utf8" }));
const KINDS = SYSTEMS.flatMap((s) => s.valuesKinds.map((k) => k.kind));
const schemas = new Map(KINDS.map((kind) => [kind, riggingSchema(kind)]));

function validator(kind: string): ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schemas.get(kind)!);
}

/** The shipped example of each kind: the file `rigging init KIND` prints. */
const EXAMPLE: Record<string, string> = Object.fromEntries(SYSTEMS.flatMap((s) => s.valuesKinds.map((k) => [k.kind, k.example])));

/** Helm's merge, as `rigging render -f A -f B` does it: maps merge key by key, anything else is replaced. */
function layered(base: unknown, over: unknown): unknown {
  if (!isMap(base) || !isMap(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = layered(base[key], value);
  return out;
}
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const valuesBlocks = docPages()
  .flatMap((page) => codeBlocks(page).filter((b) => b.lang === "yaml"))
  .filter((b) => {
    const first = parseAllDocuments(b.text)[0]?.toJS();
    return isMap(first) && KINDS.includes(first.kind as string);
  });

describe("a values file shown in the docs is valid against rigging schema", () => {
  it("finds values blocks", () => expect(valuesBlocks.length).toBeGreaterThanOrEqual(3));

  it("refuses, laid over the example, a Vault role outside secretStore.settings", () => {
    const example = parse(readFileSync(join(ROOT, EXAMPLE.RootpilotRunner), "utf8"));
    const validate = validator("RootpilotRunner");
    expect(validate(layered(example, { secretStore: { mode: "vault", settings: { VAULT_ROLE: "runner" } } }))).toBe(true);
    expect(validate(layered(example, { secretStore: { mode: "vault", role: "runner" } }))).toBe(false);
  });

  it.each(valuesBlocks.map((b) => [`${b.page}:${b.line}`, b] as const))("%s", (_, block) => {
    const own = parseAllDocuments(block.text)[0].toJS() as Record<string, unknown>;
    const kind = own.kind as string;
    const example = parse(readFileSync(join(ROOT, EXAMPLE[kind]), "utf8"));
    expect(example.kind).toBe(kind);
    const validate = validator(kind);
    const valid = validate(layered(example, own));
    expect(valid, JSON.stringify(validate.errors, null, 1)).toBe(true);
    // The tool agrees: the block laid over the example renders.
    const file = join(mkdtempSync(join(tmpdir(), "rigging-docs-")), "block.yaml");
    writeFileSync(file, block.text);
    const r = runRender(["render", "-f", join(ROOT, EXAMPLE[kind]), "-f", file]);
    expect(r.code, r.err).toBe(0);
  });
});

function runRender(args: string[]): { code: number; err: string } {
  try {
    execFileSync(process.execPath, [CLI, ...args], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    return { code: 0, err: "" };
  } catch (error) {
    const e = error as { status: number; stderr: string };
    return { code: e.status, err: e.stderr };
  }
}

const KEY_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\[\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[\])?)+$/;
const FILE_EXTENSION = /\.(ya?ml|json|pem|crt|conf|toml|txt|db|md|ts|sh|sarif|xml)$/;
const SAYS_REFUSED = /refused|not accepted/i;

const refusedSchema = (s: Schema) => s.not !== undefined && Object.keys(s.not).length === 0;

/** The schemas `name` names under `s`: a property, a map's value, in every branch. */
function child(s: Schema, name: string): Schema[] {
  const own =
    s.properties && Object.hasOwn(s.properties, name) ? [s.properties[name]] : isMap(s.additionalProperties) ? [s.additionalProperties as Schema] : [];
  return [...own, ...[...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((b) => child(b, name))];
}
const items = (s: Schema): Schema[] => [...(s.items ? [s.items] : []), ...[...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap(items)];

/** Where a key path leads: "accepted", "refused" (through a key the schema refuses), or "missing". */
function resolve(schema: Schema, path: string): "accepted" | "refused" | "missing" {
  let at = [schema];
  for (const segment of path.split(".")) {
    const list = segment.endsWith("[]");
    at = at.flatMap((s) => child(s, list ? segment.slice(0, -2) : segment));
    if (list) at = at.flatMap(items);
    if (at.length === 0) return "missing";
    if (at.every(refusedSchema)) return "refused";
    at = at.filter((s) => !refusedSchema(s));
  }
  return "accepted";
}

const systemPages = SYSTEMS.map((system) => ({
  system: system.name,
  kinds: system.valuesKinds.map((k) => k.kind),
  pages: docPages().filter((page) => page === `docs/${system.name}.md` || page.startsWith(`docs/${system.name}-`)),
}));

describe("a key path in a system page's prose exists in its schema", () => {
  it("every system has a page", () => {
    for (const { system, pages } of systemPages) expect(pages, system).toContain(`docs/${system}.md`);
  });

  it.each(systemPages.flatMap(({ kinds, pages }) => pages.map((page) => [page, kinds] as const)))("%s", (page, kinds) => {
    const { checked, problems } = keyProblems(codeSpans(page), kinds);
    expect(checked, "key paths checked").toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it("the rule finds a missing key, and a refused one the text does not call refused", () => {
    const span = (text: string, context = "") => ({ page: "docs/x.md", text, context });
    const { checked, problems } = keyProblems(
      [
        span("server.nats.jetstream.maxMemoryStoreMiB"),
        span("runner.designed.P9"),
        span("server.nats.jetstream.maxMemoryStore"),
        span("server.clusters.yaml"),
        span("runner.hostPaths.sessions", "the old key is refused"),
        span("runner.hostPaths.sessions", "mount it at"),
        span("kubernetes.io/hostname"),
      ],
      ["Compass"],
    );
    expect(checked).toBe(5);
    expect(problems).toEqual([
      "`server.nats.jetstream.maxMemoryStore` is not a key of Compass",
      "`runner.hostPaths.sessions` is refused by the schema, but the text does not say so: mount it at",
    ]);
  });
});

/** The key paths among `spans` that break the rule above, and how many were checked. */
function keyProblems(spans: readonly CodeSpan[], kinds: readonly string[]): { checked: number; problems: string[] } {
  const tops = new Set(kinds.flatMap((kind) => Object.keys(schemas.get(kind)!.properties ?? {})));
  const problems: string[] = [];
  let checked = 0;
  for (const span of spans) {
    if (!KEY_PATH.test(span.text) || FILE_EXTENSION.test(span.text) || !tops.has(span.text.split(/[.[]/)[0])) continue;
    checked++;
    const found = kinds.map((kind) => resolve(schemas.get(kind)!, span.text));
    if (found.includes("accepted")) continue;
    if (!found.includes("refused")) problems.push(`\`${span.text}\` is not a key of ${kinds.join(" or ")}`);
    else if (!SAYS_REFUSED.test(span.context))
      problems.push(`\`${span.text}\` is refused by the schema, but the text does not say so: ${span.context.trim().slice(0, 200)}`);
  }
  return { checked, problems };
}
