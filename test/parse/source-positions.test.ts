// Positions of fast-read documents: every key path of the examples, alone and in a stream, is located where the yaml package locates it, and never on a success path.
import { describe, expect, it } from "vitest";
import { parseFast, parseFastStream } from "../../src/parse/fast-yaml.ts";
import { parseDocuments, parseDocumentsWithPositions, parseValuesFile, type SourceDocument } from "../../src/parse/source.ts";
import { LIMITS } from "../../src/parse/limits.ts";
import { renderSource } from "../../src/pipeline.ts";
import { EXAMPLES } from "./source-helpers.ts";

/** Every path to a key or an item, and under each mapping a key that is not there. */
function pathsOf(value: unknown, at: PropertyKey[] = []): PropertyKey[][] {
  const out: PropertyKey[][] = [at];
  if (value === null || typeof value !== "object") return out;
  if (!Array.isArray(value)) out.push([...at, "no-such-key"]);
  for (const [key, child] of Object.entries(value)) out.push(...pathsOf(child, [...at, Array.isArray(value) ? Number(key) : key]));
  return out;
}

function expectSamePositions(fast: SourceDocument, slow: SourceDocument): void {
  for (const path of pathsOf(slow.data)) {
    expect(fast.locate(path), path.join(".")).toEqual(slow.locate(path));
    expect(fast.locate(path, { key: true }), path.join(".")).toEqual(slow.locate(path, { key: true }));
  }
}
describe("positions of fast-read documents", () => {
  it.each(EXAMPLES.map((e) => [e.file, e] as const))("%s: every key path is located where the yaml package locates it", (_, { file, text }) => {
    expect(parseFast(text, LIMITS.depth), "the example takes the fast path").toBeDefined();
    expectSamePositions(parseValuesFile(text, file), parseDocumentsWithPositions(text, file)[0]);
  });

  it("locates each document of a stream in its own document", () => {
    const text = EXAMPLES.map((e) => `---\n# ${e.file}\n${e.text}`).join("");
    expect(parseFastStream(text, LIMITS.depth)).toBeDefined();
    const fast = parseDocuments(text, "stream.yaml");
    const slow = parseDocumentsWithPositions(text, "stream.yaml");
    expect(fast).toHaveLength(EXAMPLES.length);
    fast.forEach((doc, index) => expectSamePositions(doc, slow[index]));
  });

  it("locates nothing while a valid values file renders", () => {
    for (const { file, text } of EXAMPLES) {
      const parsed = parseValuesFile(text, file);
      const source: SourceDocument = {
        file,
        data: parsed.data,
        locate: () => {
          throw new Error(`${file}: located on a success path (a second parse per file)`);
        },
      };
      expect(renderSource(source).objects.length).toBeGreaterThan(0);
    }
  });
});
