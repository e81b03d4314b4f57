// Walked files are read leniently: what holds no object is skipped with a
// reason; a manifest-looking file that does not parse is an error.
import { basename } from "node:path";
import { UsageError } from "../core/errors.ts";
import type { SourceDocument } from "../parse/source.ts";
import { parseManifests } from "./kube-yaml.ts";
import { INPUT_RULE } from "./pseudo-rules.ts";
import { KUSTOMIZATION_FILES } from "./kustomize-refs.ts";
import type { CheckFinding } from "./run.ts";
import { isRecord } from "../k8s/access.ts";
import { kinds } from "../systems/registry.ts";

/** Why a walked file was not checked, as the summary counts it. */
export const SKIP_REASONS = {
  "not-kubernetes": "not Kubernetes objects",
  template: "Helm or Go templates",
  values: "rigging values files",
  schema: "schema files",
  kustomization: "kustomizations (not built)",
  patch: "kustomize patches",
  unreadable: "unreadable",
} as const;

export type SkipReason = keyof typeof SKIP_REASONS;

export interface SkippedFile {
  file: string;
  reason: SkipReason;
  /** What made it unreadable, for `unreadable`. */
  detail?: string;
}

export type WalkedRead = { documents: SourceDocument[] } | { skip: SkipReason; detail?: string } | { error: { line: number; column: number; message: string } };

export const KUSTOMIZATION_NAMES = new Set(KUSTOMIZATION_FILES);
const APIVERSION_LINE = /^[ \t-]*"?apiVersion"?[ \t]*:/m;
const KIND_LINE = /^[ \t-]*"?kind"?[ \t]*:/m;
const POSITION = /^.*?:(\d+):(\d+) (.*)$/s;

export function readWalked(file: string, read: () => string): WalkedRead {
  const name = basename(file);
  if (KUSTOMIZATION_NAMES.has(name)) return { skip: "kustomization" };
  let text: string;
  try {
    text = read();
  } catch (error) {
    if (error instanceof UsageError) return { skip: "unreadable", detail: error.message };
    throw error;
  }
  // Helm and Go templates are not YAML until rendered: `helm template` renders them.
  if (text.includes("{{")) return { skip: "template" };
  let documents: SourceDocument[];
  try {
    documents = parseManifests(text, file);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (!(APIVERSION_LINE.test(text) && KIND_LINE.test(text)))
      return error.message.includes("not valid YAML") ? { skip: "not-kubernetes" } : { skip: "unreadable", detail: error.message };
    const at = POSITION.exec(error.message);
    return { error: at ? { line: Number(at[1]), column: Number(at[2]), message: at[3] } : { line: 1, column: 1, message: error.message } };
  }
  if (documents.some((d) => isObject(d.data))) return { documents };
  return { skip: whyNot(name, documents) };
}

function whyNot(name: string, documents: readonly SourceDocument[]): SkipReason {
  const data = documents.map((d) => d.data).filter((d) => d !== null && d !== undefined);
  if (data.length > 0 && data.every((d) => isRecord(d) && typeof d.kind === "string" && d.apiVersion === undefined && kinds().includes(d.kind)))
    return "values";
  if (name.endsWith(".schema.json") || (data.length === 1 && isRecord(data[0]) && typeof data[0].$schema === "string")) return "schema";
  return "not-kubernetes";
}

/** A Kubernetes object or a List of them: apiVersion and kind, not a kustomization's. */
function isObject(data: unknown): boolean {
  if (!isRecord(data)) return false;
  const { apiVersion, kind } = data;
  const named = (value: unknown) => typeof value === "string" && value !== "";
  // Both keys, one of them a name: an object whose other key is mistyped (kind: 12), which kubectl refuses.
  const both = named(apiVersion) ? kind !== undefined && kind !== null : named(kind) && apiVersion !== undefined && apiVersion !== null;
  return both && !(typeof apiVersion === "string" && apiVersion.startsWith("kustomize.config.k8s.io/"));
}

/** A problem of a walked file that holds Kubernetes objects, as an error finding at its place. */
export function inputFinding(file: string, line: number, column: number, message: string): CheckFinding {
  return {
    file,
    line,
    column,
    ruleId: INPUT_RULE.id,
    severity: "error",
    object: { apiVersion: "", kind: "" },
    path: "",
    message,
    fix: INPUT_RULE.fix,
  };
}
