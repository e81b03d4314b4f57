// The Kubernetes schemas `check --kube-version` uses, one JSON file per version
// under dist/kube/, read from the official generated clients with the
// TypeScript parser (models' types, kinds' paths, quantities as numbers too),
// with the enums and Quantities a real API server's OpenAPI adds to them
// (scripts/kube-specs/served-1.N.json, from scripts/kube-served.ts).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { openApiPins, readOpenApiVersion } from "./kube-openapi.mjs";

export const KUBE_SCHEMAS = "kube-schemas";
const SPECS = "scripts/kube-specs";
const require = createRequire(import.meta.url);
const specsRequire = createRequire(join(process.cwd(), SPECS, "package.json"));
const packageJson = JSON.parse(readFileSync(join(SPECS, "package.json"), "utf8"));
/** The versions read from clients, from the devDependencies' names: k8s-spec-1.N. */
const CLIENT_VERSIONS = Object.keys(packageJson.devDependencies)
  .map((name) => /^k8s-spec-(1\.\d+)$/.exec(name)?.[1])
  .filter((v) => v !== undefined);
/** The releases no client carries, read from their own OpenAPI (kube-openapi.mjs). */
const OPENAPI_PINS = openApiPins();
const VERSIONS = [...new Set([...CLIENT_VERSIONS, ...OPENAPI_PINS.keys()])].sort((a, b) => minor(a) - minor(b));

function minor(version) {
  return Number(version.split(".")[1]);
}

/** A generated client's directory of sources (dist/gen), its models' and its APIs' folders. */
function layout(version) {
  const root = dirname(specsRequire.resolve(`k8s-spec-${version}/package.json`));
  const gen = join(root, "dist", "gen");
  const older = readdirSync(gen).includes("model");
  return {
    root,
    models: join(gen, older ? "model" : "models"),
    modelsIndex: join(gen, older ? "model/models.js" : "models/all.js"),
    apis: join(gen, older ? "api" : "apis"),
  };
}

const parse = (file) => ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
const propertyName = (name) => (ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined);

/** Each model class's required fields, from the declarations: a property without `?`. */
function requiredFields(dir) {
  const required = new Map();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".d.ts"))) {
    for (const node of parse(join(dir, file)).statements) {
      if (!ts.isClassDeclaration(node) || !node.name) continue;
      const fields = node.members
        .filter((m) => ts.isPropertyDeclaration(m) && !m.questionToken && !m.modifiers?.some((x) => x.kind === ts.SyntaxKind.StaticKeyword))
        .map((m) => propertyName(m.name))
        .filter((n) => n !== undefined);
      required.set(node.name.text, fields);
    }
  }
  return required;
}

/** The string literal a node is, or that starts a `+` chain (`this.basePath + '/api/v1/...'`), or that `.replace` is called on. */
function pathLiteral(node) {
  if (ts.isStringLiteral(node)) return node.text;
  if (ts.isBinaryExpression(node)) return pathLiteral(node.right) ?? pathLiteral(node.left);
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) return pathLiteral(node.expression.expression);
  return undefined;
}

/** apiVersion -> kind -> model, from the create methods of every API class. */
function servedKinds(dir) {
  const kinds = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    const visit = (node) => {
      if (ts.isMethodDeclaration(node) && node.name && /^create/.test(propertyName(node.name) ?? "")) {
        let path;
        let model;
        const inner = (n) => {
          if (ts.isVariableDeclaration(n) && n.name.getText() === "localVarPath" && n.initializer) path = pathLiteral(n.initializer);
          if (ts.isCallExpression(n) && /\bObjectSerializer\.serialize$/.test(n.expression.getText()) && n.arguments[0]?.getText() === "body")
            model = n.arguments[1] && ts.isStringLiteral(n.arguments[1]) ? n.arguments[1].text : undefined;
          ts.forEachChild(n, inner);
        };
        inner(node);
        // A collection of the API (a create), not a subresource (pods/{name}/eviction) nor a review under another path.
        const at = path && /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:namespaces\/\{namespace\}\/)?([a-z0-9]+)$/.exec(path);
        if (at && model) {
          const apiVersion = at[1] ?? `${at[2]}/${at[3]}`;
          const kind = /^(?:[A-Z][a-z]+)*V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$/.exec(model)?.[1];
          // The model is named from the upstream definition: its kind after the version.
          if (!kind || !at[4].startsWith(kind.toLowerCase().slice(0, -1))) throw new Error(`${file}: cannot tell the kind of ${model} posted to ${path}`);
          kinds[apiVersion] ??= {};
          kinds[apiVersion][kind] = model;
        }
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(parse(join(dir, file)));
  }
  return kinds;
}

