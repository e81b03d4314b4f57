// Generates each values kind's validator (ajv's standalone structural check
// plus zod's value build and named refinements) from the zod schemas. What it
// cannot translate exactly stops it, so a validator never accepts what zod refuses.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { CHECK_ONLY, writeGenerated } from "./write-generated.ts";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import ts from "typescript";
import { z } from "zod";
import { judgedAlways, namedCheck, namedTransform } from "../src/values/values.ts";
import { valuesKinds } from "../src/systems/registry.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const GENERATED = join(ROOT, "src", "systems", "validators.ts");
/** The name of a kind's generated file in its folder. */
const KIND_FILE = "generated-validator.ts";
const isGenerated = (file: string) => file === GENERATED || basename(file) === KIND_FILE;
/** Where the named functions of the schemas are looked up (their exports). */
const SOURCES = ["src/core", "src/parse", "src/values", "src/k8s", "src/systems"];

type Node = z.core.$ZodType;
// biome-ignore lint/suspicious/noExplicitAny: zod's definition records differ per node type; each case reads the fields it names
type Def = Record<string, any>;

/** Checks the JSON Schema carries, which the structural check enforces (per kind of node). */
const STRUCTURAL_CHECKS: Record<string, ReadonlySet<string>> = {
  string: new Set(["min_length", "max_length", "length_equals", "string_format"]),
  number: new Set(["greater_than", "less_than", "number_format"]),
  array: new Set(["min_length", "max_length", "length_equals"]),
};
/** String formats whose JSON Schema is a `pattern` (ajv checks no `format`). */
const PATTERN_FORMATS = new Set(["regex", "starts_with"]);
const LEAVES = new Set(["string", "number", "boolean", "literal", "enum", "unknown"]);
/** JSON Schema keywords that only annotate: left out of the compiled checks. */
const ANNOTATIONS = new Set(["$schema", "title", "description", "default", "examples", "format", "deprecated", "readOnly", "writeOnly"]);
const SUBSCHEMA = new Set(["items", "additionalProperties", "propertyNames", "not", "contains", "if", "then", "else", "additionalItems"]);
const SUBSCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** The JSON Schema of what a person writes, without annotations; one document per kind keeps ajv's code smaller. */
function structure(schema: Node): object {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw", target: "draft-07" });
  return withoutAnnotations(json) as object;
}

function withoutAnnotations(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SUBSCHEMA.has(key)) out[key] = withoutAnnotations(value);
    else if (SUBSCHEMA_LISTS.has(key)) out[key] = (value as unknown[]).map(withoutAnnotations);
    else if (SUBSCHEMA_MAPS.has(key)) out[key] = Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, withoutAnnotations(sub)]));
    else out[key] = value;
  }
  return out;
}

/** ajv's code with each error object reduced to `{}`: zod words every refusal, so the validators only need a yes or no, and the details were dead weight. */
function withoutErrorDetails(code: string): string {
  const file = ts.createSourceFile("ajv.js", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const named = (node: ts.ObjectLiteralExpression, name: string) =>
    node.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === name);
  const spans: [number, number][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node) && named(node, "instancePath") && named(node, "keyword")) spans.push([node.getStart(file), node.end]);
    else ts.forEachChild(node, visit);
  };
  visit(file);
  let out = "";
  let last = 0;
  for (const [start, end] of spans) {
    out += `${code.slice(last, start)}{}`;
    last = end;
  }
  out += code.slice(last);
  // Nothing is left that reads an error's details (a call's context of
  // the data's path is not an error).
  if (/instancePath:(?![^{}]*parentData:)|\.(instancePath|schemaPath|keyword|params)\b/.test(out)) throw new Error("ajv's code uses an error's details");
  return out;
}

/** Every exported function of the modules under SOURCES, with where to import it from. */
async function exportedFunctions(): Promise<Map<Function, { file: string; name: string }>> {
  const found = new Map<Function, { file: string; name: string }>();
  const files = SOURCES.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" }).map((f) => join(ROOT, dir, f)))
    .filter((f) => f.endsWith(".ts") && !isGenerated(f))
    .sort();
  for (const file of files) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === "function" && !found.has(value)) found.set(value, { file, name });
    }
  }
  return found;
}

/** `fn(arg)`, or `arg` where the build is the identity (""). */
function call(fn: string, arg: string): string {
  return fn ? `${fn}(${arg})` : arg;
}

