// A generated block of a markdown page sits between `<!-- NAME:ARG -->` and
// `<!-- /NAME -->`; refreshing rewrites what lies between and nothing else.

/** Replaces (or fills in) every `name` block of `markdown` with `fill(ARG)`. */
export function refreshBlocks(markdown: string, name: string, fill: (arg: string) => string): string {
  const open = new RegExp(`^<!-- ${name}:([A-Za-z-]+) -->$`);
  const close = `<!-- /${name} -->`;
  const lines = markdown.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    const opened = open.exec(lines[i].trim());
    if (!opened) continue;
    const closedAt = lines.findIndex((line, j) => j > i && line.trim() === close);
    const nextOpen = lines.findIndex((line, j) => j > i && open.test(line.trim()));
    out.push("", fill(opened[1]), "", close);
    // Without its closing marker (or with the next block first), the block is new: what follows the opening marker stays.
    if (closedAt >= 0 && (nextOpen < 0 || closedAt < nextOpen)) i = closedAt;
  }
  return out.join("\n");
}
