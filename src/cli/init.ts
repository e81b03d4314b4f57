import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { KINDS, profileOf } from "../profiles/index.ts";
import { packageRoot, type Io } from "./io.ts";

export const INIT_HELP = `Usage: rigging init KIND > values.yaml

Print a commented example values file that renders as is.
Kinds: ${KINDS.join(", ")}

Options:
  -h, --help   show this help

Exit codes: 0 printed; 2 usage error (an unknown kind); 3 internal error.
`;

export function initCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) return io.out(INIT_HELP), 0;
  if (positionals.length !== 1) throw new UsageError(`init takes one KIND (${KINDS.join(", ")})`);
  const profile = profileOf(positionals[0]);
  if (!profile) throw new UsageError(`unknown kind ${JSON.stringify(positionals[0])}; expected one of ${KINDS.join(", ")}`);
  // The bundled example is the one source: docs, tests and init share it.
  io.out(readFileSync(join(packageRoot(), profile.example), "utf8"));
  return 0;
}
