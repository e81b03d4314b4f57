// The floor (core, parse, values, emit, k8s) knows no system and no later stage:
// its files import only each other, packages and Node.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/cli.ts";

const FLOOR = ["core", "parse", "values", "emit", "k8s"];

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((m) => relative(join(ROOT, "src"), join(dirname(file), m[1])));
}

describe("the floor", () => {
  for (const folder of FLOOR) {
    it(`src/${folder} imports nothing above the floor`, () => {
      const files = readdirSync(join(ROOT, "src", folder), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        for (const target of importsOf(join(ROOT, "src", folder, file))) {
          expect(FLOOR, `src/${folder}/${file} imports src/${target}`).toContain(target.split("/")[0]);
        }
      }
    });
  }

  it("src/normalise, the stage before the rules, imports only the floor and itself", () => {
    const files = readdirSync(join(ROOT, "src", "normalise"), { encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      for (const target of importsOf(join(ROOT, "src", "normalise", file))) {
        expect([...FLOOR, "normalise"], `src/normalise/${file} imports src/${target}`).toContain(target.split("/")[0]);
      }
    }
  });

  it("the check above can fail: a rule file imports the rule engine", () => {
    expect(importsOf(join(ROOT, "src", "systems", "compass-runner", "rules.ts")).some((t) => t.startsWith("rules/"))).toBe(true);
  });
});
