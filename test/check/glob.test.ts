// The walk's globs (--exclude, --include, .rigging.yaml) keep picomatch's
// meaning while matching without a RegExp: random small globs and paths are
// judged alike by both, and the shapes the matcher refuses say what to write.
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { GLOB_LIMITS, globMatcher } from "../../src/check/glob.ts";
import { UsageError } from "../../src/core/errors.ts";
import { runs } from "../support/runs.ts";

/** The walk's test before: picomatch on the name for a glob without `/`, on the path for one with. */
function reference(globs: string[]): (path: string) => boolean {
  const byName = globs.filter((g) => !g.includes("/"));
  const byPath = globs.filter((g) => g.includes("/"));
  const name = byName.length > 0 ? picomatch(byName, { dot: true }) : undefined;
  const path = byPath.length > 0 ? picomatch(byPath, { dot: true }) : undefined;
  return (rel) => (name?.(rel.slice(rel.lastIndexOf("/") + 1)) ?? false) || (path?.(rel) ?? false);
}

const literal = fc.constantFrom("a", "b", "c", ".", "-", "ab", "yaml");
const piece = fc.oneof(
  { weight: 4, arbitrary: literal },
  { weight: 3, arbitrary: fc.constant("*") },
  { weight: 2, arbitrary: fc.constant("?") },
  { weight: 1, arbitrary: fc.constantFrom("[ab]", "[^a]", "[a-c]", "[.b]", "\\*", "**") },
  { weight: 1, arbitrary: fc.tuple(literal, literal).map(([x, y]) => `{${x},${y}}`) },
  { weight: 1, arbitrary: fc.tuple(literal, fc.constant("*")).map(([x, y]) => `{${x},${y}}`) },
);
const globSegment = fc.oneof(
  { weight: 5, arbitrary: fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join("")) },
  { weight: 1, arbitrary: fc.constant("**") },
);
// Two shapes picomatch reads unlike its own rules, left out of the comparison:
// `X/**` matches X's directory itself except where X ends in `*` (`?/**`
// matches `a`, `*/**` does not), and `**` before braces crosses `/` (`**{a,b}`
// matches `x/a`, `**a` does not), a star beside braces does not join a star
// they give (`{a,*}*` never makes `**`), and `x/**/{a,*}` matches `x` though
// `x/**/*` does not. The matcher expands braces as text.
function picomatchQuirk(g: string): boolean {
  const s = g.split("/").filter((part, i, all) => part !== "**" || all[i - 1] !== "**");
  if (/[*}]\{|\}[*{]|\*\*\/\{[^}]*\*/.test(g)) return true;
  return s.length > 1 && s.at(-1) === "**" && s.at(-2)!.endsWith("*") && s.at(-2) !== "**";
}
const glob = fc
  .array(globSegment, { minLength: 1, maxLength: 4 })
  .map((s) => s.join("/"))
  .filter((g) => !picomatchQuirk(g));
/** Names as a directory listing gives them: never empty, `.` or `..`. */
const name = fc
  .array(fc.constantFrom("a", "b", "c", ".", "-", "*"), { minLength: 1, maxLength: 6 })
  .map((c) => c.join(""))
  .filter((n) => n !== "." && n !== "..");
const path = fc.array(name, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"));

describe("globs as picomatch reads them", () => {
  it("agree with picomatch (dot: true) on random globs and paths", () => {
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 2 }), fc.array(path, { minLength: 1, maxLength: 8 }), (globs, paths) => {
        const mine = globMatcher(globs, "--exclude")!;
        const theirs = reference(globs);
        for (const p of paths) expect(mine(p), `${JSON.stringify(globs)} on ${p}`).toBe(theirs(p));
      }),
      { numRuns: runs(3000) },
    );
  });

  it.each([
    ["apps/broken/**", "apps/broken", true],
    ["apps/broken/**", "apps/broken/x/y.yaml", true],
    ["apps/broken/**", "apps/brokenx", false],
    ["**/*.yaml", "a.yaml", true],
    ["a/**/b", "a/b", true],
    ["*.tpl.yaml", "deep/dir/x.tpl.yaml", true],
    ["./charts/*", "charts/x", true],
    ["{charts,vendor}/**", "vendor/a/b", true],
    ["x{1..3}.yaml", "x2.yaml", true],
    ["x{1..3}.yaml", "x4.yaml", false],
    ["[!a]*", "b", true],
    ["[!a]*", "a", false],
    ["\\[x]", "[x]", true],
  ])("%s on %s: %s", (g, p, expected) => {
    expect(globMatcher([g], "--exclude")!(p)).toBe(expected);
    if (!g.startsWith("[!")) expect(reference([g])(p)).toBe(expected);
  });
});

describe("globs the matcher refuses, saying what to write", () => {
  it.each([
    ["+(a|b).yaml", "an extended glob; write the choices in braces"],
    ["@(a).yaml", "an extended glob"],
    ["!charts/**", "use --exclude for what to leave out"],
    ["[[:alpha:]]*", "write the characters, such as [a-zA-Z]"],
    ["{1..100000}", "write a class such as [0-9]"],
    ["{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", `more than ${GLOB_LIMITS.alternatives} globs`],
    ["a".repeat(GLOB_LIMITS.characters + 1), `over the limit of ${GLOB_LIMITS.characters}`],
    ["", "is empty"],
  ])("%s", (g, message) => {
    expect(() => globMatcher([g], "--include")).toThrow(UsageError);
    expect(() => globMatcher([g], "--include")).toThrow(message);
    expect(() => globMatcher([g], "--include")).toThrow(/^--include "/);
  });
});
