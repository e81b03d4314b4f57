import { parseArgs } from "node:util";
import { z } from "zod";
import { UsageError } from "../core/errors.ts";
import { KINDS, profileOf } from "../profiles/index.ts";
import type { Io } from "./io.ts";

export const SCHEMA_HELP = `Usage: rigging schema KIND

Print the JSON Schema of a values kind, for editors and CI.
Kinds: ${KINDS.join(", ")}

Options:
  -h, --help   show this help

Exit codes: 0 printed; 2 usage error (an unknown kind); 3 internal error.
`;

export function schemaOf(kind: string): object {
  const profile = profileOf(kind);
  if (!profile) throw new UsageError(`unknown kind ${JSON.stringify(kind)}; expected one of ${KINDS.join(", ")}`);
  // "input": what a person writes (defaults optional, images as strings).
  return z.toJSONSchema(profile.schema(), { io: "input", unrepresentable: "any", target: "draft-2020-12" });
}

export function schemaCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) return io.out(SCHEMA_HELP), 0;
  if (positionals.length !== 1) throw new UsageError(`schema takes one KIND (${KINDS.join(", ")})`);
  io.out(JSON.stringify(schemaOf(positionals[0]), null, 2) + "\n");
  return 0;
}
