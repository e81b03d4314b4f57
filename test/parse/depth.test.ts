// The nesting pre-test's cheap bound (fewMarkers, by indexOf) only skips the
// character-by-character count where that count cannot pass the limit: on
// any text, mayNestDeeperThan answers exactly as the count does.
import fc from "fast-check";
import { loopProperty } from "../support/breathe.ts";
import { describe, expect, it } from "vitest";
import { countedDeeperThan, mayNestDeeperThan, nestsDeeperThan } from "../../src/parse/depth.ts";
import { runs } from "../support/runs.ts";

const RUNS = runs(400);

/** Texts of the characters either count reads, near a small limit: lines of `-` and `?`, openers, and text between. */
const markers = fc.array(fc.constantFrom("[", "{", "-", "?", "\n", "\n", "a", " ", "]", "- ", "? ", "\r"), { maxLength: 40 }).map((parts) => parts.join(""));

describe("the nesting pre-test's cheap bound", () => {
  it("answers as the count of every character does, on texts near the limit", async () => {
    let deeper = 0;
    let within = 0;
    await fc.assert(
      loopProperty(markers, fc.integer({ min: 0, max: 12 }), (text, limit) => {
        const counted = countedDeeperThan(text, limit);
        expect(mayNestDeeperThan(text, limit)).toBe(counted);
        if (counted) deeper++;
        else within++;
      }),
      { numRuns: RUNS * 5 },
    );
    // Both answers were asked for often enough to mean something.
    expect(deeper).toBeGreaterThan(RUNS / 4);
    expect(within).toBeGreaterThan(RUNS / 4);
  });

  it("counts a line's `-` and `?` together, and openers across lines", () => {
    // Each bound alone stays within 4; the count passes it only with all of them.
    expect(mayNestDeeperThan("[\n- ? -", 3)).toBe(true);
    expect(mayNestDeeperThan("[\n- ?\n-", 3)).toBe(false);
    expect(mayNestDeeperThan("{[\n- -\n??", 3)).toBe(true);
    expect(mayNestDeeperThan("- -\n? ?", 3)).toBe(false);
    expect(mayNestDeeperThan("- - ? ?", 3)).toBe(true);
    expect(mayNestDeeperThan("-".repeat(4), 3)).toBe(true);
    expect(mayNestDeeperThan(`${"-".repeat(3)}\n${"-".repeat(3)}`, 3)).toBe(false);
  });

  it("keeps refusing deep flow nesting and clearing a shallow manifest", () => {
    expect(nestsDeeperThan(`${"[".repeat(201)}${"]".repeat(201)}`, 200)).toBe(true);
    expect(nestsDeeperThan(`a: [${"- ".repeat(150)}]\nb: ${"[".repeat(60)}${"]".repeat(60)}`, 200)).toBe(false);
  });
});
