// Which docs files the generator owns, and what they should contain now.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hasBlock, refreshBlocks, refreshValuesTables, rulesMarkdown } from "./generate.ts";
import { refreshInterfaceTables } from "./interfaces.ts";
import { refreshRequirementLists } from "./requirement-lists.ts";

/** Path (under docsDir) to its expected content; only files that the generator touches. */
export function expectedDocs(docsDir: string): Map<string, string> {
  const files = new Map<string, string>([["rules.md", rulesMarkdown()]]);
  const pages = existsSync(docsDir)
    ? readdirSync(docsDir, { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".md") && name !== "rules.md")
        .sort()
    : [];
  for (const name of pages) {
    const text = readFileSync(join(docsDir, name), "utf8");
    const values = text.includes("<!-- values-table:");
    const contract = text.includes("<!-- interface-table:");
    const blocks = hasBlock(text);
    if (values || contract) files.set(name, contract ? refreshInterfaceTables(values ? refreshValuesTables(text) : text) : refreshValuesTables(text));
    if (blocks) files.set(name, refreshBlocks(files.get(name) ?? text));
    if (text.includes("<!-- requirements:")) files.set(name, refreshRequirementLists(files.get(name) ?? text));
  }
  return files;
}
