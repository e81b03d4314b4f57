// Bundles the CLI into one ESM file so that Node starts it with a single
// module load (start-up cost is most of a render's cost, see `npm run bench`).
import { build } from "esbuild";

await build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/rigging.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  // Some dependencies ship CommonJS that requires Node built-ins.
  banner: { js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);' },
  logLevel: "warning",
});
