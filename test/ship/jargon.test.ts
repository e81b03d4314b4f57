// Words a user knows: every text a user meets (the docs, the examples, the
// integrations, and what the built CLI prints: help, explain, rules, init,
// schema, check's reports, render's notes) names the public documents, never
// the project's own words for them. Where a task (P1-P9) or decision (D1-D10)
// ID appears, the text says whose it is: the Compass Server-on-Kubernetes
// design, or the glossary that explains it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { otherIds } from "../../src/check/other-ids.ts";
import { CLI, ROOT, runInProcess, runInProcessAsync } from "../support/cli.ts";
import { run } from "./run.ts";
import { catalog } from "../../src/systems/registry.ts";

/** The internal words, each with what a finding calls it: the one list this test judges by. */
const INTERNAL: readonly [string, RegExp][] = [
  // "seeded" (upstream's word for forge repos) is English, not the project's name for a source.
  ["seed (name the public document)", /\bseeds?\b/gi],
  ["ledger ID", /\bDL-\d+/g],
  ["internal notes (compass-interfaces)", /compass-interfaces/gi],
  ["section of the internal notes", /§/g],
  // Rows of the internal notes (G7, R1); rigging's own IDs have a hyphen (G-07).
  ["row of the internal notes", /\b[GR]\d{1,2}\b/g],
  ["spike ID", /\bspike S\d+/gi],
  ["open-question or ticket ID", /\b(?:OQ|RIG)-\d+/g],
  // A 7-40 hex word with a letter and a digit, not a digest, a content hash, a paired tag or in a path.
  ["commit hash", /(?<![\w.:/-])(?<!sha256: )(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])/g],
];

/** Where a task or decision ID is named, one of these says whose it is. */
const ATTRIBUTION = /Server-on-Kubernetes design|glossary/;
const TASK_OR_DECISION = /\b(?:P[1-9]|D(?:10|[1-9]))\b/;

/** Exceptions, each with its reason: none today. */
const ALLOWED: readonly { where: string; text: string; because: string }[] = [];

interface Text {
  where: string;
  text: string;
}

/** Every internal word in a text, as "where:line: word (what it is)". */
function hits({ where, text }: Text): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [name, pattern] of INTERNAL)
      for (const m of line.matchAll(pattern)) {
        if (ALLOWED.some((a) => a.where === where && line.includes(a.text))) continue;
        found.push(`${where}:${i + 1}: ${JSON.stringify(m[0])} (${name}) in ${JSON.stringify(line.trim().slice(0, 160))}`);
      }
  });
  return found;
}

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
}

const read = (path: string): Text => ({ where: relative(ROOT, path), text: readFileSync(path, "utf8") });

/** The files a user reads: the docs, the README, the examples, the action and the integrations. */
function shippedFiles(): Text[] {
  return [
    ...files(join(ROOT, "docs")),
    join(ROOT, "README.md"),
    ...files(join(ROOT, "examples")).filter((f) => f.endsWith(".yaml")),
    join(ROOT, "action.yml"),
    ...files(join(ROOT, "integrations")),
  ].map(read);
}

/** What `rigging ARGS` prints, stdout and stderr: from the built CLI, `explain ID` in-process (a hundred IDs, one process saved each). */
async function cli(args: string[]): Promise<Text[]> {
  const r = args[0] === "explain" && args.length === 2 ? await runInProcessAsync(args) : await run(process.execPath, [CLI, ...args], { cwd: ROOT });
  const where = `rigging ${args.join(" ")}`;
  if (r.code > 1) throw new Error(`${where} exited ${r.code}: ${r.err}`);
  return [
    { where: `${where} (stdout)`, text: r.out },
    { where: `${where} (stderr)`, text: r.err },
  ];
}

/** Every command line whose output a user reads, found from the CLI's own help. */
async function commandLines(): Promise<string[][]> {
  const help = (await run(process.execPath, [CLI, "--help"], { cwd: ROOT })).out;
  const commands = [...new Set([...help.matchAll(/^ {2}rigging (\w[\w-]*)/gm)].map((m) => m[1]))];
  const kinds = (help.match(/^Kinds: (.*)$/m)?.[1] ?? "").split(", ");
  const preflights = [...(await run(process.execPath, [CLI, "preflight", "--help"], { cwd: ROOT })).out.matchAll(/^ {2}(\w+) {3}/gm)].map((m) => m[1]);
  const ids = [...new Set([...catalog.requirements().map((r) => r.id), ...otherIds().map((o) => o.id)])];
  const flagged = join("test", "fixtures", "check");
  const examples = files(join(ROOT, "examples")).filter((f) => f.endsWith(".yaml"));
  return [
    ["--help"],
    ...commands.map((c) => [c, "--help"]),
    ...preflights.map((p) => ["preflight", p, "--help"]),
    ["explain"],
    ...ids.map((id) => ["explain", id]),
    ...["text", "json"].map((f) => ["rules", "--format", f]),
    ...kinds.map((k) => ["init", k]),
    ["schema"],
    ...["text", "json", "sarif", "junit"].map((f) => ["check", flagged, "--format", f]),
    ...examples.map((e) => ["render", relative(ROOT, e)]),
  ];
}

