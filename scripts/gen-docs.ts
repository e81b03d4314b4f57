// Regenerates the docs tables from the code (`npm run docs`; test/docs/docs.test.ts fails when stale).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectedDocs } from "../src/docs/files.ts";

const docsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "docs");
mkdirSync(docsDir, { recursive: true });
for (const [name, content] of expectedDocs(docsDir)) {
  const path = join(docsDir, name);
  if (existsSync(path) && readFileSync(path, "utf8") === content) continue;
  writeFileSync(path, content);
  console.log(`wrote docs/${name}`);
}
