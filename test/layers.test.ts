// Each stage imports only its own layer or lower, and a system only itself and
// the shared files of src/systems: read from every source file's relative imports.
import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Lowest first; a file may import its own layer or a lower one. seams.ts is build data that imports nothing: the floor. */
const LAYERS: readonly (readonly string[])[] = [
  ["core", "parse", "values", "emit", "k8s", "seams.ts"],
  ["normalise"],
  ["rules", "admission"],
  ["systems"],
  ["pipeline.ts", "preflight"],
  ["check", "pin"],
  ["diff"],
  ["cli"],
  ["docs"],
];

/** Folders of src/systems any system may import: the Compass systems' shared contract. */
const SHARED_SYSTEM_FOLDERS = ["compass-contract"];
/** System folders that may import other systems: the combined Compass kind is made of the Runner and the Server. */
const COMBINED: Record<string, readonly string[]> = { compass: ["compass-runner", "compass-server"] };
const REGISTRY = "src/systems/registry.ts";
/** The stages between the systems and cli know no system: they reach the systems through the files directly in src/systems (the registry). */
const SYSTEM_BLIND = LAYERS.slice(
  LAYERS.findIndex((l) => l.includes("systems")) + 1,
  LAYERS.findIndex((l) => l.includes("cli")),
).flat();

interface Source {
  /** From the repository root: src/k8s/names.ts. */
  path: string;
  text: string;
}

interface Import {
  to: string;
  typeOnly: boolean;
}

/** A file's relative imports, resolved from the repository root: static, export-from, dynamic, require and type-only ones. */
function importsOf(source: Source): Import[] {
  const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined, typeOnly: boolean) => {
    if (specifier && ts.isStringLiteralLike(specifier) && specifier.text.startsWith("."))
      found.push({ to: posix.join(posix.dirname(source.path), specifier.text), typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importIsTypeOnly(node.importClause));
    else if (ts.isExportDeclaration(node))
      add(
        node.moduleSpecifier,
        node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && allTypes(node.exportClause.elements)),
      );
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, node.isTypeOnly);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))
    )
      add(node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const allTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) => elements.length > 0 && elements.every((e) => e.isTypeOnly);

function importIsTypeOnly(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // import "./x.ts" runs the file
  if (clause.isTypeOnly) return true;
  return !clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && allTypes(clause.namedBindings.elements);
}

/** The layer of a path under src/ (by its first folder, or its name for a file directly in src/). */
function layerOf(path: string): number {
  const top = path.split("/")[1];
  return LAYERS.findIndex((layer) => layer.includes(top));
}

/** Why an import from one system folder to another file of src/systems is refused, if it is. */
function systemsRefusal(from: string, to: string, typeOnly: boolean): string | undefined {
  const [, , own, ...ownRest] = from.split("/");
  const [, , target, ...targetRest] = to.split("/");
  if (ownRest.length === 0) return undefined; // the files directly in src/systems put the systems together
  if (targetRest.length === 0)
    return to === REGISTRY && !typeOnly ? "a system imports the registry, which only the layers above read (type-only imports allowed)" : undefined;
  if (target === own || SHARED_SYSTEM_FOLDERS.includes(target) || COMBINED[own]?.includes(target)) return undefined;
  return `the system ${own} imports the system ${target}`;
}

/** Every import that reaches above its file's layer, or across systems, as "from -> to: why". */
function upwardImports(sources: readonly Source[]): string[] {
  const violations: string[] = [];
  for (const source of sources) {
    const from = layerOf(source.path);
    if (from < 0) {
      violations.push(`${source.path}: in no layer (place its folder in LAYERS)`);
      continue;
    }
    for (const { to, typeOnly } of importsOf(source)) {
      if (!to.startsWith("src/")) {
        violations.push(`${source.path} -> ${to}: outside src/`);
        continue;
      }
      const target = layerOf(to);
      if (target > from) violations.push(`${source.path} -> ${to}: ${LAYERS[target].join(", ")} sits above ${LAYERS[from].join(", ")}`);
      else if (target < 0) violations.push(`${source.path} -> ${to}: in no layer`);
      else if (to.startsWith("src/systems/") && source.path.startsWith("src/systems/")) {
        const why = systemsRefusal(source.path, to, typeOnly);
        if (why) violations.push(`${source.path} -> ${to}: ${why}`);
      } else if (to.split("/").length > 3 && to.startsWith("src/systems/") && SYSTEM_BLIND.includes(source.path.split("/")[1]))
        violations.push(`${source.path} -> ${to}: ${source.path.split("/")[1]} knows no system, only the registry and the files beside it`);
    }
  }
  return violations;
}