class Generator {
  private readonly names = new Map<Node, string>();
  private readonly functions: string[] = [];
  private readonly bodies = new Map<string, string>();
  private readonly constants = new Map<string, string>();
  /** Shared by the kinds' generators: one import line per function. */
  private readonly imports: Map<Function, string>;
  /** Structural checks to compile: export name -> the schema whose input it checks. */
  readonly structures = new Map<string, Node>();
  private readonly structureOf = new Map<Node, string>();

  constructor(
    private readonly exported: Map<Function, { file: string; name: string }>,
    imports = new Map<Function, string>(),
  ) {
    this.imports = imports;
  }

  /** The function building `node`'s value from its input, or "" for the input itself. */
  build(node: Node, path: string): string {
    const known = this.names.get(node);
    if (known !== undefined) return known;
    const def = node._zod.def as Def;
    const body = [...this.parse(node, def, path), ...this.checks(def, path)];
    const name = this.function(body);
    this.names.set(node, name);
    return name;
  }

  /** A function of `body`, shared by the nodes that build alike; "" for the identity. */
  private function(body: string[]): string {
    if (body.length === 0) return "";
    const only = body.length === 1 ? /^v = (\w+)\(v\);$/.exec(body[0]) : null;
    if (only) return only[1];
    const text = [...body, "return v;"].join("\n  ");
    let name = this.bodies.get(text);
    if (!name) {
      this.bodies.set(text, (name = `b${this.bodies.size}`));
      this.functions.push(`function ${name}(v) {\n  ${text}\n}`);
    }
    return name;
  }

  /** Statements that turn the input `v` into the node's parsed value `v`, before its checks. */
  private parse(node: Node, def: Def, path: string): string[] {
    if (def.coerce) throw new Error(`${path}: a coercing schema is not translated`);
    // Their parse returns early (absent, default): a check of their own would be skipped.
    if ((def.type === "optional" || def.type === "default") && def.checks?.length) throw new Error(`${path}: a check on ${def.type} is not translated`);
    if (LEAVES.has(def.type)) return [];
    switch (def.type) {
      case "never":
        return ["giveUp();"];
      case "optional": {
        const inner = def.innerType as Node;
        const build = this.build(inner, path);
        if (inner._zod.optin === "defaulted") {
          // zod runs a defaulted inner for absence, and drops its failure.
          return [`if (v === undefined) { const r = attempt(${build || "same"}, undefined); return gaveUp(r) ? undefined : r; }`, `v = ${call(build, "v")};`];
        }
        return build ? [`if (v === undefined) return undefined;`, `v = ${build}(v);`] : [];
      }
      case "default": {
        const fallback = this.constant(def.defaultValue, path);
        const build = this.build(def.innerType, path);
        return [`if (v === undefined) return ${fallback};`, ...(build ? [`v = ${build}(v);`, `if (v === undefined) v = ${fallback};`] : [])];
      }
      case "pipe": {
        const [first, then] = [this.build(def.in, path), this.build(def.out, path)];
        return first || then ? [`v = ${call(then, call(first, "v"))};`] : [];
      }
      case "transform": {
        const transform = namedTransform(node);
        if (!transform) throw new Error(`${path}: a transform that is not a named function (use transformBy)`);
        return [`v = ${this.named(transform, path)}(v, sink);`];
      }
      case "array":
        return [
          `const out = new Array(v.length);`,
          `for (let i = 0; i < v.length; i++) out[i] = ${call(this.build(def.element, `${path}[]`), "v[i]")};`,
          "v = out;",
        ];
      case "record":
        return this.record(def, path);
      case "object":
        return this.object(def, path);
      case "union":
        return this.union(def, path);
      default:
        throw new Error(`${path}: zod type ${def.type} is not translated`);
    }
  }

  private object(def: Def, path: string): string[] {
    const catchall = def.catchall as Node | undefined;
    if (catchall && (catchall._zod.def as Def).type !== "never") throw new Error(`${path}: an object with a catchall is not translated`);
    if (Object.getOwnPropertySymbols(def.shape).length > 0) throw new Error(`${path}: symbol keys are not translated`);
    const lines = ["const out = {};"];
    for (const [key, child] of Object.entries(def.shape as Record<string, Node>)) {
      if (key === "__proto__") throw new Error(`${path}: a key __proto__ is not translated`);
      const k = JSON.stringify(key);
      const build = this.build(child, `${path}.${key}`);
      // As zod's handlePropertyResult: a present key keeps what its schema
      // made of it; an absent one is refused, left out, or filled in.
      const { optin, optout } = child._zod;
      const absent =
        optin === undefined
          ? "giveUp();"
          : optin === "optional" && optout === "optional"
            ? ""
            : optout === "optional"
              ? `{ const r = attempt(${build || "same"}, undefined); if (!gaveUp(r) && r !== undefined) out[${k}] = r; }`
              : optin === "defaulted"
                ? `out[${k}] = ${call(build, "undefined")};`
                : `{ const r = ${call(build, "undefined")}; if (r !== undefined) out[${k}] = r; }`;
      lines.push(`if (${k} in v) out[${k}] = ${call(build, `v[${k}]`)};${absent ? ` else ${absent}` : ""}`);
    }
    lines.push("v = out;");
    return lines;
  }

