// The lazy-load seams of src/seams.ts agree with the sources: every file it
// names exists, the registry reaches only each system's heads, and the import
// graph puts each file it places where it says (the build refuses otherwise).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as seams from "../src/seams.ts";
import { ROOT } from "./support/cli.ts";

type Plan = { codeChunks: Record<string, string[]>; allChunks: Record<string, readonly string[]>; owner: Map<string, string>; used: Map<string, unknown> };
type Chunks = { planChunks: () => Plan; misplaced: (owner: Map<string, string>) => string[] };
// The build's own planner, as the build runs it (a path, so the compiler leaves the .mjs alone).
const planner = join(ROOT, "scripts", "build", "chunks.mjs");
const { planChunks, misplaced } = (await import(planner)) as Chunks;
const plan = planChunks();

const systems = readdirSync(join(ROOT, seams.SYSTEMS_FOLDER), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe("the seams manifest", () => {
  it("names files that exist", () => {
    const named = [
      ...Object.values(seams.ENTRIES),
      seams.REGISTRY,
      ...seams.UNBUNDLED,
      seams.SYSTEMS_FOLDER,
      ...Object.values(seams.SOURCE_CHUNKS).flat(),
      ...Object.keys(seams.PLACED),
    ];
    expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it("names heads that some system folder holds", () => {
    const held = new Set(systems.flatMap((system) => readdirSync(join(ROOT, seams.SYSTEMS_FOLDER, system))));
    expect(seams.KIND_HEADS.filter((head) => !held.has(head))).toEqual([]);
  });

  it("gives every chunk its own name, none main's", () => {
    const names = [...Object.keys(seams.PACKAGE_CHUNKS), ...systems.map((system) => `${seams.KIND_PREFIX}${system}`), ...Object.keys(seams.SOURCE_CHUNKS)];
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain(seams.MAIN);
    expect(seams.NOT_IN_BUN.filter((chunk) => !Object.hasOwn(seams.SOURCE_CHUNKS, chunk))).toEqual([]);
  });

  it("places each seam's file in a chunk that exists, or main", () => {
    const chunks = new Set([seams.MAIN, ...Object.keys(plan.allChunks)]);
    expect(Object.values(seams.PLACED).filter((chunk) => !chunks.has(chunk))).toEqual([]);
  });
});

describe("the chunk plan the build makes from the sources", () => {
  it("puts every file src/seams.ts places where it says", () => {
    expect(misplaced(plan.owner)).toEqual([]);
  });

  it("reports a file the import graph moves", () => {
    const [file, chunk] = Object.entries(seams.PLACED)[0];
    const elsewhere = chunk === seams.MAIN ? "fleet" : seams.MAIN;
    const moved = new Map(plan.owner);
    if (elsewhere === seams.MAIN) moved.delete(file);
    else moved.set(file, elsewhere);
    expect(misplaced(moved)).toEqual([`${file}: src/seams.ts places it in ${chunk}, the import graph in ${elsewhere}`]);
  });

  it("keeps each system's heads in main and the rest of its folder in its chunk", () => {
    for (const system of systems) {
      const folder = `${seams.SYSTEMS_FOLDER}/${system}`;
      const files = readdirSync(join(ROOT, folder)).filter((file) => file.endsWith(".ts"));
      const heads = files.filter((file) => (seams.KIND_HEADS as readonly string[]).includes(file));
      expect(heads.filter((file) => plan.owner.has(`${folder}/${file}`))).toEqual([]);
      expect(files.filter((file) => !heads.includes(file) && plan.owner.get(`${folder}/${file}`) !== `${seams.KIND_PREFIX}${system}`)).toEqual([]);
    }
  });

  it("is reached from the registry only through heads", () => {
    const registry = readFileSync(join(ROOT, seams.REGISTRY), "utf8");
    const reached = [...registry.matchAll(/^import (?!type )[^;]*from "\.\/([^"/]+)\/([^"]+)";$/gm)].map(([, system, file]) => `${system}/${file}`);
    expect(reached.length).toBeGreaterThan(0);
    expect(reached.filter((path) => !(seams.KIND_HEADS as readonly string[]).includes(path.split("/").pop() ?? ""))).toEqual([]);
  });

  it("chunks only packages the sources import", () => {
    const specifiers = Object.values(seams.PACKAGE_CHUNKS).flat();
    expect(specifiers.filter((specifier) => !plan.used.has(specifier))).toEqual([]);
  });
});