/** A model's name without the group some carry (CoreV1Event), as kubernetes-types and kubernetes-models key it: V1Event. */
const unprefixed = (model) => /V\d+(?:(?:alpha|beta)\d+)?[A-Z]\w*$/.exec(model)?.[0] ?? model;
const versionKey = (version, name) => `${version.charAt(0).toUpperCase()}${version.slice(1)}${name}`;

/** `V1ResourceRequirements.limits` for every field whose type names a Quantity, in either package. */
function quantityFields() {
  const found = new Set();
  const typeNamesQuantity = (node) => {
    let hit = false;
    const visit = (n) => {
      if (ts.isTypeReferenceNode(n) && /Quantity$/.test(n.typeName.getText())) hit = true;
      ts.forEachChild(n, visit);
    };
    visit(node);
    return hit;
  };
  const collect = (file, keyOf) => {
    for (const node of parse(file).statements) {
      if (!ts.isInterfaceDeclaration(node)) continue;
      for (const member of node.members)
        if (ts.isPropertySignature(member) && member.type && typeNamesQuantity(member.type)) found.add(`${keyOf(node.name.text)}.${propertyName(member.name)}`);
    }
  };
  const types = dirname(require.resolve("kubernetes-types/package.json"));
  for (const entry of readdirSync(types, { recursive: true }).map(String)) {
    const version = basename(entry, ".d.ts");
    if (entry.endsWith(".d.ts") && /^v\d/.test(version)) collect(join(types, entry), (name) => versionKey(version, name));
  }
  const models = dirname(require.resolve("kubernetes-models/package.json"));
  for (const entry of readdirSync(models, { recursive: true }).map(String)) {
    const version = basename(dirname(entry));
    if (entry.endsWith(".d.ts") && /^v\d/.test(version)) collect(join(models, entry), () => versionKey(version, basename(entry, ".d.ts")));
  }
  return found;
}

/** The newest served-1.N.json: enums by the client's model name and field, and the fields the server types as Quantities. */
function servedSnapshot() {
  const files = readdirSync(SPECS)
    .map((name) => /^served-(1\.\d+)\.json$/.exec(name))
    .filter((m) => m !== null)
    .sort((a, b) => minor(a[1]) - minor(b[1]));
  if (files.length === 0) return { enums: new Map(), quantities: [] };
  const { enums, quantities } = JSON.parse(readFileSync(join(SPECS, files.at(-1)[0]), "utf8"));
  return { minor: files.at(-1)[1], enums: new Map(Object.entries(enums)), quantities };
}

/**
 * A field's enum: by the model's name in the newest client, else by the name without its group prefix where that is
 * one model. An older release is given the newer values, which accept its own (enum values are added, not removed).
 */
function enumOf(enums, name, field) {
  const exact = enums.get(`${name}.${field}`);
  if (exact) return exact;
  const matches = [...enums].filter(([key]) => key.endsWith(`.${field}`) && unprefixed(key.slice(0, -field.length - 1)) === unprefixed(name));
  return matches.length === 1 ? matches[0][1] : undefined;
}

/** The client's type and format as one compact type: a model's name, [] or {} before an item type, or a leaf. */
function compactType(type, format, key, models, quantities) {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return `[]${compactType(array[1], format, key, models, quantities)}`;
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return `{}${compactType(map[1], format, key, models, quantities)}`;
  if (models.has(type)) return type;
  if (type === "string") return quantities.has(key) ? "quantity" : "string";
  if (type === "number") return format === undefined ? undefined : /^int/.test(format) ? "integer" : "number";
  if (type === "boolean") return "boolean";
  if (type === "IntOrString") return "int-or-string";
  // Date, and MicroTime (format date-time-micro), which the client leaves without a model.
  if (type === "Date" || /^date-time/.test(format ?? "")) return "string";
  if (type === "any" || type === "object") return "any";
  throw new Error(`unknown client type ${type} (${key})`);
}

/** The upstream formats check judges a field's leaf values by (`x`): base64, integer ranges and RFC 3339 times. */
const CHECKED_FORMATS = new Set(["byte", "int32", "int64", "date-time"]);

