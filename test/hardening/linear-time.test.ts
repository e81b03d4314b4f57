// Every user string is matched in linear time. Each test feeds 2 MiB of
// one repeated pattern to every rule of the catalog (through the objects
// of a real render), to every values check (through an example's values),
// to both YAML parsers and to the YAML writer. A scan that is quadratic in its input (a regex
// with ambiguous adjacent quantifiers, a search from every start to the
// end) takes minutes on 2 MiB and runs into the test timeout; a linear one
// takes milliseconds. No absolute time is asserted; the last tests compare
// the time at four doublings of the input with a linear fit.
import { readFileSync } from "node:fs";
import { load } from "js-yaml";
import { afterEach, describe, expect, it } from "vitest";
import { toYaml } from "../../src/emit/emit.ts";
import { UsageError, ValuesError } from "../../src/core/errors.ts";
import type { K8sObject } from "../../src/k8s/objects.ts";
import { splitPem } from "../../src/parse/pem.ts";
import { printable } from "../../src/core/printable.ts";
import { parseDocuments, parseDocumentsWithPositions, parseValuesFile, type SourceDocument } from "../../src/parse/source.ts";
import { validateValues } from "../../src/values/values.ts";
import { renderSource } from "../../src/pipeline.ts";
import { SYSTEMS, valuesKindOf } from "../../src/rules/systems.ts";
import { checkObjects } from "../../src/rules/catalog.ts";
import type { SystemName } from "../../src/rules/engine.ts";
import { readRunnerClusters } from "../../src/systems/compass-server/runner-clusters.ts";
import { globMatcher } from "../../src/check/glob.ts";
import { expectLinear } from "../support/linear.ts";

const SIZE = 2 * 1024 * 1024;

// The tests are long and synchronous: between two, the worker answers the
// test runner's messages (which time out after a minute of silence).
afterEach(() => new Promise((resolve) => setImmediate(resolve)));

/** `unit` repeated to 2 MiB, ending in `!` so that nothing matching to the end succeeds. */
const hostile = (unit: string) => `${unit.repeat(Math.ceil(SIZE / unit.length))}!`;

/**
 * Units chosen against the patterns of the code: the quantified classes
 * (blanks and line breaks, name, label and image characters, URL syntax),
 * and the literals a scan starts at (`authorization {`, PEM lines, secret
 * key names, token prefixes).
 */
const UNITS = ["\n", " ", "a-", "a.", "a/", "a://b:", "password: ", "authorization {", "-----BEGIN CERTIFICATE-----\n", "-----BEGIN A", "xoxa-", "ghp_"];

/** Each system's example: its first warm-up, the file that reaches most of its renderer. */
const EXAMPLES: Record<SystemName, string> = Object.fromEntries(SYSTEMS.map((s) => [s.name, s.warmUps?.[0] ?? s.valuesKinds[0].example]));

/** The objects of an example's render, and its values. */
const rendered = Object.fromEntries(
  Object.entries(EXAMPLES).map(([profile, file]) => {
    const source = parseValuesFile(readFileSync(file, "utf8"), file);
    return [profile, { objects: renderSource(source).objects, values: source.data }];
  }),
) as Record<SystemName, { objects: K8sObject[]; values: unknown }>;

/** Keys left as they are, so that every object is still recognised and every lookup by name still finds its target. */
const KEPT = new Set(["apiVersion", "kind", "name", "labels", "matchLabels", "mountPath"]);

/**
 * `value` with every string (but those of the kept keys) replaced by `text`
 * (`append`: followed by it), and with `text` after every item of a list of
 * strings. Replaced, a ConfigMap's data is only the pattern, so a scan that
 * would stop at a match of the real data reads it all; appended, an image
 * or a URL keeps its start and goes on for 2 MiB, and a flag keeps its name
 * and gets the text as its value (`--server-name <text>`).
 */
function withText(value: unknown, text: string, append: boolean, key?: string): unknown {
  if (key !== undefined && KEPT.has(key)) return value;
  if (typeof value === "string") return append ? value + text : text;
  if (Array.isArray(value)) {
    if (append && value.length > 0 && value.every((item) => typeof item === "string")) return value.flatMap((item) => [item, text]);
    return value.map((item) => withText(item, text, append));
  }
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withText(v, text, append, k)]));
}

/** A ConfigMap of the profile holding a CA bundle (which only a Runner given `serverCA.pem` renders). */
function caConfigMap(objects: readonly K8sObject[]): K8sObject {
  const { namespace, labels } = objects.find((o) => o.metadata.labels)!.metadata;
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "server-ca", namespace, labels }, data: { "ca.crt": "" } };
}

/** A source whose positions are not asked for here (the values are not parsed from text). */
function sourceOf(data: unknown): SourceDocument {
  return { file: "values.yaml", data, locate: () => ({ file: "values.yaml" }) };
}

describe.each(Object.keys(EXAMPLES) as SystemName[])("%s: every rule and every values check, on 2 MiB of one pattern", (profile) => {
  it.each(UNITS.map((unit) => [JSON.stringify(unit), unit]))("%s", (_, unit) => {
    const text = hostile(unit);
    const { objects, values } = rendered[profile];
    // The rules, as check runs them, on the rendered objects...
    for (const append of [false, true]) {
      const hostileObjects = withText([...objects, caConfigMap(objects)], text, append) as K8sObject[];
      expect(checkObjects(hostileObjects, () => profile).length).toBeGreaterThan(0);
    }
    // ...and the values checks, through the profile's schema and the inline-secret scan.
    const { kind } = values as { kind: string };
    const schema = valuesKindOf(kind)!;
    const hostileValues = { ...(withText(values, text, true) as object), kind };
    expect(() => validateValues(schema.schema(), sourceOf(hostileValues), kind)).toThrow(ValuesError);
  });
});

