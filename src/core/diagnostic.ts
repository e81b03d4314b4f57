// The one shape every complaint takes, from values or manifests: where, which
// key, which requirement, what is wrong and how to fix it.
import { printable } from "./printable.ts";

export interface Location {
  file: string;
  line?: number;
  column?: number;
}

export interface Diagnostic {
  /** Requirement ID from the catalog, for example `CR-03`. */
  id: string;
  /** Key path in the values file, for example `server.address`. */
  path: string;
  /** What is wrong, phrased to follow the key path. */
  message: string;
  /** How to fix it, phrased as the requirement. */
  fix: string;
  location?: Location;
}

export function formatLocation(location: Location | undefined): string {
  if (!location) return "";
  const { file, line, column } = location;
  if (line === undefined) return file;
  return column === undefined ? `${file}:${line}` : `${file}:${line}:${column}`;
}

/** `values.yaml:12:3 tokenExpirationSeconds: 300 is below 600 (CR-03: ...)`, safe to print. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = formatLocation(d.location);
  const key = d.path === "" ? "" : `${d.path}: `;
  return printable(bounded(`${where ? `${where} ` : ""}${key}${d.message} (${d.id}: ${d.fix})`));
}

/** The longest run of characters without white space a message prints whole (a path, a long object name). */
export const QUOTE_LIMIT = 512;

/** How much of a longer run is printed, before `…` and its length. */
const QUOTE_HEAD = 100;

/** Runs without white space, each read once from its start. */
const RUN = /\S+/g;

/** `text` with every overlong unbroken run cut and its length given, so a huge value is never printed. */
export function bounded(text: string): string {
  if (text.length <= QUOTE_LIMIT) return text;
  return text.replace(RUN, (run) => (run.length > QUOTE_LIMIT ? `${run.slice(0, QUOTE_HEAD)}… (${run.length} characters)` : run));
}
/** Renders a path of keys and indexes as people write it: `a.b[0].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else {
      const key = String(segment);
      const plain = /^[A-Za-z_$][\w$-]*$/.test(key);
      out += plain ? (out ? "." : "") + key : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
