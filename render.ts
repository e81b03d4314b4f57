// The seed's own command, `bun run render.ts VALUES`: the same as
// `rigging render VALUES`.
//
// Under Bun it runs the bytecode build of the render command, dist/bun/main.js
// (made by scripts/build.mjs, so by `npm ci` and `npm test`): Bun would
// otherwise transpile and compile every source module on each run, which
// costs more than the render itself (docs/performance.md). A build older
// than any file under src/ or the lockfile is never used, so an edited
// tree runs what it holds; RIGGING_FROM_SOURCES=1 always runs the sources.
// The check is written out here, not imported, to keep the start cheap; its
// paths are joined as strings, not with node:path's join (one call per file
// of src/): freshBundle alone 7.5 -> 6.7 ms and 14.0 -> 6.1 ms, medians of
// 40 alternated fresh processes each, two sets (Bun.nanoseconds around it,
// load average 6-7); a whole `bun run render.ts` is within its noise there.
import { readdirSync, statSync } from "node:fs";

/** The time of a file or directory, 0 where there is none. */
const mtime = (path: string) => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;

function freshBundle(root: string): string | undefined {
  const bundle = `${root}/dist/bun/main.js`;
  let built: number;
  try {
    built = Math.min(statSync(bundle).mtimeMs, statSync(`${bundle}.jsc`).mtimeMs);
  } catch {
    return undefined;
  }
  const src = `${root}/src/`;
  for (const file of readdirSync(src, { recursive: true }) as string[]) if (mtime(src + file) > built) return undefined;
  return mtime(`${root}/package-lock.json`) > built ? undefined : bundle;
}

const argv = ["render", ...process.argv.slice(2)];
const bundle = process.versions.bun !== undefined && !process.env.RIGGING_FROM_SOURCES ? freshBundle(import.meta.dirname) : undefined;
const { main } = bundle ? (require(bundle) as typeof import("./src/cli/main.ts")) : await import("./src/cli/main.ts");
main(argv);