/**
 * check's text and JSON reports of every flagged fixture, one file at a time (a directory holds
 * the same objects many times over), run in-process: the same messages, without 300 processes.
 */
function findings(): Text[] {
  const flagged = files(join(ROOT, "test", "fixtures", "check")).filter((f) => f.endsWith(".yaml"));
  return flagged.flatMap((file) =>
    ["text", "json"].flatMap((format) => {
      const r = runInProcess(["check", file, "--format", format]);
      const where = `rigging check ${relative(ROOT, file)} --format ${format}`;
      return [
        { where: `${where} (stdout)`, text: r.out },
        { where: `${where} (stderr)`, text: r.err },
      ];
    }),
  );
}

let texts: Text[];
let lines: string[][];
beforeAll(async () => {
  lines = await commandLines();
  texts = [...shippedFiles(), ...findings()];
  for (const args of lines) texts.push(...(await cli(args)));
});

describe("what a user sees names the public documents", () => {
  it("covers every command's help, every requirement's explain, every kind's init and every example's render", () => {
    const said = lines.map((args) => args.join(" "));
    for (const wanted of [
      "check --help",
      "explain CR-03",
      "explain D9",
      "explain waiver",
      "init RootpilotRunner",
      "preflight tls --help",
      "render examples/compass.yaml",
    ])
      expect(said).toContain(wanted);
    expect(texts.map((t) => t.where)).toEqual(
      expect.arrayContaining(["docs/check.md", "docs/integrations/kpt.md", "README.md", "examples/compass-runner.yaml"]),
    );
    // The flagged manifests give findings, so the reports hold rule messages and reasons.
    expect(texts.find((t) => t.where.includes("--format sarif (stdout)"))?.text).toMatch(/"ruleId": "CR-\d+"/);
    const report = (file: string) => texts.find((t) => t.where === `rigging check test/fixtures/check/${file} --format text (stdout)`)?.text;
    expect(report("compass-runner/broken/CR-20.yaml")).toMatch(/error\s.*CR-20/);
    expect(report("compass-runner/warn/CR-14.yaml")).toMatch(/warning\s.*CR-14/);
  });

  it("has no internal word: no seed, ledger ID, internal notes, section sign or commit hash", () => {
    expect(texts.flatMap(hits)).toEqual([]);
  });

  it("says whose a task or decision ID is wherever one appears, in every text for people", () => {
    // A command's stdout and stderr are one screen; JSON, SARIF and JUnit are for programs (SARIF's help says it per rule).
    const screen = (where: string) => where.replace(/ \((stdout|stderr)\)$/, "");
    const screens = new Map<string, string>();
    for (const t of texts.filter((t) => !/--format (json|sarif|junit)|^rigging schema/.test(t.where)))
      screens.set(screen(t.where), `${screens.get(screen(t.where)) ?? ""}${t.text}`);
    const unattributed = [...screens].filter(([, text]) => TASK_OR_DECISION.test(text) && !ATTRIBUTION.test(text)).map(([where]) => where);
    expect(unattributed).toEqual([]);
  });

  it("finds each kind of internal word (the patterns can fail)", () => {
    const sample = "seed 001 DL-577 compass-interfaces §7 (G7) main.go@c0c4e3c5 f71f2ba4 spike S5 OQ-13";
    expect(hits({ where: "sample", text: sample }).map((h) => h.replace(/ in .*/, ""))).toEqual([
      'sample:1: "seed" (seed (name the public document))',
      'sample:1: "DL-577" (ledger ID)',
      'sample:1: "compass-interfaces" (internal notes (compass-interfaces))',
      'sample:1: "§" (section of the internal notes)',
      'sample:1: "G7" (row of the internal notes)',
      'sample:1: "spike S5" (spike ID)',
      'sample:1: "OQ-13" (open-question or ticket ID)',
      'sample:1: "c0c4e3c5" (commit hash)',
      'sample:1: "f71f2ba4" (commit hash)',
    ]);
    const clean =
      "G-07 repos seeded at boot; image@sha256:0a1b2c3d4e5f6a7b main-1850-0a1b2c3d4e5f go/cmd/compass-server/main.go rigging.dev/runner-clusters-sha256: d3c9f23aa7881771";
    expect(hits({ where: "sample", text: clean })).toEqual([]);
  });
});
