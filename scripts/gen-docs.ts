// Regenerates the docs tables from the code (`npm run docs`, a part of `npm run gen`);
// with --check, names the stale pages and fails (scripts/check-generated.mjs).
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectedDocs } from "../src/docs/files.ts";
import { CHECK_ONLY, writeGenerated } from "./write-generated.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const docsDir = join(ROOT, "docs");
if (!CHECK_ONLY) mkdirSync(docsDir, { recursive: true });
for (const [name, content] of expectedDocs(docsDir)) writeGenerated(join(docsDir, name), content, ROOT);