describe("the YAML parsers, on 2 MiB of one pattern", () => {
  /** Parses as `check` and as `render` do; a refusal must be a clear usage error. */
  function parseBothWays(text: string): void {
    for (const parse of [() => parseDocuments(text, "in.yaml"), () => parseValuesFile(text, "in.yaml")]) {
      try {
        parse();
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
      }
    }
  }

  it.each([
    // Quadratic before: the fast path's fallback test read from every `]`,
    // `{` or `,` to the end of a line of comments...
    ["] #", `x: ${hostile("] #")}`],
    ["{ #", `x: ${hostile("{ #")}`],
    [", #", `x: ${hostile(", #")}`],
    // ...and the `yaml` package made an Error (with its stack) of every
    // error of a text, a million here, before the first was shown.
    ["&a ", `x: ${hostile("&a ")}`],
  ])("%s", (_, text) => parseBothWays(text));

  // Two tests, not one: each holds its worker for seconds, and a worker held
  // for a minute on a loaded machine loses its link to the test runner.
  const keys = Array.from({ length: 210_000 }, (_, i) => `k${i}`);
  const keysText = keys.map((k) => `${k}: 1\n`).join("");

  it("a mapping of 210,000 distinct keys: duplicates are looked for, and every key located, in linear time", () => {
    // The `yaml` package's own duplicate check compares each key with every key before it.
    expect(keysText.length).toBeGreaterThan(SIZE);
    const [doc] = parseDocumentsWithPositions(keysText, "keys.yaml");
    for (const [i, key] of keys.entries()) if (i % 997 === 0 || i === keys.length - 1) expect(doc.locate([key], { key: true }).line).toBe(i + 1);
  });

  it("a values file of 210,000 unknown keys: each reported at its line, in linear time", () => {
    const values = parseValuesFile(`kind: RootpilotRunner\n${keysText}`, "values.yaml");
    try {
      renderSource(values);
      throw new Error("accepted");
    } catch (error) {
      if (!(error instanceof ValuesError)) throw error;
      const unknown = error.diagnostics.filter((d) => d.message === "unknown key");
      expect(unknown).toHaveLength(keys.length);
      expect(unknown.at(-1)!.location?.line).toBe(keys.length + 1);
    }
  });

  it("js-yaml, which reads most inputs first, on such patterns", () => {
    for (const unit of ["] #", "\n", "a: ", "#", '"']) {
      try {
        load(hostile(unit));
      } catch {
        // refused: the `yaml` package words the error
      }
    }
  });
});

describe("the YAML writer, on 2 MiB of one pattern", () => {
  // Through the fast path's classifier, its questions to js-yaml and its
  // indentation of literal blocks, or through the reference path where it
  // hands over: as a value at the top and three levels down, in a list,
  // after a prefix, and as a key (written `? key`).
  it.each([...UNITS, "1", "#", ": "].map((unit) => [JSON.stringify(unit), unit]))("%s", (_, unit) => {
    const text = hostile(unit);
    const object = { data: text, spec: { template: { args: ["--name", text, `--flag=${text}`] } }, [text]: "x" };
    expect(toYaml(object).length).toBeGreaterThan(4 * SIZE);
  });
});

describe("helpers on 2 MiB of one pattern", () => {
  it("PEM blocks: BEGIN lines without END lines", () => {
    const text = hostile("-----BEGIN CERTIFICATE-----\nAAAA\n");
    expect(splitPem(text, "CERTIFICATE").blocks).toEqual([]);
    expect(splitPem(`${text}-----END CERTIFICATE-----`, "CERTIFICATE").blocks).toHaveLength(1);
  });

  it("escaping for the terminal", () => {
    expect(printable(hostile("\u001b[31m")).length).toBeGreaterThan(SIZE);
  });
});

describe("time against a linear fit, at four doublings", () => {
  // Keys of one mapping, which the `yaml` package's duplicate check compared pairwise.
  const mapping = (n: number, prefix = "") => Array.from({ length: n }, (_, i) => `${prefix}k${i}: 1\n`).join("");

  it("a --runner-clusters file with its keys in one mapping", () => {
    expectLinear([5000, 10000, 20000, 40000], (n) => {
      const text = `clusters: []\n${mapping(n)}`;
      return () => expect(readRunnerClusters(text).problems).toHaveLength(n);
    });
  });

  it("a values file whose keys need the positioned parse (two numbers among them)", () => {
    expectLinear(
      [25000, 50000, 100000, 200000],
      (n) => {
        const text = `kind: RootpilotRunner\n1: a\n2: b\n${mapping(n)}`;
        return () => expect(() => parseValuesFile(text, "v.yaml")).not.toThrow();
      },
      2,
    );
  });

  // A glob of stars and letters once made a backtracking RegExp, polynomial in a name: 21 s for 45 characters.
  it("check's globs (--exclude, .rigging.yaml) on a name and on a path", () => {
    const byName = globMatcher(["*a*a*a*a*a*a*a*a*z", "{*a,*b}*[ab]*a*?*z"], "--exclude")!;
    const byPath = globMatcher(["**/*a*a*a*a*z/**/*a*a*z", "a/**/*a*/**/b/**/z"], "--exclude")!;
    expectLinear([50_000, 100_000, 200_000, 400_000], (n) => {
      const name = "a".repeat(n);
      const path = Array.from({ length: n / 50 }, () => "a".repeat(49)).join("/");
      return () => {
        expect(byName(name)).toBe(false);
        expect(byPath(path)).toBe(false);
      };
    });
  });
});
