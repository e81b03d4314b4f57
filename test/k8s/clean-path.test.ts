// Go's path.Clean (the kubelet's filepath.Clean on Linux), with Go's own test table.
import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanPath, sameOrUnder } from "../../src/k8s/clean-path.ts";
import { runs } from "../support/runs.ts";

// go/src/path/path_test.go cleantests
const CLEAN: [string, string][] = [
  ["", "."],
  ["abc", "abc"],
  ["abc/def", "abc/def"],
  ["a/b/c", "a/b/c"],
  [".", "."],
  ["..", ".."],
  ["../..", "../.."],
  ["../../abc", "../../abc"],
  ["/abc", "/abc"],
  ["/", "/"],
  ["abc/", "abc"],
  ["abc/def/", "abc/def"],
  ["a/b/c/", "a/b/c"],
  ["./", "."],
  ["../", ".."],
  ["../../", "../.."],
  ["/abc/", "/abc"],
  ["abc//def//ghi", "abc/def/ghi"],
  ["//abc", "/abc"],
  ["///abc", "/abc"],
  ["//abc//", "/abc"],
  ["abc//", "abc"],
  ["abc/./def", "abc/def"],
  ["/./abc/def", "/abc/def"],
  ["abc/.", "abc"],
  ["abc/def/ghi/../jkl", "abc/def/jkl"],
  ["abc/def/../ghi/../jkl", "abc/jkl"],
  ["abc/def/..", "abc"],
  ["abc/def/../..", "."],
  ["/abc/def/../..", "/"],
  ["abc/def/../../..", ".."],
  ["/abc/def/../../..", "/"],
  ["abc/def/../../../ghi/jkl/../../../mno", "../../mno"],
  ["abc/./../def", "def"],
  ["abc//./../def", "def"],
  ["abc/../../././../def", "../../def"],
];

describe("cleanPath", () => {
  it.each(CLEAN)("%j is %j", (path, clean) => {
    expect(cleanPath(path)).toBe(clean);
    expect(cleanPath(clean)).toBe(clean);
  });

  it("cleans the spellings of mount paths the kubelet treats alike", () => {
    expect(cleanPath("./var/run/secrets")).toBe("var/run/secrets");
    expect(cleanPath("/var//run/secrets/")).toBe("/var/run/secrets");
    expect(cleanPath("/var/run/../run/secrets")).toBe("/var/run/secrets");
    expect(cleanPath("/../etc")).toBe("/etc");
    expect(cleanPath("...")).toBe("...");
    expect(cleanPath("/a/..b/.c")).toBe("/a/..b/.c");
  });

  it("gives node's posix.resolve answer for absolute paths", () => {
    const chars = fc.constantFrom("/", ".", "a", "b");
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 30 }), (tail) => {
        const path = `/${tail}`;
        expect(cleanPath(path), path).toBe(posix.resolve(path));
      }),
      { numRuns: runs(3000) },
    );
  });

  it("takes linear time", () => {
    const started = Date.now();
    cleanPath("a/../".repeat(100_000));
    cleanPath("/".repeat(500_000));
    cleanPath("../".repeat(100_000));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("sameOrUnder", () => {
  it("compares cleaned paths by whole elements", () => {
    expect(sameOrUnder("/var/run/secrets/tokens/x", "/var/run/secrets/")).toBe(true);
    expect(sameOrUnder("/var//run/secrets", "/var/run/secrets")).toBe(true);
    expect(sameOrUnder("/var/run/secrets/../x", "/var/run/secrets")).toBe(false);
    expect(sameOrUnder("/var/run/secretsx", "/var/run/secrets")).toBe(false);
    expect(sameOrUnder("/anything", "/")).toBe(true);
    expect(sameOrUnder("relative", "/")).toBe(false);
    expect(sameOrUnder("./a/b", "a")).toBe(true);
    expect(sameOrUnder("a", ".")).toBe(true);
    expect(sameOrUnder("../a", ".")).toBe(false);
  });
});
