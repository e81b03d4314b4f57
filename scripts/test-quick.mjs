// npm run test:quick: the types, the lint of the changed files and their
// tests, for the loop between two edits (npm test runs everything). Each
// file changed since HEAD (or named: npm run test:quick -- src/check/glob.ts)
// brings its tests: a test file itself; src/STAGE/NAME.ts its own
// test/STAGE/NAME.test.ts, or, without one, its stage's tests (test/STAGE/);
// a helper or fixture under test/ its stage's tests. The cluster tests are
// left to npm run test:cluster. --list prints the tests, and runs nothing.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

const git = (args) => spawnSync("git", args, { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
const list = process.argv.includes("--list");
const named = process.argv.slice(2).filter((arg) => arg !== "--list");
const changed = named.length > 0 ? named : [...new Set([...git(["diff", "--name-only", "HEAD"]), ...git(["ls-files", "--others", "--exclude-standard"])])];
const present = changed.filter((file) => existsSync(file));

/** The tests a changed file brings: itself if it is one, else its stage's folder under test/ (the nearest one that holds tests). */
function testsOf(file) {
  if (/^test\/.*\.test\.ts$/.test(file)) return [file];
  // A fixture under test/fixtures/STAGE belongs to test/STAGE.
  const mirrored = file
    .replace(/^src\//, "test/")
    .replace(/^test\/fixtures\//, "test/")
    .replace(/\.ts$/, ".test.ts");
  if (!/^(src|test)\//.test(file)) return [];
  if (file.startsWith("src/") && existsSync(mirrored)) return [mirrored];
  for (let dir = dirname(mirrored); dir !== "test" && dir !== "."; dir = dirname(dir))
    if (existsSync(dir) && readdirSync(dir).some((entry) => entry.endsWith(".test.ts"))) return [dir];
  return [];
}

const tests = [...new Set(present.flatMap(testsOf))].filter((path) => !path.startsWith("test/cluster")).sort();
// A folder's tests already cover a file under it.
const runs = tests.filter((path) => !tests.some((other) => other !== path && statSync(other).isDirectory() && path.startsWith(`${other}/`)));

if (list) {
  console.log(runs.join("\n"));
  process.exit(0);
}
const step = (what, command, args) => {
  console.error(`test:quick: ${what}`);
  const r = spawnSync(command, args, { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const bin = (name) => join("node_modules", ".bin", name);

step("types (tsc --noEmit)", bin("tsc"), ["--noEmit"]);
if (present.length > 0)
  step(`lint of ${present.length} changed file(s)`, bin("biome"), ["check", "--no-errors-on-unmatched", "--files-ignore-unknown=true", ...present]);
if (runs.length === 0) {
  console.error("test:quick: no tests mirror the changed files (npm test runs them all)");
  process.exit(0);
}
step(`tests of ${runs.join(", ")}`, bin("vitest"), ["run", ...runs]);