  private record(def: Def, path: string): string[] {
    const keyType = def.keyType as Node;
    const keyDef = keyType._zod.def as Def;
    if (keyDef.type !== "string" || keyType._zod.values || def.mode === "loose") throw new Error(`${path}: only records with string keys are translated`);
    const key = this.build(keyType, `${path}{key}`);
    const value = this.build(def.valueType, `${path}{}`);
    return [
      "const out = {};",
      // zod leaves a __proto__ key out of a record, without a word.
      key
        ? `for (const key of recordKeys(v)) { if (key === "__proto__") continue; const k = ${key}(key); if (k === "__proto__") continue; out[k] = ${call(value, "v[key]")}; }`
        : `for (const key of recordKeys(v)) { if (key !== "__proto__") out[key] = ${call(value, "v[key]")}; }`,
      "v = out;",
    ];
  }

  /** zod's pick: the first member that parses cleanly, or the one a discriminator names. */
  private union(def: Def, path: string): string[] {
    const options = def.options as Node[];
    if (def.discriminator !== undefined) return this.discriminated(def, options, path);
    if (def.inclusive === false) throw new Error(`${path}: an exclusive union is not translated`);
    const lines = options.map((option, index) => {
      const fits = this.structural(option);
      const build = this.build(option, `${path}|${index}`);
      return build ? `  if (${fits}(v)) { const r = attempt(${build}, v); if (!gaveUp(r)) { v = r; break member; } }` : `  if (${fits}(v)) break member;`;
    });
    return ["member: {", ...lines, "  giveUp();", "}"];
  }

  private discriminated(def: Def, options: Node[], path: string): string[] {
    if (def.unionFallback) throw new Error(`${path}: a discriminated union with a fallback is not translated`);
    const key = JSON.stringify(def.discriminator);
    const lines = options.map((option, index) => {
      const tags = [...((option._zod.propValues?.[def.discriminator] as Set<unknown> | undefined) ?? [])];
      if (tags.length === 0 || tags.some((tag) => typeof tag !== "string"))
        throw new Error(`${path}|${index}: a discriminator that is not a string literal is not translated`);
      const fits = this.structural(option);
      const build = this.build(option, `${path}|${index}`);
      return `  if (${tags.map((tag) => `tag === ${JSON.stringify(tag)}`).join(" || ")}) { if (!${fits}(v)) giveUp(); ${build ? `v = ${build}(v); ` : ""}break member; }`;
    });
    return ["member: {", `  const tag = v[${key}];`, ...lines, "  giveUp();", "}"];
  }

  /** Statements for the node's own checks: structural ones were enforced by ajv, the rest are named functions. */
  private checks(def: Def, path: string): string[] {
    const lines: string[] = [];
    for (const check of (def.checks ?? []) as z.core.$ZodCheck[]) {
      const checkDef = check._zod.def as Def;
      if (checkDef.check !== "custom") {
        if (!STRUCTURAL_CHECKS[def.type]?.has(checkDef.check)) throw new Error(`${path}: check ${checkDef.check} on ${def.type} is not translated`);
        if (checkDef.check === "string_format" && !PATTERN_FORMATS.has(checkDef.format))
          throw new Error(`${path}: string format ${checkDef.format} is not translated`);
        if (checkDef.pattern && (checkDef.pattern as RegExp).flags !== "")
          throw new Error(`${path}: a pattern with flags (${String(checkDef.pattern)}) is not translated`);
        continue;
      }
      // judgedAlways runs a check on a value that did not parse too; a validator only ever reaches it on one that did.
      if ((checkDef.when && checkDef.when !== judgedAlways) || checkDef.abort) throw new Error(`${path}: a refinement with when or abort is not translated`);
      if (typeof checkDef.fn === "function") {
        // `.refine(predicate, ...)`: zod refuses a falsy answer.
        lines.push(`if (!${this.named(checkDef.fn, path)}(v)) giveUp();`);
        continue;
      }
      const named = namedCheck(check);
      if (!named) throw new Error(`${path}: a refinement that is not a named function (use refineBy)`);
      const args = named.args.map((arg) => this.json(arg, path));
      lines.push(`${this.named(named.fn, path)}(${["v", "sink", ...args].join(", ")});`);
    }
    return lines;
  }

