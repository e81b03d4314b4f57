import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXAMPLES } from "../core/build-examples.ts";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { KINDS, profileOf } from "../profiles/index.ts";
import { packageRoot, type Io } from "./io.ts";

/** The schema file the first line of `init`'s output points editors at. */
export const SCHEMA_FILE = "rigging.schema.json";

export const INIT_HELP = `Usage: rigging init KIND > values.yaml

Print a commented example values file that renders as is.
Kinds: ${KINDS.join(", ")}

Its first line points editors that read yaml-language-server modelines
(VS Code's YAML extension, Neovim, Helix) at ${SCHEMA_FILE}
beside the file; write that file once with:
  rigging schema > ${SCHEMA_FILE}

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
  io.out(`# yaml-language-server: $schema=${SCHEMA_FILE}\n${exampleText(profile.example)}`);
  return 0;
}

/** An example by its path in the package: built into a bundle, read from the package otherwise. */
export function exampleText(path: string): string {
  if (EXAMPLES) {
    const text = EXAMPLES[path];
    if (text === undefined) throw new Error(`${path} was not built in (examples/ holds no such file at build time)`);
    return text;
  }
  return readFileSync(join(packageRoot(), path), "utf8");
}
