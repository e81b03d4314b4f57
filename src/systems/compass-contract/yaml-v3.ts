// A YAML document decoded into Go types as gopkg.in/yaml.v3 decodes it
// (decode.go of github.com/go-yaml/yaml, v3), over the `yaml` package's
// parse: aliases followed, with yaml.v3's own bound on alias expansion and
// its refusal of an alias inside itself; merge keys (`<<`) with yaml.v3's
// precedence; KnownFields(true); duplicate keys; scalars resolved by its
// rules (a string field takes any scalar's text, a duration a string only).
import { isAlias, isMap, isScalar, isSeq, type Alias, type Document, type LineCounter, type Node, type Scalar, visit } from "yaml";
import { goDurationSeconds } from "./runner-clusters.ts";

export type Target =
  | { kind: "string" }
  | { kind: "duration" }
  | { kind: "struct"; name: string; fields: Readonly<Record<string, Target>> }
  | { kind: "slice"; name: string; elem: Target };

/** A decode that yaml.v3 stops at once (its failf): the file is refused with this alone. */
export class V3Failure extends Error {}

export interface V3Error {
  line: number;
  message: string;
  /** The index of the list item being decoded, for the caller's own wording. */
  item?: number;
  /** The unknown or repeated field, when that is the error. */
  field?: string;
}

const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLS = new Set(["true", "True", "TRUE", "false", "False", "FALSE"]);
const SPECIAL_FLOATS = /^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt(s, 0, 64) after yaml.v3 drops underscores: decimal, 0x, 0o, 0b, and a leading 0 for octal. */
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?$/;

/** The tag yaml.v3 gives a scalar: an explicit one, `!!str` for a quoted or block one, else resolved from its text. */
export function v3Tag(scalar: Scalar): string {
  // `!` alone is no tag to yaml.v3: the text is resolved as if plain.
  if (scalar.tag && scalar.tag !== "!") return scalar.tag.replace(/^tag:yaml\.org,2002:/, "!!");
  if (scalar.type !== undefined && scalar.type !== "PLAIN") return "!!str";
  const text = String(scalar.source ?? scalar.value ?? "");
  if (text === "<<") return "!!merge";
  if (NULLS.has(text)) return "!!null";
  if (BOOLS.has(text)) return "!!bool";
  if (SPECIAL_FLOATS.test(text)) return "!!float";
  const plain = text.replaceAll("_", "");
  if (/^[-+]?[0-9.]/.test(text)) {
    if (TIMESTAMP.test(text)) return "!!timestamp";
    if (GO_INT.test(plain)) return "!!int";
    if (YAML_FLOAT.test(plain)) return "!!float";
  }
  return "!!str";
}

/** Above these, yaml.v3 judges the share of decodes that came from aliases (allowedAliasRatio). */
const RATIO_LOW = 400_000;
const RATIO_HIGH = 4_000_000;

function allowedAliasRatio(decodes: number): number {
  if (decodes <= RATIO_LOW) return 0.99;
  if (decodes >= RATIO_HIGH) return 0.1;
  return 0.99 - (0.89 * (decodes - RATIO_LOW)) / (RATIO_HIGH - RATIO_LOW);
}

const STRING: Target = { kind: "string" };
const MAX_MERGE_DEPTH = 1000;

export class V3Decoder {
  readonly errors: V3Error[] = [];
  #decodes = 0;
  #aliasDecodes = 0;
  #aliasDepth = 0;
  readonly #active = new Set<Alias>();
  readonly #anchors = new Map<Alias, Node>();
  #merged: Set<string> | undefined;
  #mergeDepth = 0;
  item: number | undefined;

