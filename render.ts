// The seed's own command, `bun run render.ts VALUES`: the same as
// `rigging render VALUES`.
//
// Under Bun it runs the bytecode build of the render command, dist/bun/main.js
// (made by scripts/build.mjs, so by `npm ci` and `npm test`): Bun would
// otherwise transpile and compile every source module on each run, which
// costs more than the render itself (docs/performance.md). A build older
// than any file under src/ or the lockfile is never used, so an edited
// tree runs what it holds; RIGGING_FROM_SOURCES=1 always runs the sources.
// The check is written out here, not imported, to keep the start cheap.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function freshBundle(root: string): string | undefined {
  const bundle = join(root, "dist", "bun", "main.js");
  let built: number;
  try {
    built = Math.min(statSync(bundle).mtimeMs, statSync(`${bundle}.jsc`).mtimeMs);
  } catch {
    return undefined;
  }
  const sources = (readdirSync(join(root, "src"), { recursive: true }) as string[]).map((file) => join(root, "src", file));
  for (const file of [...sources, join(root, "package-lock.json")]) {
    if ((statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) > built) return undefined;
  }
  return bundle;
}

const argv = ["render", ...process.argv.slice(2)];
const bundle = process.versions.bun !== undefined && !process.env.RIGGING_FROM_SOURCES ? freshBundle(import.meta.dirname) : undefined;
const { main } = bundle ? (require(bundle) as typeof import("./src/cli/main.ts")) : await import("./src/cli/main.ts");
main(argv);
