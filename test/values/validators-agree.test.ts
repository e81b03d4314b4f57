// The generated validators (src/systems/*/generated-validator.ts) against zod, the
// reference they are generated from: on valid values and near misses of
// every values kind, the two accept and refuse the same values (an own
// `__proto__` key aside, which the values reader refuses first), and what
// the generated one returns is exactly what zod returns (keys in the same
// order, defaults, transforms). A refusal always carries zod's own words.
import { readFileSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { breathe, loopProperty } from "../support/breathe.ts";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { UsageError, ValuesError } from "../../src/core/errors.ts";
import { parseValuesFile } from "../../src/parse/source.ts";
import { validatorOf } from "../../src/systems/validators.ts";
import { validateValues } from "../../src/values/values.ts";
import { mutate, mutation, pathsOf, setOwn, type Mutation } from "../support/compass-runner-values.ts";
import { runCli, runInProcess, tempDir } from "../support/cli.ts";
import { makePki } from "../support/tls.ts";
import { runs } from "../support/runs.ts";
import { valuesOfKind } from "../support/values-arbitrary.ts";
import { valuesKindOf } from "../../src/systems/registry.ts";

// The in-process CLI can be run with zod alone, as the reference the built
// CLI (with the generated validators) is compared with.
const zodOnly = vi.hoisted(() => ({ on: false }));
vi.mock("../../src/systems/validators.ts", async (original) => {
  const real = (await original()) as { validatorOf: (kind: string) => unknown };
  return { validatorOf: (kind: string) => (zodOnly.on ? undefined : real.validatorOf(kind)) };
});

const RUNS = runs(250);
/** Values files per kind that go through the built CLI (a fixed sample: each is a process). */
const CLI_FILES = runs(4);

type Values = Record<string, unknown>;

const load = (file: string): Values => parseValuesFile(readFileSync(file, "utf8"), file).data as Values;

/** A deep copy of `values` with `change` applied to it. */
function variant(values: Values, change: (v: Values) => void): Values {
  const copy = structuredClone(values);
  change(copy);
  return copy;
}

const object = (v: Values, key: string) => v[key] as Values;

interface Kind {
  kind: string;
  title: string;
  seeds: () => Values[];
  /** Values drawn from the kind's JSON Schema (support/values-arbitrary.ts) besides the seeds. */
  generated?: boolean;
}

let caPem = "";

const KINDS: Kind[] = [
  {
    kind: "CompassRunner",
    title: "CompassRunner in the upstream tool's shape (no kind)",
    seeds: () => {
      const upstream = load("test/fixtures/upstream/values.example.json");
      return [upstream, variant(upstream, (v) => (v.serverCA = { pem: caPem })), variant(upstream, (v) => (v.serverCA = { secret: { name: "compass-ca" } }))];
    },
  },
  {
    kind: "CompassRunner",
    title: "CompassRunner",
    seeds: () => {
      const example = load("examples/compass-runner.yaml");
      return [
        example,
        variant(example, (v) => (v.serverCA = { pem: caPem })),
        variant(example, (v) => (object(v, "serverCluster").jwksFile = "/etc/compass/jwks.json")),
      ];
    },
    generated: true,
  },
  {
    kind: "CompassServer",
    title: "CompassServer",
    seeds: () => {
      const example = load("examples/compass-server.yaml");
      return [
        example,
        variant(example, (v) => (v.nats = { mode: "external", urlSecret: { name: "compass-nats" }, cidr: "10.30.0.0/24" })),
        variant(example, (v) => {
          Object.assign(object(v, "forge"), { reviewerAppId: 42, reviewerAppInstallationId: 43, reviewerAppKeySecret: { name: "compass-reviewer-app" } });
          v.tolerations = [
            { key: "dedicated", value: "compass", effect: "NoSchedule" },
            { operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 },
          ];
          v.nodeSelector = { "example.com/pool": "compass" };
        }),
      ];
    },
    generated: true,
  },
  {
    kind: "Compass",
    title: "Compass",
    seeds: () => {
      const example = load("examples/compass.yaml");
      return [example, variant(example, (v) => (object(object(v, "runner"), "admission").breakGlassGroups = ["system:masters", "compass-oncall"]))];
    },
    generated: true,
  },
  {
    kind: "RootpilotRunner",
    title: "RootpilotRunner",
    seeds: () => [
      load("examples/rootpilot-eks.yaml"),
      load("examples/rootpilot-gke.yaml"),
      variant(load("examples/rootpilot-eks.yaml"), (v) => (object(v, "attestation").regionAllowlist = ["eu-west-1", "us-east-1"])),
    ],
    generated: true,
  },
];

/** Every string and number in the seeds: values that are valid somewhere, to try elsewhere. */
function leavesOf(seeds: Values[]): unknown[] {
  const out = new Set<unknown>();
  const walk = (node: unknown) => {
    if (typeof node === "string" || typeof node === "number" || typeof node === "boolean") out.add(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") Object.values(node).forEach(walk);
  };
  seeds.forEach(walk);
  return [...out];
}

type Change =
  | { kind: "mutation"; mutation: Mutation }
  | { kind: "borrow"; at: number; from: number }
  | { kind: "edit"; at: number; position: number; text: string; remove: number }
  | { kind: "step"; at: number; by: number };

/** Small edits of strings and numbers: the near misses of a pattern, a length or a bound. */
const change: fc.Arbitrary<Change> = fc.oneof(
  { arbitrary: mutation.map((m) => ({ kind: "mutation" as const, mutation: m })), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("borrow" as const), at: fc.nat(), from: fc.nat() }), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      at: fc.nat(),
      position: fc.nat(),
      text: fc.oneof(
        fc.constantFrom("", " ", "\n", "\t", "A", "a", "-", ".", "/", ":", "..", "@", "é", "\u0000", "\u{1F600}", "x".repeat(64)),
        fc.string({ maxLength: 3 }),
      ),
      remove: fc.nat(2),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("step" as const), at: fc.nat(), by: fc.constantFrom(-1, 1, -0.5, 100, -1e6, 1e12) }), weight: 2 },
);

