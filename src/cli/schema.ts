// `rigging schema`: prints the editor JSON Schema of src/systems/editor-schema.ts.
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { allKindsSchema, schemaOf, upstreamShaped } from "../systems/editor-schema.ts";
import type { Io } from "./io.ts";
import { kinds } from "../systems/registry.ts";

export const SCHEMA_HELP = `Usage: rigging schema [KIND]

Print the JSON Schema (2020-12, standard formats only) of a values kind, for
editors and CI. Without KIND, print one schema for every kind, which applies
the schema of the kind a file names in its top-level kind, and for a file
without kind the upstream runner-manifests shape's (${upstreamShaped()
  .map((k) => k.kind)
  .join(", ")}), as render reads it:
  rigging schema > rigging.schema.json   (the file rigging init points editors at)
Kinds: ${kinds().join(", ")}

Options:
  -h, --help   show this help

Exit codes: 0 printed; 2 usage error (an unknown kind); 3 internal error.
`;

export function schemaCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) return io.out(SCHEMA_HELP), 0;
  if (positionals.length > 1) throw new UsageError(`schema takes at most one KIND (${kinds().join(", ")})`);
  io.out(`${JSON.stringify(positionals.length === 0 ? allKindsSchema() : schemaOf(positionals[0]), null, 2)}\n`);
  return 0;
}