async function readVersion(version, quantities, formats, enums) {
  const where = layout(version);
  const index = await import(pathToFileURL(where.modelsIndex).href);
  const exported = Object.keys(index).length > 2 || !index.default ? index : index.default;
  const classes = Object.entries(exported).filter(([, c]) => typeof c?.getAttributeTypeMap === "function");
  const models = new Set(classes.map(([name]) => name));
  const required = requiredFields(where.models);
  const types = {};
  for (const [name, model] of classes) {
    const fields = {};
    const checked = {};
    const enumerated = {};
    for (const a of model.getAttributeTypeMap()) {
      const key = `${unprefixed(name)}.${a.baseName}`;
      // The older clients record no format: a number's is the one a newer client records for the same field (of the
      // same model, else of the same type at another version: CronJobSpec of batch/v1 for batch/v1beta1's), else any number.
      const bare = `${unprefixed(name).replace(/^V\d+(?:(?:alpha|beta)\d+)?/, "")}.${a.baseName}`;
      const format = a.format ?? formats.get(`${name}.${a.baseName}`) ?? formats.get(bare) ?? (a.type.includes("number") ? "double" : undefined);
      if (a.format) formats.set(`${name}.${a.baseName}`, a.format);
      if (a.format && !formats.has(bare)) formats.set(bare, a.format);
      fields[a.baseName] = compactType(a.type, format || undefined, key, models, quantities);
      if (CHECKED_FORMATS.has(format)) checked[a.baseName] = format;
      const values = enumOf(enums, name, a.baseName);
      if (values) enumerated[a.baseName] = values;
    }
    const req = (required.get(name) ?? []).map((field) => model.getAttributeTypeMap().find((a) => a.name === field)?.baseName ?? field);
    types[name] = {
      f: fields,
      ...(req.length > 0 ? { r: req } : {}),
      ...(Object.keys(checked).length > 0 ? { x: checked } : {}),
      ...(Object.keys(enumerated).length > 0 ? { e: enumerated } : {}),
    };
  }
  const header = readFileSync(
    join(
      where.models,
      readdirSync(where.models).find((f) => /PodSpec\.js$/i.test(f)),
    ),
    "utf8",
  );
  const spec = /(?:OpenAPI spec version|The version of the OpenAPI document): (\S+)/.exec(header)?.[1] ?? "";
  // The package an alias names must be generated from that Kubernetes release.
  if (!new RegExp(`^(?:release-|v)${version.replace(".", "\\.")}(?:\\.\\d+)?$`).test(spec))
    throw new Error(`k8s-spec-${version} is generated from ${spec || "an unrecorded spec"}`);
  const { version: client } = JSON.parse(readFileSync(join(where.root, "package.json"), "utf8"));
  return { spec, client, kinds: servedKinds(where.apis), types };
}

export async function generateKubeSchemas(out = KUBE_SCHEMAS) {
  const snapshot = servedSnapshot();
  const quantities = new Set([...quantityFields(), ...snapshot.quantities]);
  const formats = new Map();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // The default is the newest release a real API server in the tests serves (served-1.N.json's).
  const index = { default: snapshot.minor ?? VERSIONS.at(-1), versions: {} };
  // Newest first: an older client's numbers take the formats the newer ones record.
  for (const version of [...VERSIONS].reverse()) {
    const { spec, client, kinds, types } = OPENAPI_PINS.has(version)
      ? readOpenApiVersion(version, OPENAPI_PINS.get(version), {
          checkedFormats: CHECKED_FORMATS,
          // A release newer than the served snapshot may have added values: its enums are not judged.
          enumOf: (name, field) => (snapshot.minor && minor(version) > minor(snapshot.minor) ? undefined : enumOf(snapshot.enums, name, field)),
        })
      : await readVersion(version, quantities, formats, snapshot.enums);
    writeFileSync(join(out, `${version}.json`), JSON.stringify({ kinds, types }));
    index.versions[version] = {
      spec,
      client,
      kinds: Object.fromEntries(
        Object.entries(kinds)
          .sort()
          .map(([apiVersion, byKind]) => [apiVersion, Object.keys(byKind).sort()]),
      ),
    };
  }
  index.versions = Object.fromEntries(Object.entries(index.versions).sort(([a], [b]) => minor(a) - minor(b)));
  writeFileSync(join(out, "index.json"), JSON.stringify(index));
}

/** Whether kube-schemas/ holds what the pinned clients give now. */
async function checkKubeSchemas() {
  if (!existsSync(join(SPECS, "node_modules"))) {
    console.error(`gen-kube-schemas: the clients are not installed: npm ci --prefix ${SPECS}`);
    return false;
  }
  const fresh = mkdtempSync(join(tmpdir(), "rigging-kube-schemas-"));
  try {
    await generateKubeSchemas(fresh);
    const names = (dir) => (existsSync(dir) ? readdirSync(dir).sort() : []);
    const same =
      names(fresh).join() === names(KUBE_SCHEMAS).join() &&
      names(fresh).every((name) => readFileSync(join(fresh, name)).equals(readFileSync(join(KUBE_SCHEMAS, name))));
    if (!same) console.error(`gen-kube-schemas: ${KUBE_SCHEMAS}/ is not what the clients of ${SPECS} give: run npm run schemas`);
    return same;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    if (process.argv.includes("--check")) process.exitCode = (await checkKubeSchemas()) ? 0 : 1;
    else await generateKubeSchemas();
  } catch (error) {
    console.error(`gen-kube-schemas: ${error.message}`);
    process.exitCode = 1;
  }
}
