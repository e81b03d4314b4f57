// Where a piped object was written, from kpt's, kustomize's and helm's
// annotations or helm's `# Source:` comments, so findings name that file.
import { realpathSync, statSync } from "node:fs";
import { join, normalize } from "node:path";
import { parse } from "yaml";
import { UsageError } from "../core/errors.ts";
import type { K8sObject } from "../k8s/objects.ts";
import type { SourceDocument } from "../parse/source.ts";
import { readText } from "../parse/read.ts";
import { LIMITS } from "../parse/limits.ts";
import { inside } from "../parse/tree.ts";
import { parseManifests } from "./kube-yaml.ts";
import { dig } from "../k8s/access.ts";

export interface Written {
  /** The file the object was written in, as the annotation or comment names it (joined to the source root). */
  file: string;
  /** The document's index in that file, where the tool says it (kpt). */
  index?: number;
  via: "kpt" | "kustomize" | "helm";
}

const PATH_KEYS = ["config.kubernetes.io/path", "internal.config.kubernetes.io/path"];
const INDEX_KEYS = ["config.kubernetes.io/index", "internal.config.kubernetes.io/index"];
const ORIGIN_KEY = "config.kubernetes.io/origin";
/** Helm 4 names each document's template to its post-renderer here. */
const HELM_FILE_KEY = "postrenderer.helm.sh/postrender-filename";
/** An origin annotation is a few short lines; longer ones are not read. */
const ORIGIN_MAX = 4096;

/** Where an object was written, from its annotations or its document's `# Source:` comment. */
export function writtenIn(object: K8sObject, helmSource: string | undefined, root: string | undefined): Written | undefined {
  const annotations = object.metadata?.annotations as Record<string, unknown> | undefined;
  const place = (file: string) => (root ? join(root, file) : normalize(file));
  if (annotations && typeof annotations === "object") {
    const path = PATH_KEYS.map((key) => annotations[key]).find((v): v is string => typeof v === "string" && v !== "");
    if (path) {
      const index = INDEX_KEYS.map((key) => annotations[key]).find((v): v is string => typeof v === "string" && /^\d{1,6}$/.test(v));
      return { file: place(path), ...(index !== undefined ? { index: Number(index) } : {}), via: "kpt" };
    }
    const origin = annotations[ORIGIN_KEY];
    if (typeof origin === "string" && origin.length <= ORIGIN_MAX) {
      const file = originPath(origin);
      if (file) return { file: place(file), via: "kustomize" };
    }
    const template = annotations[HELM_FILE_KEY];
    if (typeof template === "string" && template !== "") return { file: place(template), via: "helm" };
  }
  return helmSource ? { file: place(helmSource), via: "helm" } : undefined;
}

/** The `path:` (or, for a generated object, `configuredIn:`) of a kustomize origin annotation. */
function originPath(text: string): string | undefined {
  try {
    const origin: unknown = parse(text, { maxAliasCount: 0 });
    if (origin === null || typeof origin !== "object") return undefined;
    const { path, configuredIn, repo } = origin as Record<string, unknown>;
    // A remote base's path is inside another repository: no local file to name.
    if (typeof repo === "string" && repo !== "") return undefined;
    const file = typeof path === "string" && path !== "" ? path : configuredIn;
    return typeof file === "string" && file !== "" ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Each document's helm `# Source:` path; undefined when the count does not match. */
export function helmSources(text: string, documents: number): (string | undefined)[] | undefined {
  if (!text.includes("# Source: ")) return undefined;
  const sources: (string | undefined)[] = [];
  let source: string | undefined;
  let content = false;
  const close = () => {
    if (content) sources.push(source);
    source = undefined;
    content = false;
  };
  for (const line of text.split("\n")) {
    if (/^(---|\.\.\.)(\s|$)/.test(line)) {
      close();
      if (line.slice(3).trim() !== "" && !line.slice(3).trim().startsWith("#")) content = true;
      continue;
    }
    // Plain string work, linear in the line (a regular expression with a lazy group is not).
    const named = line.startsWith("# Source: ") ? line.slice("# Source: ".length).trim() : "";
    if (named !== "") source ??= named;
    else if (line.trim() !== "" && !line.trimStart().startsWith("#")) content = true;
  }
  close();
  return sources.length === documents ? sources : undefined;
}

/** The original files, read once per check: each file's documents, or undefined when unreadable. */
export class OriginalFiles {
  private readonly files = new Map<string, SourceDocument[] | undefined>();
  private readonly inside = new Map<string, boolean>();

  /** `tree`: the real path of the tree the input came from; a file an annotation names outside it is never read. */
  constructor(private readonly tree?: string) {}

  documents(file: string): SourceDocument[] | undefined {
    if (!this.files.has(file)) this.files.set(file, this.inTree(file) ? read(file) : undefined);
    return this.files.get(file);
  }

  /** Whether `file` is inside the tree (or no tree bounds the input); asked once per file. */
  inTree(file: string): boolean {
    if (this.tree === undefined) return true;
    let known = this.inside.get(file);
    if (known === undefined) {
      try {
        known = inside(realpathSync.native(file), this.tree);
      } catch {
        known = false;
      }
      this.inside.set(file, known);
    }
    return known;
  }

  /**
   * The line and column of `path` in the object's source file (`exact`), or the object's own line when the file
   * holds another value there.
   */
  locate(written: Written, object: K8sObject, path: readonly PropertyKey[]): { line: number; column: number; exact: boolean } | undefined {
    const documents = this.documents(written.file);
    if (!documents) return undefined;
    const document = written.index !== undefined ? documents[written.index] : findDocument(documents, object);
    if (!document) return undefined;
    const exact = sameValue(dig(document.data, path), dig(object, path));
    const at = document.locate(exact ? path : []);
    return at.line === undefined ? undefined : { line: at.line, column: at.column ?? 1, exact };
  }
}

function read(file: string): SourceDocument[] | undefined {
  try {
    const stat = statSync(file);
    // Only regular files: a FIFO or device named in an annotation is never opened.
    if (!stat.isFile() || stat.size > LIMITS.fileBytes) return undefined;
    return parseManifests(readText(file), file);
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code !== undefined) return undefined;
    throw error;
  }
}

function findDocument(documents: readonly SourceDocument[], object: K8sObject): SourceDocument | undefined {
  const ofKind = documents.filter((d) => (d.data as K8sObject | null)?.kind === object.kind);
  return ofKind.find((d) => (d.data as K8sObject).metadata?.name === object.metadata?.name) ?? (ofKind.length === 1 ? ofKind[0] : undefined);
}

function sameValue(a: unknown, b: unknown): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