function leafPaths(values: Values, type: string): (string | number)[][] {
  return pathsOf(values).filter((path) => path.length > 0 && path.join() !== "kind" && typeof valueAt(values, path) === type);
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

function setAt(root: Values, path: (string | number)[], value: unknown): void {
  setOwn(valueAt(root, path.slice(0, -1)) as object, path[path.length - 1], value);
}

function apply(values: Values, c: Change, pool: unknown[]): Values {
  if (c.kind === "mutation") return mutate(values, c.mutation);
  const copy = structuredClone(values);
  const type = c.kind === "edit" ? "string" : c.kind === "step" ? "number" : undefined;
  const paths = type ? leafPaths(copy, type) : pathsOf(copy).filter((path) => path.length > 0 && path.join() !== "kind");
  if (paths.length === 0) return copy;
  const path = paths[c.at % paths.length];
  const old = valueAt(copy, path);
  if (c.kind === "borrow") setAt(copy, path, structuredClone(pool[c.from % pool.length]));
  else if (c.kind === "step") setAt(copy, path, (old as number) + c.by);
  else {
    const text = old as string;
    const at = c.position % (text.length + 1);
    setAt(copy, path, text.slice(0, at) + c.text + text.slice(at + c.remove));
  }
  return copy;
}

/** A value with its key order and its undefined members in view, to compare two outputs exactly. */
function exact(value: unknown): unknown {
  if (Array.isArray(value)) return { list: value.map(exact) };
  if (value !== null && typeof value === "object")
    return { keys: Object.entries(value).map(([key, member]) => [key, exact(member)]), proto: Object.getPrototypeOf(value) === Object.prototype };
  return value === undefined ? { undefined: true } : value;
}

/** Whether `value` holds an own `__proto__` key at any depth (as a YAML or JSON parser can make). */
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (value === null || typeof value !== "object") return false;
  return Object.hasOwn(value, "__proto__") || Object.values(value).some(hasProtoKey);
}

function diagnosticsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ValuesError) return JSON.stringify(error.diagnostics);
    throw error;
  }
  return "accepted";
}

beforeAll(async () => {
  caPem = (await makePki()).root.cert;
});

describe.each(KINDS)("$title: the generated validator and zod", ({ kind, seeds, generated }) => {
  it("agree on what they accept and on the values they return, and every refusal is zod's", async () => {
    const profile = valuesKindOf(kind)!;
    const schema = profile.schema();
    const fast = validatorOf(kind)!;
    const starts = seeds();
    const pool = leavesOf(starts);
    const start = generated ? fc.oneof(fc.constantFrom(...starts), valuesOfKind(kind, { seeds: [{ serverCA: { pem: caPem } }] })) : fc.constantFrom(...starts);
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      loopProperty(start, fc.array(change, { maxLength: 3 }), (values, changes) => {
        const input = changes.reduce((v, c) => apply(v, c, pool), values);
        const reference = schema.safeParse(input);
        const result = fast(input);
        if (result === undefined && reference.success && hasProtoKey(input)) {
          // ajv's structure check counts an own `__proto__` key of a record
          // as a member, where zod drops it without a word, so the generated
          // validator declines (hands to zod) what zod accepts. No values
          // file gets there: the reader refuses a `__proto__` key first.
          seen.accepted++;
          expect(diagnosticsOf(() => parseValuesFile(stringify(input), "values.yaml"))).toContain("`__proto__` is never a values key");
          return;
        }
        expect(result !== undefined, "the generated validator and zod disagree on accepting").toBe(reference.success);
        if (reference.success) {
          seen.accepted++;
          expect(exact(result!.value)).toStrictEqual(exact(reference.data));
          return;
        }
        seen.refused++;
        // Through the seam, as a render reads a file: the same diagnostics
        // as zod's alone (a file the reader refuses never gets there).
        let source;
        try {
          source = parseValuesFile(stringify(input), "values.yaml");
        } catch (error) {
          if (error instanceof ValuesError || error instanceof UsageError) return;
          throw error;
        }
        const withFast = diagnosticsOf(() => validateValues(() => profile.schema(), source, kind, fast));
        expect(withFast).toBe(diagnosticsOf(() => validateValues(() => profile.schema(), source, kind)));
      }),
      { numRuns: RUNS },
    );
    // Both sides of the line were walked, not just one.
    expect(seen.accepted).toBeGreaterThan(RUNS / 20);
    expect(seen.refused).toBeGreaterThan(RUNS / 20);
  });
});

describe("through the CLI", () => {
  it("a render prints byte for byte what it prints with zod alone: the same objects, the same refusals", async () => {
    const dir = tempDir();
    const files: string[] = [];
    KINDS.forEach(({ seeds }, k) => {
      const starts = seeds();
      const pool = leavesOf(starts);
      const samples = fc.sample(fc.tuple(fc.constantFrom(...starts), fc.array(change, { minLength: 0, maxLength: 2 })), {
        numRuns: CLI_FILES,
        seed: 20_16 + k,
      });
      samples.forEach(([values, changes], i) => {
        const file = join(dir, `values-${k}-${i}.yaml`);
        writeFileSync(file, stringify(changes.reduce((v, c) => apply(v, c, pool), values)));
        files.push(file);
      });
    });
    const codes = new Set<number>();
    for (const file of files) {
      await breathe();
      const built = runCli(["render", file]);
      zodOnly.on = true;
      let reference;
      try {
        reference = runInProcess(["render", file]);
      } finally {
        zodOnly.on = false;
      }
      expect(built, file).toEqual(reference);
      codes.add(built.code);
    }
    // Renders and refusals both went through.
    expect([...codes].sort()).toEqual([0, 1]);
  }, 300_000);
});