  /** The name of an ajv check of `node`'s input. */
  private structural(node: Node): string {
    const known = this.structureOf.get(node);
    if (known) return known;
    const name = `s${this.structures.size}`;
    this.structureOf.set(node, name);
    this.structures.set(name, node);
    return name;
  }

  /** Adds a kind: its structural check and its build; the expression of its validator. */
  kind(kind: string, schema: Node): string {
    const fits = this.structural(schema);
    const build = this.build(schema, kind);
    return `validator(${fits}, ${build || "same"})`;
  }

  private named(fn: Function, path: string): string {
    const known = this.imports.get(fn);
    if (known) return known;
    const where = this.exported.get(fn);
    if (!where) throw new Error(`${path}: function ${fn.name || "(anonymous)"} is not exported from a module under ${SOURCES.join(" or ")}`);
    const taken = new Set(this.imports.values());
    let local = where.name;
    for (let i = 2; taken.has(local); i++) local = `${where.name}_${i}`;
    this.imports.set(fn, local);
    return local;
  }

  /** A default as an expression: a literal, or a copy of a shared constant (zod hands out a shallow copy). */
  private constant(value: unknown, path: string): string {
    const text = this.json(value, path);
    if (value === null || typeof value !== "object") return text;
    let name = this.constants.get(text);
    if (!name) this.constants.set(text, (name = `d${this.constants.size}`));
    return `copyDefault(${name})`;
  }

  private json(value: unknown, path: string): string {
    const text = JSON.stringify(value);
    if (text === undefined || !isDeepStrictEqual(JSON.parse(text), value)) throw new Error(`${path}: ${String(value)} is not a JSON value`);
    return text;
  }

