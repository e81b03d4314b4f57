// `rigging fn`: a KRM function. With values as functionConfig it generates;
// without, it validates `items`. Every failure is answered as a ResourceList.
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { classify } from "../check/classify.ts";
import { loadObjects } from "../check/load.ts";
import { skippedFor } from "../check/run.ts";
import { bounded, formatLocation, formatPath } from "../core/diagnostic.ts";
import { printable, printableLines } from "../core/printable.ts";
import { fileNameOf, SAFE_FILE_NAME, toYaml } from "../emit/emit.ts";
import { UsageError, ValuesError } from "../core/errors.ts";
import type { K8sObject } from "../k8s/objects.ts";
import { loadValues } from "../values/layers.ts";
import { parseDocuments, parseValuesFile, type SourceDocument } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { renderSource } from "../pipeline.ts";
import { normalise } from "../normalise/index.ts";
import { OBJECTS_RULE } from "../check/pseudo-rules.ts";
import type { SystemName } from "../rules/engine.ts";
import type { Io } from "./io.ts";
import { isRecord } from "../k8s/access.ts";
import { catalog, kinds, valuesKindOf } from "../systems/registry.ts";

export const FN_HELP = `Usage: rigging fn < resource-list.yaml

A KRM function: reads a ResourceList (config.kubernetes.io/v1) on stdin and
writes one on stdout, for kpt and kustomize.

  kpt fn eval pkg/ --exec "rigging fn" --fn-config values.yaml   render into pkg/
  kpt fn eval pkg/ --exec "rigging fn"                            check pkg/

With a values file as functionConfig (the values, plus the apiVersion
rigging.dev/v1alpha1 and metadata.name kpt asks of every function config,
as rigging init prints them; rigging fn sets them aside), the rendered objects are added to items, each in its own file
NAME/NN-kind-name.yaml (config.kubernetes.io/path), NAME being the config's
metadata.name, and carries rigging.dev/rendered-sha256, the checksum of
what was rendered. Items rigging rendered there before and nobody changed
since (their checksum matches) are replaced; every other item, whatever
its labels or file, is never changed or removed, and one with the same
kind, namespace and name as a rendered object is an error (so is an item
rigging rendered and someone changed since).

Without functionConfig (or with kpt's ConfigMap of -- key=value arguments,
where profile=NAME checks every item as that profile, like check --profile),
items are checked with the rule catalog, as rigging check does, and every
finding becomes a result (severity, message, resourceRef, field, file).
Items marked config.kubernetes.io/local-config (Kptfile, function configs)
are not checked.

With -f VALUES (may repeat: layered as rigging render -f layers them, base:
included), those values stand for the functionConfig: a kustomize exec
script or a kpt --exec can name the file instead of carrying it.

Anything that is not a ResourceList, or a functionConfig of another kind
than the values kinds (${kinds().join(", ")}), is answered with a
ResourceList whose result is the error.

Options:
  -f, --values FILE   values in place of the functionConfig
      --values-root DIR  the tree whose files a values file's base: may name
                      (default: the repository, with its .git, holding
                      each -f file; else the working directory holding it;
                      else its directory); a base outside it, after
                      symlinks, is refused
  -h, --help          show this help

Exit codes: 0 no error result; 1 an error result; 3 internal error.
`;

const API_VERSION = "config.kubernetes.io/v1";
const PATH = "config.kubernetes.io/path";
const INDEX = "config.kubernetes.io/index";
const INTERNAL_PATH = "internal.config.kubernetes.io/path";
const LOCAL_CONFIG = "config.kubernetes.io/local-config";
/** The checksum fn puts on each object it renders (renderedSum), to tell it from an item changed since. */
const RENDERED_SHA256 = "rigging.dev/rendered-sha256";
/** kyaml's internal annotations (kioutil.GetInternalAnnotations), kustomize's exec-function id and this checksum: what tools rewrite on the way. */
const REWRITTEN = new Set([PATH, INDEX, "config.k8s.io/id", "kustomize.config.k8s.io/id", RENDERED_SHA256]);
const rewritten = (key: string) => key.startsWith("internal.config.kubernetes.io/") || REWRITTEN.has(key);

