// The docs' interface tables from each program's contract file, with upstream
// status per row; pure, written by scripts/gen-docs.ts.
import { refreshBlocks } from "./blocks.ts";
import { SYSTEMS, type InterfaceRow } from "../systems/registry.ts";

/** Contract tables by name, from the systems' records (`interfaces`). */
export const INTERFACE_TABLES: Readonly<Record<string, () => readonly InterfaceRow[]>> = Object.fromEntries(
  SYSTEMS.flatMap((system) => Object.entries(system.interfaces ?? {})),
);

export const INTERFACE_CLOSE = "<!-- /interface-table -->";

const code = (text: string | undefined) => (text ? `\`${text}\`` : "-");

export function interfaceTable(name: string): string {
  const rows = INTERFACE_TABLES[name];
  if (!rows) throw new Error(`no interface table named ${name}`);
  const lines = [
    "| flag | variable | rendered by rigging | meaning | upstream source | status |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows().map(
      (r) =>
        `| ${[code(r.flag), code(r.env), r.rendered ? code(r.rendered) : "not set", r.meaning, code(r.source), r.task ? `${r.status} (${r.task})` : r.status].map(cell).join(" | ")} |`,
    ),
  ];
  return lines.join("\n");
}

/** Replaces (or fills in) every interface-table block of a markdown page. */
export function refreshInterfaceTables(markdown: string): string {
  return refreshBlocks(markdown, "interface-table", interfaceTable);
}

/** One table cell: pipes escaped, one line, `<` kept visible outside code spans. */
function cell(text: string): string {
  return text
    .replace(/\|/g, "\\|")
    .replace(/\n/g, " ")
    .split("`")
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, "&lt;") : part))
    .join("`");
}
