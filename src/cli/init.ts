import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../core/errors.ts";
import { KINDS, profileOf } from "../profiles/index.ts";
import { packageRoot, type Io } from "./io.ts";

export const INIT_HELP = `Usage: rigging init KIND > values.yaml

Print a commented example values file that renders as is.
Kinds: ${KINDS.join(", ")}
`;

export function initCommand(args: string[], io: Io): number {
  if (args.includes("-h") || args.includes("--help")) return io.out(INIT_HELP), 0;
  if (args.length !== 1) throw new UsageError(`init takes one KIND (${KINDS.join(", ")})`);
  const profile = profileOf(args[0]);
  if (!profile) throw new UsageError(`unknown kind ${JSON.stringify(args[0])}; expected one of ${KINDS.join(", ")}`);
  // The bundled example is the one source: docs, tests and init share it.
  io.out(readFileSync(join(packageRoot(), profile.example), "utf8"));
  return 0;
}
