import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXAMPLES } from "../core/build-examples.ts";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { VALUES_API_VERSION } from "../values/values-resource.ts";
import { closest } from "../values/values.ts";
import { KINDS, valuesKindOf } from "../rules/systems.ts";
import { packageRoot, type Io } from "./io.ts";

/** The schema file the first line of `init`'s output points editors at. */
export const SCHEMA_FILE = "rigging.schema.json";

export const INIT_HELP = `Usage: rigging init KIND > values.yaml

Print a commented example values file that renders as is.
Kinds: ${KINDS.join(", ")}

The file is also a KRM resource (apiVersion: ${VALUES_API_VERSION}, kind,
metadata.name), so the same file is what rigging render reads, kpt's
--fn-config or a Kptfile configPath, and a kustomize generator's config
(docs/integrations/kpt.md, kustomize.md). Its metadata is marked
local-config, so that kpt and kustomize never apply the file itself.

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
  const valuesKind = valuesKindOf(positionals[0]);
  if (!valuesKind) {
    const near = closest(positionals[0], KINDS);
    throw new UsageError(`unknown kind ${JSON.stringify(positionals[0])}; expected one of ${KINDS.join(", ")}${near ? ` (did you mean ${near}?)` : ""}`);
  }
  // The bundled example is the one source: docs, tests and init share it.
  io.out(initText(valuesKind.kind, exampleText(valuesKind.example)));
  return 0;
}

/** An example as init prints it: the modeline on line 1, where editors read it. */
export function initText(kind: string, example: string): string {
  const name = /^name: ([a-z0-9][a-z0-9-]*)$/m.exec(example)?.[1] ?? kind.replace(/(?<=[a-z])(?=[A-Z])/g, "-").toLowerCase();
  const header = [
    `apiVersion: ${VALUES_API_VERSION}`,
    `kind: ${kind}`,
    "metadata:",
    `  name: ${name}`,
    "  annotations:",
    '    config.kubernetes.io/local-config: "true"',
    "    # As a kustomize generator's config (docs/integrations/kustomize.md):",
    "    # config.kubernetes.io/function: |",
    "    #   exec:",
    "    #     path: ./rigging-fn",
  ].join("\n");
  const body = example
    .replace(/^# Render: .*$/m, "# Render:  rigging render values.yaml   (this file, as init --help saves it)")
    .replace(new RegExp(`^kind: ${kind}$`, "m"), header);
  return `# yaml-language-server: $schema=${SCHEMA_FILE}\n${body}`;
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