/** A result as the KRM function specification words it. */
export interface FnResult {
  message: string;
  severity: "error" | "warning" | "info";
  resourceRef?: { apiVersion: string; kind: string; name: string; namespace?: string };
  field?: { path: string };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

interface ResourceList {
  apiVersion: string;
  kind: "ResourceList";
  items: Record<string, unknown>[];
  functionConfig?: unknown;
  results?: FnResult[];
}

export function fnCommand(args: string[], io: Io): number {
  if (args.includes("-h") || args.includes("--help")) return io.out(FN_HELP), 0;
  const files = args.flatMap((arg, i) => ((arg === "-f" || arg === "--values") && i % 2 === 0 ? [args[i + 1]] : []));
  const roots = args.flatMap((arg, i) => (arg === "--values-root" && i % 2 === 0 ? [args[i + 1]] : []));
  const given = [...files, ...roots];
  if (args.length !== given.length * 2 || given.some((f) => f === undefined) || files.includes("-") || roots.length > 1)
    throw new UsageError("fn takes only -f VALUES and one --values-root DIR: it reads a ResourceList on stdin (see rigging fn --help)");
  return fnAnswer(readText, io, files.length > 0 ? loadValues(files, [], { valuesRoot: roots[0] }) : undefined);
}

/** Answers the ResourceList that `read("-")` gives (stdin for the command; tests pass text); `values` (-f) stands for its functionConfig. */
export function fnAnswer(read: (file: "-") => string, io: Io, values?: SourceDocument): number {
  let list: ResourceList;
  try {
    list = readResourceList(read("-"));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return answer({ apiVersion: API_VERSION, kind: "ResourceList", items: [] }, [{ severity: "error", message: error.message }], io);
  }
  const config = values?.data ?? list.functionConfig;
  if (config === undefined || config === null || (isRecord(config) && Object.keys(config).length === 0)) return answer(list, validate(list.items), io);
  // What kpt sends when no config is given: a ConfigMap of the `-- key=value` arguments.
  if (isRecord(config) && config.kind === "ConfigMap" && config.apiVersion === "v1") return answer(list, validateWith(config.data, list.items), io);
  const kind = isRecord(config) ? config.kind : undefined;
  if (typeof kind !== "string" || !valuesKindOf(kind)) {
    const message = `functionConfig: ${typeof kind === "string" ? `kind ${JSON.stringify(kind)} is not a values kind` : "has no kind"}; expected one of ${kinds().join(", ")} (or no functionConfig, to check the items)`;
    return answer(list, [{ severity: "error", message }], io);
  }
  return generate(list, config as Record<string, unknown>, io, values);
}

/** Parses stdin as one ResourceList, or says why it is not one. */
function readResourceList(text: string): ResourceList {
  const docs = parseDocuments(text, "<stdin>");
  if (docs.length !== 1) throw new UsageError(`<stdin>: holds ${docs.length} YAML documents; a KRM function reads one ResourceList`);
  const data = docs[0].data;
  if (!isRecord(data) || data.kind !== "ResourceList")
    throw new UsageError("<stdin>: is not a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1)");
  if (data.apiVersion !== API_VERSION) throw new UsageError(`<stdin>: ResourceList apiVersion ${JSON.stringify(data.apiVersion)}; expected ${API_VERSION}`);
  const items = data.items ?? [];
  if (!Array.isArray(items) || !items.every(isRecord)) throw new UsageError("<stdin>: ResourceList items is not a list of objects");
  return { ...(data as unknown as ResourceList), items };
}

/** Renders the values in `config` (read from `source`, with its lines, when -f gave it) and adds the objects to the items. */
function generate(list: ResourceList, config: Record<string, unknown>, io: Io, source?: SourceDocument): number {
  // apiVersion stays with the values: the pipeline checks it is rigging's.
  const { metadata, ...values } = config;
  const meta = isRecord(metadata) ? metadata : {};
  // kpt names the config's file only when the config is in the package (fn render); -f names its own.
  const configFile = pathOf(meta) ?? source?.file;
  const fileOf = configFile === undefined ? {} : { file: { path: configFile } };
  const dir = meta.name ?? "rigging";
  if (typeof dir !== "string" || !SAFE_FILE_NAME.test(dir)) {
    return answer(
      list,
      [
        {
          severity: "error",
          message: `functionConfig: metadata.name ${JSON.stringify(dir)} cannot name a directory; use letters, digits, '.', '_' and '-'`,
          ...fileOf,
        },
      ],
      io,
    );
  }
  let rendered;
  try {
    rendered = renderSource(source ?? valuesSource(values, configFile ?? "functionConfig"));
  } catch (error) {
    if (error instanceof ValuesError) {
      const results = error.diagnostics.map(
        (d): FnResult => ({
          severity: "error",
          // kpt prints the field path before the message.
          message: `${d.path ? "" : "functionConfig: "}${d.message} (${d.id}: ${d.fix})${d.location?.line ? `; set at ${formatLocation(d.location)}` : ""}`,
          ...(d.path ? { field: { path: d.path } } : {}),
          ...(source && d.location?.file ? { file: { path: d.location.file } } : fileOf),
          tags: { rule: d.id },
        }),
      );
      return answer(list, results, io);
    }
    if (error instanceof UsageError) return answer(list, [{ severity: "error", message: error.message, ...fileOf }], io);
    throw error;
  }
  const sums = rendered.objects.map((object) => renderedSum(object as unknown as Record<string, unknown>));
  // What rigging rendered into NAME/ before, unchanged since, goes; nothing else does.
  const kept = list.items.filter((item) => !renderedBefore(item, dir, new Set(sums)));
  const taken = new Map(kept.map((item) => [identity(item), item]));
  const results: FnResult[] = [];
  const added = rendered.objects.flatMap((object, index) => {
    const path = `${dir}/${fileNameOf(object, index)}`;
    const other = taken.get(identity(object));
    if (other) {
      const changed = typeof annotationsOf(other)[RENDERED_SHA256] === "string";
      const why = changed
        ? "changed since rigging rendered it; put the change in the values, or remove the item to render it again"
        : "and rigging did not render it there; rename or remove one of them";
      results.push({
        severity: "error",
        message: `${object.kind} ${object.metadata.name} is already in the package (${pathOf(metaOf(other)) ?? "no file"}), ${why}`,
        resourceRef: refOf(object),
        file: { path },
      });
      // Left out: kpt refuses two items at one path before it shows the results.
      return [];
    }
    // A copy of metadata: a renderer may share one between two objects (a Service and its NetworkPolicy), and each has its own path.
    object.metadata = { ...object.metadata, annotations: { ...object.metadata.annotations, [PATH]: path, [INDEX]: "0", [RENDERED_SHA256]: sums[index] } };
    return [object as unknown as Record<string, unknown>];
  });
  for (const message of checklistItems(rendered.notes.join("\n"))) results.push({ severity: "info", message, ...fileOf });
  return answer({ ...list, items: [...kept, ...added] }, results, io);
}

/** The notes as kpt shows results best: each heading and each `[ ]` item of a checklist its own result, a line with its continuation. */
export function checklistItems(notes: string): string[] {
  const out: string[][] = [];
  for (const line of notes.split("\n")) {
    const starts = !line.startsWith(" ") || line.trimStart().startsWith("[ ] ");
    if (starts || out.length === 0) out.push([line.trim()]);
    else out[out.length - 1].push(line);
  }
  return out.map((lines) => lines.join("\n")).filter((text) => text !== "");
}

/** Whether `item` is rigging's unchanged output (by checksum, or equal to this render). */
function renderedBefore(item: Record<string, unknown>, dir: string, sums: ReadonlySet<string>): boolean {
  if (!pathOf(metaOf(item))?.startsWith(`${dir}/`)) return false;
  const recorded = annotationsOf(item)[RENDERED_SHA256];
  const sum = renderedSum(item);
  return typeof recorded === "string" ? recorded === sum : sums.has(sum);
}

/** The SHA-256 of an item's data, its keys sorted: every field and annotation but those kpt, kustomize and fn rewrite (REWRITTEN). */
function renderedSum(item: Record<string, unknown>): string {
  const annotations = Object.fromEntries(Object.entries(annotationsOf(item)).filter(([key]) => !rewritten(key)));
  const { annotations: _annotations, ...meta } = metaOf(item);
  const data = { ...item, metadata: Object.keys(annotations).length > 0 ? { ...meta, annotations } : meta };
  const sorted = (_key: string, value: unknown) =>
    isRecord(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, value[k]]),
        )
      : value;
  return createHash("sha256").update(JSON.stringify(data, sorted)).digest("hex");
}

