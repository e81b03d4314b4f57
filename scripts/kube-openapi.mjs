// The Kubernetes releases no official JavaScript client carries, read from
// the release's own OpenAPI v3 (api/openapi-spec/v3/ of the k8s.io/kubernetes
// module, fetched by the go command from the module proxy and checked against
// scripts/kube-specs/openapi.sum) into the compact types of kube-schemas/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const OPENAPI_SUM = "scripts/kube-specs/openapi.sum";
const MODULE = "k8s.io/kubernetes";

/** minor -> { tag, sum }: the pinned module version of each release read from its OpenAPI, from openapi.sum's go.sum lines. */
export function openApiPins(file = OPENAPI_SUM) {
  const pins = new Map();
  if (!existsSync(file)) return pins;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^k8s\.io\/kubernetes (v(1\.\d+)\.\d+) (h1:\S+)$/.exec(line.trim());
    if (m) pins.set(m[2], { tag: m[1], sum: m[3] });
  }
  return pins;
}

/** The module's directory in Go's module cache, downloaded when missing; its hash must be the pinned one. */
function moduleDir({ tag, sum }) {
  const scratch = mkdtempSync(join(tmpdir(), "rigging-kube-openapi-"));
  try {
    // Outside any module, so that no go.mod of this repository is read or changed.
    const r = spawnSync("go", ["mod", "download", "-json", `${MODULE}@${tag}`], {
      cwd: scratch,
      encoding: "utf8",
      env: { ...process.env, GOFLAGS: "-mod=mod" },
    });
    if (r.error) throw new Error(`the go command is needed to fetch ${MODULE}@${tag}'s OpenAPI (${r.error.message}); see README`);
    const info = JSON.parse(r.stdout || "{}");
    if (r.status !== 0 || info.Error) throw new Error(`go mod download ${MODULE}@${tag}: ${info.Error ?? r.stderr.trim()}`);
    if (info.Sum !== sum) throw new Error(`${MODULE}@${tag} has hash ${info.Sum}, ${OPENAPI_SUM} pins ${sum}`);
    return info.Dir;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const LEAVES = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "quantity",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "int-or-string",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "string",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "string",
};
const VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Each definition's model name as the official clients give it: V1Deployment, or CoreV1Event where two groups share V1Event. */
function modelNames(definitions) {
  const parts = definitions.map((name) => {
    const segments = name.split(".");
    const at = segments.findLastIndex((s) => VERSION.test(s));
    if (at < 0) return { name, base: capital(segments.at(-2)) + segments.at(-1), group: "" };
    return { name, base: capital(segments[at]) + segments.slice(at + 1).join(""), group: capital(segments[at - 1]) };
  });
  const count = new Map();
  for (const p of parts) count.set(p.base, (count.get(p.base) ?? 0) + 1);
  return new Map(parts.map((p) => [p.name, count.get(p.base) > 1 ? p.group + p.base : p.base]));
}

/** A field's schema as one compact type, and its upstream format when check judges it: the same leaves and models the clients give. */
function compactOf(schema, schemas, names) {
  let s = schema ?? {};
  if (s.allOf?.length === 1) s = { ...s, ...s.allOf[0], allOf: undefined };
  if (s.$ref) {
    const ref = s.$ref.replace("#/components/schemas/", "");
    // MicroTime's layout is not RFC 3339's, which the clients leave unjudged too.
    if (LEAVES[ref]) return { type: LEAVES[ref], format: ref.endsWith(".MicroTime") ? undefined : schemas.get(ref)?.format };
    const target = schemas.get(ref);
    if (target?.properties) return { type: names.get(ref) };
    return compactOf(target, schemas, names);
  }
  // A list's or map's format is its items', as the clients record it.
  const inner = (prefix, items) => {
    const { type, format } = compactOf(items, schemas, names);
    return { type: prefix + type, format };
  };
  if (s.type === "array") return inner("[]", s.items);
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object") return inner("{}", s.additionalProperties);
  if (s.type === "string") return { type: s.format === "int-or-string" ? "int-or-string" : "string", format: s.format };
  if (s.type === "integer") return { type: "integer", format: s.format };
  if (s.type === "number") return { type: "number", format: s.format };
  if (s.type === "boolean") return { type: "boolean" };
  return { type: "any" };
}

/** apiVersion -> kind -> model: what each group-version can create, from its collections' POST (not a subresource's). */
function kindsOf(documents, names) {
  const kinds = {};
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const gvk = item.post?.["x-kubernetes-group-version-kind"];
      if (!gvk || path.includes("{name}") || !/^\/(?:api\/v1|apis\/[^/]+\/[^/]+)\/(?:namespaces\/\{namespace\}\/)?[a-z0-9]+$/.test(path)) continue;
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      const definition = Object.entries(doc.components?.schemas ?? {}).find(([, s]) =>
        s["x-kubernetes-group-version-kind"]?.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind),
      )?.[0];
      if (!definition) throw new Error(`${path}: no schema is ${apiVersion} ${gvk.kind}`);
      kinds[apiVersion] ??= {};
      kinds[apiVersion][gvk.kind] = names.get(definition);
    }
  }
  return kinds;
}

/**
 * One release from its pinned OpenAPI: `{ spec, client, kinds, types }` as readVersion of gen-kube-schemas.mjs gives
 * for a client. `enumOf(model, field)` gives a field's enum, from a real API server's (the static spec lists none).
 */
export function readOpenApiVersion(version, pin, { checkedFormats, enumOf, specDir = moduleDir(pin) }) {
  if (!pin.tag.startsWith(`v${version}.`)) throw new Error(`${MODULE}@${pin.tag} is not a ${version} release`);
  const dir = join(specDir, "api", "openapi-spec", "v3");
  const documents = readdirSync(dir)
    .filter((f) => f.endsWith("_openapi.json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
  const schemas = new Map(documents.flatMap((d) => Object.entries(d.components?.schemas ?? {})));
  const names = modelNames([...schemas.keys()]);
  const types = {};
  for (const [definition, schema] of [...schemas].sort(([a], [b]) => (names.get(a) < names.get(b) ? -1 : 1))) {
    if (!schema.properties || LEAVES[definition]) continue;
    const name = names.get(definition);
    const fields = {};
    const checked = {};
    const enumerated = {};
    for (const [field, property] of Object.entries(schema.properties)) {
      const { type, format } = compactOf(property, schemas, names);
      fields[field] = type;
      if (checkedFormats.has(format)) checked[field] = format;
      const values = enumOf(name, field);
      if (values) enumerated[field] = values;
    }
    types[name] = {
      f: fields,
      ...(schema.required?.length > 0 ? { r: schema.required } : {}),
      ...(Object.keys(checked).length > 0 ? { x: checked } : {}),
      ...(Object.keys(enumerated).length > 0 ? { e: enumerated } : {}),
    };
  }
  return { spec: pin.tag, client: `${MODULE}@${pin.tag} api/openapi-spec/v3`, kinds: kindsOf(documents, names), types };
}
