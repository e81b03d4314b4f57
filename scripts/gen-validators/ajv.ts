// The structural half of a validator: the JSON Schema zod exports, compiled
// by ajv into standalone code that answers yes or no.
import Ajv from "ajv";
import ts from "typescript";
import { z } from "zod";
import type { Node } from "./files.ts";

/** JSON Schema keywords that only annotate: left out of the compiled checks. */
const ANNOTATIONS = new Set(["$schema", "title", "description", "default", "examples", "format", "deprecated", "readOnly", "writeOnly"]);
const SUBSCHEMA = new Set(["items", "additionalProperties", "propertyNames", "not", "contains", "if", "then", "else", "additionalItems"]);
const SUBSCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** The JSON Schema of what a person writes, without annotations; one document per kind keeps ajv's code smaller. */
export function structure(schema: Node): object {
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
export function withoutErrorDetails(code: string): string {
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

/** ajv, set to compile the structural checks. */
export function newAjv(): Ajv {
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
