// The value half of a validator: zod's parse of each node (defaults,
// transforms, unions, named refinements) as plain functions over the input.
import { dirname, relative } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { z } from "zod";
import { judgedAlways, namedCheck, namedTransform } from "../../src/values/values.ts";
import { type Def, GENERATED, type Node, SOURCES } from "./files.ts";

/** Checks the JSON Schema carries, which the structural check enforces (per kind of node). */
const STRUCTURAL_CHECKS: Record<string, ReadonlySet<string>> = {
  string: new Set(["min_length", "max_length", "length_equals", "string_format"]),
  number: new Set(["greater_than", "less_than", "number_format"]),
  array: new Set(["min_length", "max_length", "length_equals"]),
};
/** String formats whose JSON Schema is a `pattern` (ajv checks no `format`). */
const PATTERN_FORMATS = new Set(["regex", "starts_with"]);
const LEAVES = new Set(["string", "number", "boolean", "literal", "enum", "unknown"]);

/** `fn(arg)`, or `arg` where the build is the identity (""). */
function call(fn: string, arg: string): string {
  return fn ? `${fn}(${arg})` : arg;
}

export class Generator {
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
