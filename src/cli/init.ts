import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { EXAMPLES } from "../core/build-examples.ts";
import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.ts";
import { printable } from "../core/printable.ts";
import { VALUES_API_VERSION } from "../values/values-resource.ts";
import { closest } from "../values/values.ts";
import { packageRoot } from "../core/package-root.ts";
import type { Io } from "./io.ts";
import { allKindsSchema } from "../systems/editor-schema.ts";
import { kinds, valuesKindOf } from "../systems/registry.ts";

/** The schema file the first line of `init`'s output points editors at. */
export const SCHEMA_FILE = "rigging.schema.json";

export const INIT_HELP = `Usage: rigging init KIND [-o FILE] [--schema PATH|URL]

Print a commented example values file that renders as is, or write it to
FILE with -o.
Kinds: ${kinds().join(", ")}

The file is also a KRM resource (apiVersion: ${VALUES_API_VERSION}, kind,
metadata.name), so the same file is what rigging render reads, kpt's
--fn-config or a Kptfile configPath, and a kustomize generator's config
(docs/integrations/kpt.md, kustomize.md). Its metadata is marked
local-config, so that kpt and kustomize never apply the file itself.

Its first line is a modeline that points editors that read
yaml-language-server modelines (VS Code's YAML extension, Neovim, Helix) at
rigging's JSON Schema. An editor resolves it from the values file's own
directory, so write the file with -o:
  rigging init RootpilotRunner -o clusters/east.yaml
writes clusters/east.yaml with the modeline $schema=../${SCHEMA_FILE},
the schema in the current directory named from the file's directory, and
writes ${SCHEMA_FILE} there (what rigging schema prints) when it does not
exist yet. Printed to stdout,
  rigging init CompassRunner > values.yaml
the modeline names the schema as given: ${SCHEMA_FILE} beside the file
by default, which you write there with
  rigging schema > ${SCHEMA_FILE}

Options:
  -o, --output FILE        write the values file to FILE (its directory is made; an
                           existing FILE is refused, never overwritten), with the
                           modeline relative to it
      --schema PATH|URL    the schema the modeline names (default ${SCHEMA_FILE}):
                           with -o a path from the current directory, written if
                           missing; on stdout the path as the values file will see
                           it. An http(s):// URL is used as is
  -h, --help               show this help

Exit codes: 0 printed or written; 2 usage error (an unknown kind, FILE exists,
unwritable FILE); 3 internal error.
`;

export function initCommand(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h", default: false }, output: { type: "string", short: "o" }, schema: { type: "string" } },
  });
  if (values.help) return io.out(INIT_HELP), 0;
  if (positionals.length !== 1) throw new UsageError(`init takes one KIND (${kinds().join(", ")})`);
  const valuesKind = valuesKindOf(positionals[0]);
  if (!valuesKind) {
    const near = closest(positionals[0], kinds());
    throw new UsageError(`unknown kind ${JSON.stringify(positionals[0])}; expected one of ${kinds().join(", ")}${near ? ` (did you mean ${near}?)` : ""}`);
  }
  const schema = values.schema ?? SCHEMA_FILE;
  if (schema === "") throw new UsageError("--schema needs a path or a URL");
  // Both are written into the file's comments, where a line break would end one.
  for (const [flag, given] of [
    ["--schema", schema],
    ["-o", values.output ?? ""],
  ])
    if (/[\0-\x1f\x7f]/.test(given))
      throw new UsageError(`${flag} ${printable(JSON.stringify(given))}: a path with a control character is not written into a modeline`);
  // The bundled example is the one source: docs, tests and init share it.
  const example = exampleText(valuesKind.example);
  if (values.output === undefined) return io.out(initText(valuesKind.kind, example, schema)), 0;
  writeInit(values.output, schema, initText(valuesKind.kind, example, modelinePath(values.output, schema), values.output), io);
  return 0;
}

const isUrl = (schema: string) => /^https?:\/\//i.test(schema);

/** The schema as the modeline of `file` names it: a URL as is, a path from the current directory made relative to the file's directory. */
export function modelinePath(file: string, schema: string): string {
  if (isUrl(schema)) return schema;
  return relative(dirname(resolve(file)), resolve(schema))
    .split(sep)
    .join("/");
}

/** Writes the values file, never over an existing one, and the schema its modeline names when that is missing. */
function writeInit(file: string, schema: string, text: string, io: Io): void {
  const made = (what: string, path: string, content: string) => {
    try {
      mkdirSync(dirname(resolve(path)), { recursive: true });
      writeFileSync(path, content, { flag: "wx" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") throw new UsageError(`${printable(path)} exists: init never overwrites a file; remove it, or give -o another path`);
      throw new UsageError(`cannot write ${what} ${printable(path)}: ${printable((error as Error).message)}`);
    }
  };
  made("the values file", file, text);
  io.err(`wrote ${printable(file)}\n`);
  if (isUrl(schema) || existsSync(schema)) return;
  made("the schema", schema, `${JSON.stringify(allKindsSchema(), null, 2)}\n`);
  io.err(`wrote ${printable(schema)}: the JSON Schema its first line points editors at (rigging schema)\n`);
}

/** An example as init prints it: the modeline on line 1, where editors read it; `file` is where it is written, if it is. */
export function initText(kind: string, example: string, schema = SCHEMA_FILE, file = "values.yaml"): string {
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
    .replace(/^# Render: .*$/m, `# Render:  rigging render ${file}${file === "values.yaml" ? "   (this file, as init --help saves it)" : ""}`)
    .replace(new RegExp(`^kind: ${kind}$`, "m"), header);
  return `# yaml-language-server: $schema=${schema}\n${body}`;
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