/** The values for the pipeline: the config as a values file (G-01's `__proto__` check included), its place named by file only. */
function valuesSource(values: Record<string, unknown>, file: string): SourceDocument {
  const document = parseValuesFile(toYaml(values), file);
  // Lines of a text made here would point nowhere in the user's file.
  return { file, data: document.data, locate: () => ({ file }) };
}

/** A ConfigMap's data as the validator's options: `profile` only, as check --profile. */
function validateWith(data: unknown, items: readonly Record<string, unknown>[]): FnResult[] {
  const options = isRecord(data) ? data : {};
  const unknown = Object.keys(options).filter((key) => key !== "profile");
  if (unknown.length > 0)
    return [{ severity: "error", message: `functionConfig: unknown key ${JSON.stringify(unknown[0])}; the only one is profile=${catalog.names().join("|")}` }];
  const profile = options.profile;
  if (profile !== undefined && !catalog.names().includes(profile as SystemName)) {
    return [{ severity: "error", message: `functionConfig: profile ${JSON.stringify(profile)}; expected one of ${catalog.names().join(", ")}` }];
  }
  return validate(items, profile as SystemName | undefined);
}

/** Checks the items with the rule catalog, one directory (one installation) at a time, as rigging check does. */
function validate(items: readonly Record<string, unknown>[], profile?: SystemName): FnResult[] {
  const results: FnResult[] = [];
  const byDirectory = new Map<string, SourceDocument[]>();
  items.forEach((item, index) => {
    const meta = metaOf(item);
    if (String(meta.annotations && (meta.annotations as Record<string, unknown>)[LOCAL_CONFIG]) === "true" || item.kind === "Kptfile") return;
    const file = pathOf(meta) ?? `items[${index}]`;
    // A copy: the items go back out as they came in.
    const document: SourceDocument = { file, data: structuredClone(item), locate: () => ({ file }) };
    const group = byDirectory.get(dirname(file));
    if (group) group.push(document);
    else byDirectory.set(dirname(file), [document]);
  });
  const profiles = new Set<SystemName>();
  for (const documents of byDirectory.values()) {
    const loaded = loadObjects(documents);
    for (const problem of loaded.problems) results.push({ severity: "error", message: problem });
    const normal = normalise(loaded.objects);
    const { profileOf: profileByObject, unrecognised } = classify(normal.objects, profile, (o) => normal.provenance.input(o));
    profileByObject.forEach((p) => profiles.add(p));
    const input = (object: K8sObject) => normal.provenance.input(object);
    const fileOf = (object: K8sObject) => loaded.origins.get(input(object))!.file;
    const notes = normal.notes.map((n) => ({ ...n, id: OBJECTS_RULE.id, fix: OBJECTS_RULE.fix }));
    const findings = catalog.checkObjects(normal.objects, (o) => profileByObject.get(o), {
      onError: (rule, set, error) =>
        results.push({
          severity: "error",
          message: `${rule.id} could not read the ${set.profile} objects (a field of the wrong type?): ${(error as Error)?.message ?? String(error)}`,
        }),
    });
    for (const f of [...findings, ...notes]) {
      const path = formatPath(normal.provenance.written(f.object, f.path).path);
      results.push({
        severity: f.severity,
        message: `${f.message} (${f.id}: ${f.fix})`,
        resourceRef: refOf(input(f.object)),
        ...(path ? { field: { path } } : {}),
        file: fileRef(input(f.object), fileOf(f.object)),
        tags: { rule: f.id },
      });
    }
    for (const object of unrecognised) {
      results.push({
        severity: "info",
        message: "not recognised as any profile (no known app.kubernetes.io/name label or shape); not checked",
        resourceRef: refOf(input(object)),
        file: fileRef(input(object), fileOf(object)),
      });
    }
  }
  for (const s of skippedFor([...profiles].sort())) {
    results.push({ severity: "info", message: `${s.ruleId} not judged from manifests (${s.profiles.join(", ")}): ${s.reason}`, tags: { rule: s.ruleId } });
  }
  return results;
}

