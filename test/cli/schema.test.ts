// `rigging schema`: a standard JSON Schema 2020-12 that a strict validator
// (ajv 2020, strict mode, with ajv-formats for the standard formats)
// compiles, that accepts every file render accepts as shipped (the upstream
// values.example.json without kind, the examples, init's output) and refuses
// what render refuses for its shape.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT, runInProcess, tempFile } from "../support/cli.ts";
import { kinds } from "../../src/systems/registry.ts";

/** The formats JSON Schema 2020-12 defines (its format vocabulary). */
const STANDARD = ["date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri"];
const STANDARD_TOO = ["uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex"];

function printed(...args: string[]): object {
  const r = runInProcess(["schema", ...args]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

function strict() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const validate = strict().compile(printed());

/** Every value of `key` anywhere in a JSON document. */
function valuesOf(node: unknown, key: string): unknown[] {
  if (Array.isArray(node)) return node.flatMap((n) => valuesOf(n, key));
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([k, v]) => [...(k === key ? [v] : []), ...valuesOf(v, key)]);
}

const EXAMPLES = readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".yaml"));
const upstream = () => JSON.parse(readFileSync(join(ROOT, "values.example.json"), "utf8"));

describe("rigging schema is standard JSON Schema 2020-12", () => {
  it.each([[], ...kinds().map((k) => [k])])("compiles in ajv's strict mode, with standard formats only: schema %s", (...args) => {
    const schema = printed(...args);
    expect(() => strict().compile(schema)).not.toThrow();
    for (const format of valuesOf(schema, "format")) expect([...STANDARD, ...STANDARD_TOO]).toContain(format);
    expect(JSON.stringify(schema)).not.toContain("starts_with");
    expect((schema as { $schema: string }).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("a path that must be absolute is still held to it, by a pattern", () => {
    const data = { ...upstream(), serverCluster: { name: "local", jwksFile: "relative/jwks.json" } };
    expect(validate(data)).toBe(false);
    expect(validate.errors).toEqual(expect.arrayContaining([expect.objectContaining({ instancePath: "/serverCluster/jwksFile", keyword: "pattern" })]));
    expect(validate({ ...data, serverCluster: { name: "local", jwksFile: "/etc/compass/jwks.json" } }), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("rigging schema accepts what render accepts as shipped", () => {
  it("the upstream values.example.json, which has no kind: render reads it as a CompassRunner file", () => {
    expect(runInProcess(["render", join(ROOT, "values.example.json")]).code).toBe(0);
    expect(validate(upstream()), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(EXAMPLES)("examples/%s", (file) => {
    const data = parse(readFileSync(join(ROOT, "examples", file), "utf8"));
    expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(kinds())("rigging init %s", (kind) => {
    const text = runInProcess(["init", kind]).out;
    expect(runInProcess(["render", tempFile(text)]).code).toBe(0);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("rigging schema refuses what render refuses for its shape", () => {
  const extra = (key: string) => expect.objectContaining({ keyword: "additionalProperties", params: { additionalProperty: key } });
  it.each([
    ["an unknown key in the upstream file", { ...upstream(), sessionCapacty: 4 }, extra("sessionCapacty")],
    ["a wrong type in the upstream file", { ...upstream(), guestCpus: "two" }, expect.objectContaining({ instancePath: "/guestCpus", keyword: "type" })],
    [
      "a key of another kind",
      { ...parse(readFileSync(join(ROOT, "examples", "rootpilot-eks.yaml"), "utf8")), publicHost: "x.example.com" },
      extra("publicHost"),
    ],
    [
      "a key of another variant",
      { ...parse(readFileSync(join(ROOT, "examples", "compass-server.yaml"), "utf8")), nats: { mode: "bundled", cidr: "10.0.0.0/8" } },
      expect.objectContaining({ instancePath: "/nats" }),
    ],
    [
      "no kind and no key of the upstream shape",
      { namespace: "compass-runner" },
      expect.objectContaining({ keyword: "required", params: { missingProperty: "kind" } }),
    ],
    ["an unknown kind", { kind: "CompassRunnr" }, expect.objectContaining({ instancePath: "/kind", keyword: "enum" })],
  ])("%s", (_, data, error) => {
    expect(validate(data)).toBe(false);
    expect(validate.errors).toContainEqual(error);
    // render refuses it too (exit 1 for values, 2 for a file it cannot place).
    expect(runInProcess(["render", tempFile(JSON.stringify(data), "values.json")]).code).toBeGreaterThan(0);
  });
});
