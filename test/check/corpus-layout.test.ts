// One layout for every system's corpus (test/fixtures/README.md): valid.yaml
// and its valid-<what>.yaml variants, broken/ and warn/ and nothing else; every
// broken/ file's first line `# BROKEN (<ID>): …`, every warn/ file's
// `# WARNS (<ID>): …`, the ID that of its file name; and the G- cases of
// test/support/general-breakages.ts generated for every registered system.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SYSTEMS, catalog } from "../../src/systems/registry.ts";
import { brokenFiles, corpusDir, corpusName, generatedCases, objectsOf, warnFiles } from "../support/corpus.ts";
import { GENERAL_BREAKAGES, ruleIdOf } from "../support/general-breakages.ts";

const FOLDERS = ["broken", "warn"];

/** What is wrong with a system's corpus folder, given its entries (name, and whether a folder). */
function layoutProblems(entries: readonly { name: string; folder: boolean }[]): string[] {
  const problems = entries.flatMap(({ name, folder }) => {
    if (folder) return FOLDERS.includes(name) ? [] : [`${name}/ is no corpus folder (${FOLDERS.join(", ")})`];
    return /^valid(-[a-z0-9-]+)?\.yaml$/.test(name) ? [] : [`${name} is neither valid.yaml nor valid-<what>.yaml`];
  });
  if (!entries.some((e) => !e.folder && e.name === "valid.yaml")) problems.push("no valid.yaml");
  return problems;
}

/** Every requirement ID of the registry's systems and the general rules. */
const IDS = new Set(catalog.requirementEntries().map((r) => r.id));
const ALSO = /^# also (warns|errs): [\w-]+(, [\w-]+)* \(.+\)$/;

/** What is wrong with the header of a file of broken/ or warn/, or undefined. */
function headerProblem(folder: string, name: string, text: string): string | undefined {
  const id = /^([A-Z]+-\d+)(-[a-z0-9-]+)?\.yaml$/.exec(name)?.[1];
  if (!id) return `${name} is not named <RULE-ID>[-what].yaml`;
  if (!IDS.has(id)) return `${id} is no requirement ID`;
  const lines = text.split("\n");
  const kind = folder === "warn" ? "WARNS" : "BROKEN";
  const first = /^# (BROKEN|WARNS) \(([^)]*)\): \S/.exec(lines[0]);
  if (!first) return `its first line is not "# ${kind} (${id}): …"`;
  if (first[1] !== kind) return `a file of ${folder}/ starts "# ${kind}", not "# ${first[1]}"`;
  if (first[2] !== id) return `its header names ${first[2]}, its file name ${id}`;
  const end = lines.findIndex((l) => !l.startsWith("#"));
  const comments = lines.slice(0, end < 0 ? lines.length : end);
  const also = comments.find((l) => l.startsWith("# also") && !ALSO.test(l));
  return also ? `"${also}" is not "# also warns: <IDs> (why)" or "# also errs: <IDs> (why)"` : undefined;
}