/** Writes the answer and gives the exit code: 1 when any result is an error. */
function answer(list: ResourceList, found: FnResult[], io: Io): number {
  const { functionConfig, ...rest } = list;
  const results = found.map(escapedForKpt);
  const out: ResourceList = { ...rest, apiVersion: API_VERSION, kind: "ResourceList", ...(functionConfig !== undefined ? { functionConfig } : {}), results };
  io.out(toYaml(out));
  const errors = results.filter((r) => r.severity === "error");
  for (const r of errors) io.err(`error ${printable(bounded(`${r.file?.path ? `${r.file.path}: ` : ""}${r.field ? `${r.field.path}: ` : ""}${r.message}`))}\n`);
  io.err(`rigging fn: ${errors.length} error(s), ${results.filter((r) => r.severity === "warning").length} warning(s)\n`);
  return errors.length > 0 ? 1 : 0;
}

/** The result with what kpt prints to the terminal unescaped (message, field, object) escaped; the file path stays exact, to find the file by. */
function escapedForKpt(result: FnResult): FnResult {
  const { message, field, resourceRef: ref } = result;
  return {
    ...result,
    message: printableLines(message),
    ...(field ? { field: { path: printable(field.path) } } : {}),
    ...(ref ? { resourceRef: printableFields(ref) } : {}),
  };
}

