// The chunk plan: src/seams.ts's chunks, each system folder's, and the files
// that only one chunk imports, read from the import graph of src/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import ts from "typescript";

/** The seams manifest, src/seams.ts. */
export const seams = await tsImport(pathToFileURL(join(process.cwd(), "src/seams.ts")).href, import.meta.url);

/** A source file's path as the chunks name it: relative to the package root, with forward slashes. */
export const sourcePath = (file) => relative(process.cwd(), file).split("\\").join("/");
/** An import's names when a file takes the whole module. */
export const ALL = Symbol("the whole module");
/** Merges names taken from one module: ALL absorbs every list. */
export const mergeNames = (had, names) => (had === ALL || names === ALL ? ALL : [...(had ?? []), ...names]);

/** Each system's folder in a chunk of its own, but for its heads. */
function kindChunks() {
  const folder = seams.SYSTEMS_FOLDER;
  const heads = new Set(seams.KIND_HEADS);
  return Object.fromEntries(
    readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map(({ name }) => [
        `${seams.KIND_PREFIX}${name}`,
        readdirSync(`${folder}/${name}`)
          .filter((file) => file.endsWith(".ts") && !heads.has(file))
          .map((file) => `${folder}/${name}/${file}`),
      ]),
  );
}

/** One import, export-from, import() or require() of a file, if the node is one. */
function importOf(file, node) {
  const named = (elements) => elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
    const clause = node.importClause;
    const bindings = clause?.namedBindings;
    const names = clause && !clause.name && bindings && ts.isNamedImports(bindings) ? named(bindings.elements) : ALL;
    return { file, specifier: node.moduleSpecifier.text, names, sideEffect: !clause };
  }
  if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    const names = node.exportClause && ts.isNamedExports(node.exportClause) ? named(node.exportClause.elements) : ALL;
    return { file, specifier: node.moduleSpecifier.text, names, reexport: true };
  }
  if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0])) {
    const callee = node.expression;
    if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require"))
      return { file, specifier: node.arguments[0].text, names: ALL };
  }
  return undefined;
}

/** Every non-type import of src/: importer, specifier, names taken (or ALL), and whether it is a re-export or a side-effect import. */
function sourceImports() {
  const found = [];
  for (const name of readdirSync("src", { recursive: true })) {
    const file = sourcePath(join("src", String(name)));
    if (!file.endsWith(".ts") || seams.UNBUNDLED.some((folder) => file.startsWith(folder))) continue;
    const visit = (node) => {
      const taken = importOf(file, node);
      if (taken) found.push(taken);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest));
  }
  return found;
}

/** Each source file's importers in src/, with the names each takes, or ALL. */
function importGraph(imports) {
  const importers = new Map();
  for (const { file, specifier, names, sideEffect } of imports) {
    if (!specifier.startsWith(".")) continue;
    const target = sourcePath(join(dirname(file), specifier));
    if (!importers.has(target)) importers.set(target, new Map());
    importers.get(target).set(file, mergeNames(importers.get(target).get(file), sideEffect ? [] : names));
  }
  return importers;
}

/** The names src/ imports (not as types) from each module, or ALL where a file takes the whole module or imports it for its side effects. */
function importedNames(imports) {
  const names = new Map();
  for (const { specifier, names: taken, sideEffect, reexport } of imports) {
    if (reexport) continue;
    const merged = mergeNames(names.get(specifier), sideEffect ? ALL : taken);
    names.set(specifier, merged === ALL ? ALL : new Set(merged));
  }
  return names;
}

/** Puts a file outside the system folders that only one chunk imports in that chunk, until none moves. */
function inferOwners(codeChunks, importers) {
  const owner = new Map(Object.entries(codeChunks).flatMap(([chunk, files]) => files.map((file) => [file, chunk])));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, by] of importers) {
      if (owner.has(file) || file.startsWith(`${seams.SYSTEMS_FOLDER}/`) || !existsSync(file)) continue;
      const chunks = new Set([...by.keys()].map((importer) => owner.get(importer)));
      const [chunk] = chunks;
      if (chunks.size === 1 && chunk !== undefined) {
        owner.set(file, chunk);
        codeChunks[chunk].push(file);
        changed = true;
      }
    }
  }
  return owner;
}

/** The files src/seams.ts places that the plan puts elsewhere, as sentences. */
export function misplaced(owner) {
  return Object.entries(seams.PLACED).flatMap(([file, want]) => {
    const got = owner.get(file) ?? seams.MAIN;
    if (!existsSync(file)) return [`${file}: src/seams.ts places it, but there is no such file`];
    return got === want ? [] : [`${file}: src/seams.ts places it in ${want}, the import graph in ${got}`];
  });
}

/** The whole plan: every chunk's specifiers or files, each file's chunk, and what src/ imports. */
export function planChunks() {
  const imports = sourceImports();
  const importers = importGraph(imports);
  const codeChunks = { ...kindChunks(), ...structuredClone(seams.SOURCE_CHUNKS) };
  const owner = inferOwners(codeChunks, importers);
  const allChunks = { ...structuredClone(seams.PACKAGE_CHUNKS), ...codeChunks };
  const notInBun = new Set(seams.NOT_IN_BUN);
  return {
    codeChunks,
    allChunks,
    owner,
    importers,
    used: importedNames(imports),
    /** The files of dist/bun/ beside main.js. */
    bunChunks: Object.keys(allChunks).filter((chunk) => !notInBun.has(chunk)),
    bunCodeChunks: Object.keys(codeChunks).filter((chunk) => !notInBun.has(chunk)),
  };
}