  importLines(): string[] {
    const byFile = new Map<string, string[]>();
    for (const [fn, local] of this.imports) {
      const { file, name } = this.exported.get(fn)!;
      const spec = name === local ? name : `${name} as ${local}`;
      byFile.set(file, [...(byFile.get(file) ?? []), spec]);
    }
    return [...byFile.entries()]
      .map(([file, specs]) => [`./${relative(dirname(GENERATED), file).split("\\").join("/")}`.replace(/^\.\/\.\.\//, "../"), specs.sort()] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([file, specs]) => `import { ${specs.join(", ")} } from "${file}";`);
  }

  code(): string {
    return [...[...this.constants].map(([text, name]) => `const ${name} = ${text};`), ...this.functions].join("\n");
  }
}

/** ajv, set to compile the structural checks. */
function newAjv(): Ajv {
  return new Ajv({
    code: { source: true, esm: true, lines: false },
    strict: true,
    strictNumbers: true,
    allErrors: false,
    messages: false,
    // String lengths in UTF-16 units and patterns without the u flag, as zod counts and matches.
    unicode: false,
    unicodeRegExp: false,
    validateFormats: false,
    logger: {
      log: () => {},
      warn: (...args: unknown[]) => {
        if (!String(args[0]).startsWith("DEPRECATED: option unicode")) throw new Error(`ajv: ${args.join(" ")}`);
      },
      error: (...args: unknown[]) => {
        throw new Error(`ajv: ${args.join(" ")}`);
      },
    },
  });
}

/** The statements of one kind's build: its structural checks, its value builds and the validator they make. */
function kindCode(generator: Generator, kind: string, schema: Node): string {
  const made = generator.kind(kind, schema);
  const ajv = newAjv();
  for (const [name, structural] of generator.structures) ajv.addSchema(structure(structural), name);
  const exportsOf = Object.fromEntries([...generator.structures.keys()].map((name) => [name, name]));
  const structural = withoutErrorDetails(standaloneCode(ajv, exportsOf));
  if (/\brequire\(|^import /m.test(structural)) throw new Error("the ajv code needs a runtime module: a keyword the generator does not expect");
  return [
    "// The structural checks (ajv standalone code of the JSON Schemas zod exports).",
    structural.replace(/^"use strict";/, "").replace(/export const (s\d+) = /g, "const $1 = "),
    "",
    "// The builds of the values zod returns.",
    generator.code(),
    "",
    `return ${made};`,
  ].join("\n");
}

/** The file of a kind's build, in the folder of its head: src/systems/compass-runner/generated-validator.ts for CompassRunner. */
export function kindFile(kind: string): string {
  const folder = join(
    dirname(GENERATED),
    kind.replace(/[A-Z]/g, (c, i) => (i ? "-" : "") + c.toLowerCase()),
  );
  if (!existsSync(join(folder, "kind.ts"))) throw new Error(`${kind}: no folder ${relative(ROOT, folder)} with its kind.ts`);
  return join(folder, KIND_FILE);
}

/**
 * The generated files by path: one self-contained module per kind, loaded only
 * by a run of that kind, and validators.ts, which hands them their functions.
 */
export async function generateValidators(): Promise<Map<string, string>> {
  const exported = await exportedFunctions();
  const imports = new Map<Function, string>();
  const kinds = valuesKinds().map((profile) => {
    if (!/^[A-Z][A-Za-z]*$/.test(profile.kind)) throw new Error(`${profile.kind}: a kind that is not a name`);
    return { kind: profile.kind, code: kindCode(new Generator(exported, imports), profile.kind, profile.schema()) };
  });
  // Every generator has added its imports by now: the lines list them all.
  const importLines = new Generator(exported, imports).importLines();
  const handed = ["attempt", "copyDefault", "gaveUp", "giveUp", "recordKeys", "same", "sink", "validator", ...[...imports.values()].sort()];
  /** The handed names a kind's code calls. */
  const callsOf = (code: string) => handed.filter((name) => new RegExp(`\\b${name}\\b`).test(code));

  const indent = (text: string) =>
    text
      .split("\n")
      .map((line) => (line ? `  ${line}` : line))
      .join("\n");
  const header = [
    "// Generated by scripts/gen-validators.ts from the values schemas: do not edit.",
    "// Every build regenerates it; scripts/check-generated.mjs fails while it is stale.",
    "// @ts-nocheck",
  ];
  const files = new Map<string, string>();
  files.set(
    GENERATED,
    [
      ...header,
      `import type { FastValidator } from "../values/values.ts";`,
      `import { attempt, copyDefault, gaveUp, giveUp, recordKeys, same, sink, validator } from "../values/validator-runtime.ts";`,
      ...importLines,
      ...kinds.map(({ kind }) => `import { build${kind} } from "./${relative(dirname(GENERATED), kindFile(kind)).split("\\").join("/")}";`),
      "",
      "/**",
      " * Each kind's build, by kind, handed the functions it calls (the shared",
      " * runtime and its schema's named functions) and no others: a name is read",
      " * when its kind is first built, so a run loads only its own kind's part of",
      " * the build (src/seams.ts, KIND_HEADS).",
      " */",
      "const BUILDS: Record<string, () => FastValidator> = {",
      ...kinds.map(({ kind, code }) => `  ${JSON.stringify(kind)}: () => build${kind}({ ${callsOf(code).join(", ")} }),`),
      "};",
      "",
      "const validators: Record<string, FastValidator> = {};",
      "",
      "/** The generated validator of a values kind, built on first use: a process pays only for the kinds it validates. */",
      "export function validatorOf(kind: string): FastValidator | undefined {",
      "  if (!Object.hasOwn(BUILDS, kind)) return undefined;",
      "  validators[kind] ??= BUILDS[kind]();",
      "  return validators[kind];",
      "}",
      "",
    ].join("\n"),
  );
  for (const { kind, code } of kinds) {
    files.set(
      kindFile(kind),
      [
        ...header,
        `import type { FastValidator } from "../../values/values.ts";`,
        "",
        `/** The validator of ${kind}; \`calls\` are the functions it calls (src/systems/validators.ts hands them over). */`,
        `export function build${kind}(calls): FastValidator {`,
        `  const { ${callsOf(code).join(", ")} } = calls;`,
        indent(code),
        "}",
        "",
      ].join("\n"),
    );
  }
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await generateValidators();
  for (const [file, text] of files) writeGenerated(file, text, ROOT);
  // A kind's file from a kind that is gone.
  for (const folder of readdirSync(dirname(GENERATED), { withFileTypes: true })) {
    const file = join(dirname(GENERATED), folder.name, KIND_FILE);
    if (folder.isDirectory() && existsSync(file) && !files.has(file)) {
      if (CHECK_ONLY) {
        console.error(`stale: ${relative(ROOT, file)} (its kind is gone)`);
        process.exitCode = 1;
        continue;
      }
      rmSync(file);
      console.log(`removed ${relative(ROOT, file)}`);
    }
  }
}