function printableFields<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).map(([key, text]) => [key, typeof text === "string" ? printable(text) : text])) as T;
}

function fileRef(object: K8sObject, file: string): FnResult["file"] {
  const raw = metaOf(object as unknown as Record<string, unknown>).annotations?.[INDEX];
  return typeof raw === "string" && /^\d+$/.test(raw) ? { path: file, index: Number(raw) } : { path: file };
}

function refOf(object: K8sObject): NonNullable<FnResult["resourceRef"]> {
  const { name, namespace } = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: typeof name === "string" ? name : "",
    ...(typeof namespace === "string" ? { namespace } : {}),
  };
}

function identity(item: { apiVersion?: unknown; kind?: unknown; metadata?: unknown }): string {
  const group = typeof item.apiVersion === "string" && item.apiVersion.includes("/") ? item.apiVersion.split("/")[0] : "";
  const meta = isRecord(item.metadata) ? item.metadata : {};
  return JSON.stringify([group, item.kind, meta.namespace ?? "", meta.name]);
}

function metaOf(item: Record<string, unknown>): { name?: unknown; annotations?: Record<string, unknown>; labels?: Record<string, unknown> } {
  return isRecord(item.metadata) ? item.metadata : {};
}

function annotationsOf(item: Record<string, unknown>): Record<string, unknown> {
  const annotations = metaOf(item).annotations;
  return isRecord(annotations) ? annotations : {};
}

function pathOf(meta: { annotations?: unknown }): string | undefined {
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  const path = annotations[INTERNAL_PATH] ?? annotations[PATH];
  return typeof path === "string" ? path : undefined;
}