  /** Anchors found in one pass: an alias names the last node of its anchor before it, as yaml.v3 reads them. */
  constructor(
    doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {
    const latest = new Map<string, Node>();
    visit(doc, {
      Node: (_, node) => {
        if (isAlias(node)) {
          const target = latest.get(node.source);
          if (!target) throw new V3Failure(`${this.at(node)}unknown anchor '${node.source}' referenced`);
          this.#anchors.set(node, target);
        } else if (node.anchor) latest.set(node.anchor, node);
      },
    });
  }

  at(node: Node | null | undefined): string {
    const line = this.line(node);
    return line ? `line ${line}: ` : "";
  }

  line(node: Node | null | undefined): number {
    return node?.range ? this.lines.linePos(node.range[0]).line : 0;
  }

  terror(node: Node, tag: string, into: string, field?: string): void {
    const value = isScalar(node) ? String(node.source ?? node.value) : "";
    const shown = isScalar(node) ? ` \`${value.length > 10 ? `${value.slice(0, 7)}...` : value}\`` : "";
    this.errors.push({ line: this.line(node), message: `cannot unmarshal ${tag}${shown} into ${into}`, item: this.item, field });
  }

  /** One decode, as yaml.v3 counts them, refusing a document that is mostly alias expansion. */
  private count(): void {
    this.#decodes++;
    if (this.#aliasDepth > 0) this.#aliasDecodes++;
    if (this.#aliasDecodes > 100 && this.#decodes > 1000 && this.#aliasDecodes / this.#decodes > allowedAliasRatio(this.#decodes))
      throw new V3Failure("document contains excessive aliasing");
  }

  /** Decodes `node` into `target`, writing through `set`; false when nothing was set. */
  unmarshal(node: Node | null, target: Target, set: (value: unknown) => void, field?: string): boolean {
    this.count();
    if (node === null) return target.kind === "slice" ? (set(undefined), true) : false;
    if (isAlias(node)) return this.viaAlias(node, () => this.unmarshal(this.#anchors.get(node) ?? null, target, set, field));
    if (isScalar(node)) return this.scalar(node, target, set, field);
    if (isMap(node)) return this.mapping(node, target, set, field);
    if (isSeq(node)) return this.sequence(node, target, set, field);
    return false;
  }

  private viaAlias<T>(node: Alias, decode: () => T): T {
    if (this.#active.has(node)) throw new V3Failure(`anchor '${node.source}' value contains itself`);
    this.#active.add(node);
    this.#aliasDepth++;
    try {
      return decode();
    } finally {
      this.#aliasDepth--;
      this.#active.delete(node);
    }
  }

  private scalar(node: Scalar, target: Target, set: (value: unknown) => void, field?: string): boolean {
    const tag = v3Tag(node);
    // A null sets nothing but a slice, which it empties.
    if (tag === "!!null") return target.kind === "slice" ? (set(undefined), true) : false;
    const text = String(node.source ?? node.value ?? "");
    if (target.kind === "string") {
      set(text);
      return true;
    }
    if (target.kind === "duration" && tag === "!!str") {
      const seconds = goDurationSeconds(text);
      if (seconds !== undefined) {
        set(seconds);
        return true;
      }
    }
    this.terror(node, tag, target.kind === "duration" ? "time.Duration" : target.name, field);
    return false;
  }

  private sequence(node: Node & { items: unknown[] }, target: Target, set: (value: unknown) => void, field?: string): boolean {
    if (target.kind !== "slice") {
      this.terror(node, "!!seq", target.kind === "struct" ? target.name : target.kind === "duration" ? "time.Duration" : "string", field);
      return false;
    }
    const out: unknown[] = [];
    const outer = this.item;
    node.items.forEach((item, index) => {
      this.item = index;
      const box: { value?: unknown } = {};
      if (this.unmarshal(item as Node, target.elem, (v) => (box.value = v))) out.push(box.value);
    });
    this.item = outer;
    set(out);
    return true;
  }

  /** Keys compared as yaml.v3 does: same kind and same text (an alias by its name). */
  private duplicates(node: MapNode): boolean {
    const seen = new Map<string, Node>();
    const before = this.errors.length;
    for (const { key } of node.items) {
      const k = key as Node;
      const id = isScalar(k) ? `s:${k.source ?? k.value}` : isAlias(k) ? `a:${k.source}` : isMap(k) ? "m:" : "q:";
      const first = seen.get(id);
      if (first) {
        const shown = isScalar(k) ? String(k.source ?? k.value) : isAlias(k) ? k.source : "";
        this.errors.push({ line: this.line(k), message: `mapping key ${JSON.stringify(shown)} already defined at line ${this.line(first)}`, item: this.item });
      } else seen.set(id, k);
    }
    return this.errors.length > before;
  }

  private mapping(node: MapNode, target: Target, set: (value: unknown) => void, field?: string): boolean {
    if (this.duplicates(node)) return false;
    if (target.kind !== "struct") {
      this.terror(node, "!!map", target.kind === "slice" ? `[]${target.name}` : target.kind === "duration" ? "time.Duration" : "string", field);
      return false;
    }
    const out: Record<string, unknown> = {};
    set(out);
    this.struct(node, target, out);
    return true;
  }

  /** mappingStruct: own keys first, then the merge, whose keys never override. */
  private struct(node: MapNode, target: StructTarget, out: Record<string, unknown>): void {
    const merged = this.#merged;
    this.#merged = undefined;
    let mergeNode: Node | null | undefined;
    const done = new Set<string>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      if (isScalar(key) && v3Tag(key) === "!!merge") {
        mergeNode = pair.value as Node | null;
        continue;
      }
      let name: string | undefined;
      if (!this.unmarshal(key, STRING, (v) => (name = v as string)) || name === undefined) continue;
      if (merged) {
        if (merged.has(`!!str:${name}`)) continue;
        merged.add(`!!str:${name}`);
      }
      const fieldTarget = Object.hasOwn(target.fields, name) ? target.fields[name] : undefined;
      if (!fieldTarget) {
        this.errors.push({ line: this.line(key), message: `field ${name} not found in type ${target.name}`, item: this.item, field: name });
        continue;
      }
      if (done.has(name)) {
        this.errors.push({ line: this.line(key), message: `field ${name} already set in type ${target.name}`, item: this.item, field: name });
        continue;
      }
      done.add(name);
      const fieldName = name;
      this.unmarshal(pair.value as Node | null, fieldTarget, (v) => (out[fieldName] = v), fieldName);
    }
    this.#merged = merged;
    if (mergeNode !== undefined) this.merge(node, mergeNode, target, out);
  }

  private merge(parent: MapNode, merge: Node | null, target: StructTarget, out: Record<string, unknown>): void {
    const saved = this.#merged;
    if (!saved) {
      this.#merged = new Set();
      for (const { key } of parent.items) {
        this.count();
        const k = isAlias(key) ? this.#anchors.get(key) : (key as Node | null);
        if (isScalar(k)) this.#merged.add(`${v3Tag(k)}:${String(k.source ?? k.value)}`);
      }
    }
    if (isSeq(merge)) for (const item of merge.items) this.mergeOne(item as Node | null, target, out);
    else this.mergeOne(merge, target, out);
    this.#merged = saved;
  }

  /** One merged map, decoded into the same struct. */
  private mergeOne(node: Node | null, target: StructTarget, out: Record<string, unknown>): void {
    const want = () => new V3Failure("map merge requires map or sequence of maps as the value");
    this.count();
    // Each merge level is a stack frame here, as in yaml.v3; a chain this deep is no configuration.
    if (this.#mergeDepth >= MAX_MERGE_DEPTH) throw new V3Failure(`merge keys chained deeper than ${MAX_MERGE_DEPTH} levels; rigging reads no further`);
    this.#mergeDepth++;
    try {
      this.mergeInto(node, target, out, want);
    } finally {
      this.#mergeDepth--;
    }
  }

  private mergeInto(node: Node | null, target: StructTarget, out: Record<string, unknown>, want: () => V3Failure): void {
    if (isAlias(node)) {
      const resolved = this.#anchors.get(node);
      if (!isMap(resolved)) throw want();
      this.viaAlias(node, () => this.mergeMap(resolved as MapNode, target, out));
    } else if (isMap(node)) this.mergeMap(node as MapNode, target, out);
    else throw want();
  }

  private mergeMap(node: MapNode, target: StructTarget, out: Record<string, unknown>): void {
    this.count();
    if (!this.duplicates(node)) this.struct(node, target, out);
  }
}

type MapNode = Node & { items: { key: unknown; value: unknown }[] };
type StructTarget = Extract<Target, { kind: "struct" }>;
