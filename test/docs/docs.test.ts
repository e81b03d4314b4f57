// The generated docs tables match the code: the rules table the catalog,
// each values table its JSON Schema. Run `npm run docs` to refresh them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { refreshValuesTables, rulesMarkdown, valuesTable, CLOSE_MARKER } from "../../src/docs/generate.ts";
import { CONSEQUENCE_ROWS, SHORT } from "../../src/diff/table.ts";
import { expectedDocs } from "../../src/docs/files.ts";
import { requirementList } from "../../src/docs/requirement-lists.ts";
import { catalog } from "../../src/systems/registry.ts";

const DOCS = fileURLToPath(new URL("../../docs", import.meta.url));

describe("generated docs are up to date (npm run docs)", () => {
  const expected = expectedDocs(DOCS);
  it.each([...expected.keys()])("docs/%s", (name) => {
    expect(readFileSync(join(DOCS, name), "utf8"), `docs/${name} is stale: run npm run docs`).toBe(expected.get(name));
  });

  it("covers the rules table and the Compass Runner values table", () => {
    expect([...expected.keys()]).toEqual(expect.arrayContaining(["rules.md", "compass-runner.md", "diff.md", "pin.md"]));
  });

  it("diff.md's consequence table names every consequence diff gives a change", () => {
    const documented = new Set(CONSEQUENCE_ROWS.flatMap((r) => r.ids));
    for (const id of Object.keys(SHORT)) if (id !== "added") expect(documented.has(id as keyof typeof SHORT), id).toBe(true);
  });
});

describe("the generators", () => {
  it("the rules table has one row per requirement ID, with its severity and fix", () => {
    const md = rulesMarkdown();
    for (const rule of catalog.allRules()) expect(md).toContain(`| ${rule.id} |`);
    for (const entry of catalog.requirementEntries()) expect(md).toContain(`| ${entry.id} | ${entry.profiles.length === 1 ? entry.profiles[0] : "all"} |`);
    expect(md).toMatch(
      /\| CR-09 \| compass-runner \| error \| The pod runs in a user namespace: hostUsers: false \| [^|]+ \| set hostUsers: false in the pod spec, on Kubernetes 1\.33 or newer \(1\.32 with the feature gates UserNamespacesSupport and ProcMountType\) \|/,
    );
    expect(md).toMatch(/\| RP-03 \| rootpilot-runner \| error \| .* \| documented: the Rootpilot Kubernetes guide, Requirement 2: .* \|/);
    expect(md).toMatch(/\| G-07 \| all \| warning \| .* \| rigging.s choice: .* \|/);
  });

  it("a system page's requirement list names each of its requirements with its summary, from the requirement data", () => {
    const list = requirementList("compass-runner");
    const own = catalog.requirementEntries().filter((entry) => entry.id.startsWith("CR-"));
    expect(list.split("\n").filter((line) => line.startsWith("- "))).toHaveLength(own.length);
    for (const entry of own) expect(list).toContain(`- **${entry.id}** ${entry.summary}`);
    expect(list).toMatch(/^- \*\*CR-18\*\* .* \(how judged: render prints the checklist/m);
  });

  it("a requirement with inValues shows it nested under its item, in its system page's list", () => {
    const withValues = catalog.requirementEntries().filter((entry) => entry.inValues !== undefined);
    expect(withValues.map((entry) => entry.id)).toContain("CR-03");
    for (const entry of withValues) {
      const page = readFileSync(join(DOCS, `${entry.profiles[0]}.md`), "utf8");
      expect(requirementList(entry.profiles[0])).toContain(`- **${entry.id}** ${entry.summary}\n  - In values: ${entry.inValues}`);
      expect(page).toContain(`- **${entry.id}** ${entry.summary}\n  - In values: ${entry.inValues}\n`);
    }
    expect(requirementList("compass-runner")).toMatch(/^ {2}- In values: `tokenExpirationSeconds` \(default 600\)/m);
    expect(requirementList("compass-runner")).not.toMatch(/^- \*\*CR-02\*\* .*\n {2}- In values/m);
  });

  it("a values table names nested keys with type and default", () => {
    const table = valuesTable("CompassRunner");
    expect(table).toMatch(/\| `tokenExpirationSeconds` \| integer \(600\.\.4294967296\) \| `600` \|/);
    expect(table).toMatch(/\| `hostPaths\.sessionVolumeRoot` \| string, required \|/);
    expect(table).toMatch(/\| `seccompProfilePath` \| string \| `"profiles\/compass-runner\.json"` \|/);
    expect(table).toMatch(/\| `admission\.controllers` \| list of string, required \|/);
  });

  it("fills a block without closing marker, replaces a stale one, and leaves the rest alone", () => {
    const fresh = refreshValuesTables("intro\n<!-- values-table:CompassRunner -->\noutro\n");
    expect(fresh).toBe(`intro\n<!-- values-table:CompassRunner -->\n\n${valuesTable("CompassRunner")}\n\n${CLOSE_MARKER}\noutro\n`);
    const stale = "a\n<!-- values-table:CompassRunner -->\n| old |\n<!-- /values-table -->\nb\n";
    expect(refreshValuesTables(stale)).toBe(fresh.replace("intro", "a").replace("outro", "b"));
    expect(refreshValuesTables(fresh)).toBe(fresh);
  });
});