describe("the checkers fail on what they forbid", () => {
  const valid = { name: "valid.yaml", folder: false };
  it("layoutProblems: another folder, a stray file, no valid.yaml", () => {
    expect(layoutProblems([valid, { name: "broken", folder: true }, { name: "warn", folder: true }, { name: "valid-flags.yaml", folder: false }])).toEqual([]);
    expect(layoutProblems([valid, { name: "opinion", folder: true }])).toEqual(["opinion/ is no corpus folder (broken, warn)"]);
    expect(layoutProblems([valid, { name: "notes.md", folder: false }])).toEqual(["notes.md is neither valid.yaml nor valid-<what>.yaml"]);
    expect(
      layoutProblems([
        { name: "valid-eks.yaml", folder: false },
        { name: "broken", folder: true },
      ]),
    ).toEqual(["no valid.yaml"]);
  });

  it("headerProblem: the first line, the kind, the ID, the also-lines and the name", () => {
    const body = "apiVersion: v1\nkind: Namespace\n";
    expect(headerProblem("broken", "G-04.yaml", `# BROKEN (G-04): a secret inline.\n${body}`)).toBeUndefined();
    expect(headerProblem("warn", "CR-19-priority.yaml", `# WARNS (CR-19): no priority.\n# also warns: G-07 (why)\n${body}`)).toBeUndefined();
    expect(headerProblem("broken", "G-04.yaml", `# Broken (G-04): a secret inline.\n${body}`)).toBe('its first line is not "# BROKEN (G-04): …"');
    expect(headerProblem("broken", "G-04.yaml", body)).toBe('its first line is not "# BROKEN (G-04): …"');
    expect(headerProblem("broken", "G-04.yaml", "# BROKEN (G-04):\n")).toBe('its first line is not "# BROKEN (G-04): …"');
    expect(headerProblem("warn", "G-07.yaml", `# BROKEN (G-07): labels.\n${body}`)).toBe('a file of warn/ starts "# WARNS", not "# BROKEN"');
    expect(headerProblem("broken", "G-04.yaml", `# BROKEN (G-05): a tag.\n${body}`)).toBe("its header names G-05, its file name G-04");
    expect(headerProblem("broken", "CR-02-x.yaml", `# BROKEN (CR-02): x.\n# also warn: CR-20 (why)\n${body}`)).toBe(
      '"# also warn: CR-20 (why)" is not "# also warns: <IDs> (why)" or "# also errs: <IDs> (why)"',
    );
    expect(headerProblem("broken", "cr-02.yaml", `# BROKEN (CR-02): x.\n${body}`)).toBe("cr-02.yaml is not named <RULE-ID>[-what].yaml");
    expect(headerProblem("broken", "G-99.yaml", `# BROKEN (G-99): x.\n${body}`)).toBe("G-99 is no requirement ID");
  });
});

describe.each(SYSTEMS.map((s) => s.name))("the corpus of %s", (system) => {
  it("holds valid.yaml, its variants, broken/ and warn/, and nothing else", () => {
    const dir = corpusDir(system);
    const entries = (() => {
      try {
        return readdirSync(dir).map((name) => ({ name, folder: statSync(join(dir, name)).isDirectory() }));
      } catch {
        return [];
      }
    })();
    expect(layoutProblems(entries)).toEqual([]);
  });

  it.each([...brokenFiles(system), ...warnFiles(system)].map((f) => [corpusName(f), f]))("%s has the header of its folder and ID", (name, file) => {
    const folder = basename(join(file, ".."));
    expect(headerProblem(folder, basename(file), readFileSync(file, "utf8")), name).toBeUndefined();
  });

  it("has a generated case for every breakage of the G- table", () => {
    expect(generatedCases(system).map((c) => c.name)).toEqual(GENERAL_BREAKAGES.map((b) => `${b.name}.yaml`));
  });

  it.each(generatedCases(system).map((c) => [c.name, c.file]))("generated %s is valid.yaml with one object changed or added", (_name, file) => {
    const valid = objectsOf(join(corpusDir(system), "valid.yaml")).map((o) => JSON.stringify(o));
    const mine = objectsOf(file).map((o) => JSON.stringify(o));
    const added = mine.filter((o) => !valid.includes(o));
    const gone = valid.filter((o) => !mine.includes(o));
    expect(added).toHaveLength(1);
    expect(gone.length).toBeLessThanOrEqual(1);
    expect(mine.length - valid.length).toBe(1 - gone.length);
  });
});

it("the G- table breaks every G- rule judged from manifests", () => {
  const judged = catalog
    .allRules()
    .filter((r) => r.id.startsWith("G-") && r.judged?.by !== "not-manifests")
    .map((r) => r.id);
  expect([...new Set(GENERAL_BREAKAGES.map(ruleIdOf))]).toEqual(judged);
});