function sources(): Source[] {
  const files = readdirSync(posix.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return files.map((f) => ({ path: `src/${f}`, text: readFileSync(posix.join(ROOT, "src", f), "utf8") }));
}

describe("the layers", () => {
  it("no source file imports a higher layer, or another system's files", () => {
    const all = sources();
    const tops = new Set(all.map((s) => s.path.split("/")[1]));
    expect([...tops].sort()).toEqual(LAYERS.flat().sort());
    expect(upwardImports(all)).toEqual([]);
  });

  it("reads every kind of import: static, export-from, dynamic, require and type-only, resolved from the root", () => {
    const text = [
      'import { a } from "../cli/io.ts";',
      'import type { B } from "../check/run.ts";',
      'import { type C, type D } from "../diff/run.ts";',
      'import { type E, f } from "../pin/tags.ts";',
      'export { g } from "./g.ts";',
      'export type { H } from "../rules/engine.ts";',
      'import "./side-effect.ts";',
      'import { parse } from "yaml";',
      'const lazy = async () => await import("../docs/files.ts");',
      'type Lazy = typeof import("../preflight/common.ts");',
      'const required = require("../admission/judge.ts");',
    ].join("\n");
    expect(importsOf({ path: "src/k8s/x.ts", text })).toEqual([
      { to: "src/cli/io.ts", typeOnly: false },
      { to: "src/check/run.ts", typeOnly: true },
      { to: "src/diff/run.ts", typeOnly: true },
      { to: "src/pin/tags.ts", typeOnly: false },
      { to: "src/k8s/g.ts", typeOnly: false },
      { to: "src/rules/engine.ts", typeOnly: true },
      { to: "src/k8s/side-effect.ts", typeOnly: false },
      { to: "src/docs/files.ts", typeOnly: false },
      { to: "src/preflight/common.ts", typeOnly: true },
      { to: "src/admission/judge.ts", typeOnly: false },
    ]);
  });

  it("the check can fail: an upward import, a dynamic one and one across systems are each named", () => {
    const fake: Source[] = [
      { path: "src/k8s/x.ts", text: 'import { processIo } from "../cli/io.ts";\nimport { Catalog } from "../rules/catalog.ts";' },
      { path: "src/rules/y.ts", text: 'const lazy = () => import("../systems/registry.ts");' },
      { path: "src/check/z.ts", text: 'export type { Io } from "../cli/io.ts";\nimport { run } from "../pipeline.ts";' },
      { path: "src/systems/compass-runner/x.ts", text: 'import { SERVER_PORTS } from "../compass-server/ports.ts";' },
      { path: "src/lab/x.ts", text: 'import { run } from "../cli/main.ts";' },
      { path: "src/diff/x.ts", text: 'import { SYSTEMS } from "../systems/registry.ts";\nimport { NATS_APP } from "../systems/compass-server/ports.ts";' },
      { path: "src/cli/x.ts", text: 'import { DATABASE_URL_ENV } from "../systems/compass-server/ports.ts";' },
    ];
    expect(upwardImports(fake)).toEqual([
      "src/k8s/x.ts -> src/cli/io.ts: cli sits above core, parse, values, emit, k8s, seams.ts",
      "src/k8s/x.ts -> src/rules/catalog.ts: rules, admission sits above core, parse, values, emit, k8s, seams.ts",
      "src/rules/y.ts -> src/systems/registry.ts: systems sits above rules, admission",
      "src/check/z.ts -> src/cli/io.ts: cli sits above check, pin",
      "src/systems/compass-runner/x.ts -> src/systems/compass-server/ports.ts: the system compass-runner imports the system compass-server",
      "src/lab/x.ts: in no layer (place its folder in LAYERS)",
      "src/diff/x.ts -> src/systems/compass-server/ports.ts: diff knows no system, only the registry and the files beside it",
    ]);
  });

  it("a system folder may read the registry's types only; the combined Compass kind may use the Runner and the Server, not the reverse", () => {
    const fake: Source[] = [
      { path: "src/systems/rootpilot-runner/system.ts", text: 'import type { System } from "../registry.ts";\nimport { valuesKinds } from "../registry.ts";' },
      { path: "src/systems/compass/render.ts", text: 'import { a } from "../compass-runner/render.ts";\nimport { b } from "../compass-server/render.ts";' },
      { path: "src/systems/compass-server/system.ts", text: 'import { c } from "../compass/kind.ts";\nimport { d } from "../compass-contract/ports.ts";' },
      { path: "src/systems/editor-schema.ts", text: 'import { kinds } from "./registry.ts";' },
    ];
    expect(upwardImports(fake)).toEqual([
      "src/systems/rootpilot-runner/system.ts -> src/systems/registry.ts: a system imports the registry, which only the layers above read (type-only imports allowed)",
      "src/systems/compass-server/system.ts -> src/systems/compass/kind.ts: the system compass-server imports the system compass",
    ]);
  });

  it("the reader finds real imports: a rule file imports the rule engine", () => {
    const path = "src/systems/compass-runner/rules.ts";
    const found = importsOf({ path, text: readFileSync(posix.join(ROOT, path), "utf8") }).map((i) => i.to);
    expect(found.some((to) => to.startsWith("src/rules/"))).toBe(true);
  });
});
