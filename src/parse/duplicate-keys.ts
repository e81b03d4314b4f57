// Duplicate keys in any spelling (`1` and `"1"`, and under YAML 1.1 `yes` and
// `true`), since a mapping must mean the same to rigging and to kubectl.
import { isScalar, Scalar, Schema, visit, type Document, type Node, type ScalarTag } from "yaml";

/** The two keys, in document order, and whether only YAML 1.1 makes them one. */
export interface DuplicateKey {
  first: Node;
  second: Node;
  yaml11: boolean;
}

/** go-yaml v2's plain scalars: YAML 1.1 without timestamps and sexagesimal numbers (src/check/kube-yaml.ts). */
let yaml11Tags: ScalarTag[] | undefined;
// Built on first use: a render that meets no such key never loads the yaml package.
const YAML11_TAGS = (): ScalarTag[] =>
  (yaml11Tags ??= (new Schema({ schema: "yaml-1.1" }).tags as ScalarTag[]).filter(
    (tag) => tag.default && tag.test && tag.format !== "TIME" && tag.tag !== "tag:yaml.org,2002:timestamp" && tag.tag !== "tag:yaml.org,2002:merge",
  ));

/** A plain scalar longer than this is no number or boolean word in any schema. */
const SHORT = 64;

/** What every YAML 1.1 null, boolean and number starts with, or is: a key unlike these is its own text. */
export const MAY_RESOLVE = /^(?:[-+.0-9~]|(?:[yYnN]|[Yy]es|YES|[Nn]o|NO|[Tt]rue|TRUE|[Ff]alse|FALSE|[Oo]n|ON|[Oo]ff|OFF|[Nn]ull|NULL)?$)/;

/** The property YAML 1.1 makes of a plain scalar `text`, where it is not `text` itself. */
export function yaml11Property(text: string): string | undefined {
  if (text.length > SHORT || !MAY_RESOLVE.test(text)) return undefined;
  for (const tag of YAML11_TAGS()) {
    if (!tag.test!.test(text)) continue;
    const value = tag.resolve(text, () => {}, {} as Parameters<ScalarTag["resolve"]>[2]);
    const resolved = value instanceof Scalar ? value.value : value;
    return typeof resolved === "number" && Number.isNaN(resolved) ? undefined : String(resolved);
  }
  return undefined;
}

/** The property a scalar key makes of the data, as the document reads it (NaN equals nothing). */
function propertyOf(key: Scalar): string | undefined {
  return typeof key.value === "number" && Number.isNaN(key.value) ? undefined : String(key.value);
}

/** The first key that repeats one before it in its mapping, in document order. */
export function firstDuplicateKey(doc: Document.Parsed, alsoYaml11: boolean): DuplicateKey | undefined {
  let found: DuplicateKey | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Map<string, Node>();
      const seen11 = new Map<string, Node>();
      for (const { key } of map.items) {
        if (!isScalar(key)) continue;
        const property = propertyOf(key);
        if (property === undefined) continue;
        const before = seen.get(property);
        if (before) {
          found = { first: before, second: key, yaml11: false };
          return visit.BREAK;
        }
        seen.set(property, key);
        if (!alsoYaml11) continue;
        const as11 = key.type === Scalar.PLAIN && typeof key.source === "string" ? (yaml11Property(key.source) ?? property) : property;
        const before11 = seen11.get(as11);
        if (before11) {
          found = { first: before11, second: key, yaml11: true };
          return visit.BREAK;
        }
        seen11.set(as11, key);
      }
      return undefined;
    },
  });
  return found;
}

const NUMBER_START = /^[-+.0-9]/;

/** Whether YAML 1.2 data has a mapping with two keys YAML 1.1 may read as one. */
export function mayRepeatAsYaml11(data: unknown): boolean {
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== "object") continue;
    const keys = Array.isArray(value) ? [] : Object.keys(value);
    if (keys.length > 1) {
      const seen = new Set<string>();
      let numbers = 0;
      for (const key of keys) {
        // Numbers YAML 1.2 read already (`010` is 10 there, 8 in YAML 1.1) cannot be told from their data.
        if (NUMBER_START.test(key) && ++numbers > 1) return true;
        const as11 = yaml11Property(key) ?? key;
        if (seen.has(as11)) return true;
        seen.add(as11);
      }
    }
    for (const child of Object.values(value)) if (child !== null && typeof child === "object") stack.push(child);
  }
  return false;
}

/** go-yaml's words for a repeated key, with the line of each. */
export function duplicateKeyMessage({ first, second }: DuplicateKey, text: string): string {
  const lineOf = (node: Node) => lineAt(text, node.range?.[0] ?? 0);
  const key = isScalar(second) ? String(second.value) : "";
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return `line ${lineOf(second)}: mapping key ${JSON.stringify(shown)} already defined at line ${lineOf(first)}`;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}
